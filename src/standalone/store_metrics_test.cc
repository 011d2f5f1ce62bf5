// StoreWriteFamilies: each WriteStats field becomes its own unlabelled
// counter, named as README and the monitoring checks name them.
#include "standalone/store_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace kuota::standalone {
namespace {

TEST(StoreMetricsTest, EachStatIsACounterOfItsOwn) {
  store::SqliteObjectStore::WriteStats stats;
  stats.transactions = 7;
  stats.writes = 40;
  stats.transaction_seconds = 1.5;
  stats.commit_seconds = 1.25;
  stats.transaction_cpu_seconds = 0.5;
  std::map<std::string, double> got;
  for (const metrics::MetricFamily& f : StoreWriteFamilies(stats)) {
    EXPECT_EQ(f.type, metrics::MetricType::kCounter) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    ASSERT_EQ(f.samples.size(), 1u) << f.name;
    EXPECT_TRUE(f.samples[0].labels.empty()) << f.name;
    got[f.name] = f.samples[0].value;
  }
  const std::map<std::string, double> want = {
      {"kuota_store_transactions_total", 7},
      {"kuota_store_writes_total", 40},
      {"kuota_store_transaction_seconds_total", 1.5},
      {"kuota_store_commit_seconds_total", 1.25},
      {"kuota_store_transaction_cpu_seconds_total", 0.5},
  };
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace kuota::standalone
