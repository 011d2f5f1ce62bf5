// ParseStoreWriter: the five kuota_store_* counters out of a /metrics page,
// or nothing when one is missing or malformed; StoreWriterDelta subtracts.
#include "perf/store_writer_scrape.h"

#include <gtest/gtest.h>

namespace kuota::perf {
namespace {

constexpr std::string_view kPage =
    "# HELP kuota_store_transactions_total Write transactions\n"
    "# TYPE kuota_store_transactions_total counter\n"
    "kuota_store_transactions_total 4084\n"
    "kuota_store_writes_total 369646\n"
    "kuota_store_transaction_seconds_total 31.25\n"
    "kuota_store_commit_seconds_total 20.5\n"
    "kuota_store_transaction_cpu_seconds_total 11.75\n"
    "kuota_controller_rounds_total 71\n"
    "kueue_pending_workloads{cluster_queue=\"cq\",status=\"active\"} 3\n";

TEST(StoreWriterScrapeTest, ReadsTheFiveCounters) {
  std::optional<StoreWriterCost> c = ParseStoreWriter(kPage);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->measured);
  EXPECT_EQ(c->transactions, 4084);
  EXPECT_EQ(c->writes, 369646);
  EXPECT_DOUBLE_EQ(c->transaction_s, 31.25);
  EXPECT_DOUBLE_EQ(c->commit_s, 20.5);
  EXPECT_DOUBLE_EQ(c->cpu_s, 11.75);
}

TEST(StoreWriterScrapeTest, NothingWhenOneIsMissingOrNotANumber) {
  std::string page(kPage);
  std::string missing = page;
  missing.erase(missing.find("kuota_store_commit_seconds_total"),
                std::string("kuota_store_commit_seconds_total 20.5\n").size());
  EXPECT_FALSE(ParseStoreWriter(missing).has_value());
  std::string garbled = page;
  garbled.replace(garbled.find("20.5"), 4, "x0.5");
  EXPECT_FALSE(ParseStoreWriter(garbled).has_value());
  EXPECT_FALSE(ParseStoreWriter("").has_value());
}

TEST(StoreWriterScrapeTest, DeltaSubtractsFieldByField) {
  StoreWriterCost a{true, 10, 100, 1.0, 0.5, 0.25};
  StoreWriterCost b{true, 15, 180, 3.0, 2.0, 1.0};
  StoreWriterCost d = StoreWriterDelta(a, b);
  EXPECT_TRUE(d.measured);
  EXPECT_EQ(d.transactions, 5);
  EXPECT_EQ(d.writes, 80);
  EXPECT_DOUBLE_EQ(d.transaction_s, 2.0);
  EXPECT_DOUBLE_EQ(d.commit_s, 1.5);
  EXPECT_DOUBLE_EQ(d.cpu_s, 0.75);
  a.measured = false;
  EXPECT_FALSE(StoreWriterDelta(a, b).measured);
}

}  // namespace
}  // namespace kuota::perf
