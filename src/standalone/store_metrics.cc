#include "standalone/store_metrics.h"

#include <string>

namespace kuota::standalone {
namespace {

metrics::MetricFamily Counter(std::string name, std::string help, double value) {
  metrics::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = metrics::MetricType::kCounter;
  metrics::Sample sample;
  sample.value = value;
  f.samples.push_back(std::move(sample));
  return f;
}

}  // namespace

std::vector<metrics::MetricFamily> StoreWriteFamilies(
    const store::SqliteObjectStore::WriteStats& stats) {
  std::vector<metrics::MetricFamily> out;
  out.push_back(Counter("kuota_store_transactions_total",
                        "Write transactions the store committed (group-commit batches)",
                        static_cast<double>(stats.transactions)));
  out.push_back(Counter("kuota_store_writes_total", "Writes those transactions carried",
                        static_cast<double>(stats.writes)));
  out.push_back(Counter("kuota_store_transaction_seconds_total",
                        "Wall seconds the batch leader spent in committed write transactions, "
                        "BEGIN through COMMIT",
                        stats.transaction_seconds));
  out.push_back(Counter("kuota_store_commit_seconds_total",
                        "Wall seconds of those spent in COMMIT (WAL frames, fsync, checkpoints)",
                        stats.commit_seconds));
  out.push_back(Counter("kuota_store_transaction_cpu_seconds_total",
                        "CPU seconds the batch leader's thread used in those transactions",
                        stats.transaction_cpu_seconds));
  return out;
}

}  // namespace kuota::standalone
