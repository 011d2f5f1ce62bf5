#include "perf/store_writer_scrape.h"

#include <cstdlib>
#include <map>
#include <string>

namespace kuota::perf {
namespace {

constexpr std::string_view kNames[] = {"kuota_store_transactions_total", "kuota_store_writes_total",
                                       "kuota_store_transaction_seconds_total",
                                       "kuota_store_commit_seconds_total",
                                       "kuota_store_transaction_cpu_seconds_total"};

}  // namespace

std::optional<StoreWriterCost> ParseStoreWriter(std::string_view text) {
  std::map<std::string_view, double> found;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    // Unlabelled samples only: "name value".
    const size_t space = line.find(' ');
    if (line.empty() || line[0] == '#' || space == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, space);
    bool wanted = false;
    for (std::string_view n : kNames) wanted = wanted || n == name;
    if (!wanted) continue;
    const std::string value(line.substr(space + 1));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || (*end != '\0' && *end != ' ')) return std::nullopt;
    found[name] = v;
  }
  for (std::string_view n : kNames) {
    if (found.count(n) == 0) return std::nullopt;
  }
  StoreWriterCost c;
  c.measured = true;
  c.transactions = static_cast<int64_t>(found[kNames[0]]);
  c.writes = static_cast<int64_t>(found[kNames[1]]);
  c.transaction_s = found[kNames[2]];
  c.commit_s = found[kNames[3]];
  c.cpu_s = found[kNames[4]];
  return c;
}

StoreWriterCost StoreWriterDelta(const StoreWriterCost& start, const StoreWriterCost& end) {
  StoreWriterCost d;
  d.measured = start.measured && end.measured;
  d.transactions = end.transactions - start.transactions;
  d.writes = end.writes - start.writes;
  d.transaction_s = end.transaction_s - start.transaction_s;
  d.commit_s = end.commit_s - start.commit_s;
  d.cpu_s = end.cpu_s - start.cpu_s;
  return d;
}

}  // namespace kuota::perf
