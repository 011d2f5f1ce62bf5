// AfsLedger: Kueue's usage arithmetic for admission fair sharing — seeding
// from a LocalQueue's status, weights, entry penalties and the decay.
#include "engine/admission_fair_sharing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kuota::engine {
namespace {

api::AdmissionFairSharingConfig Config() {
  api::AdmissionFairSharingConfig cfg;
  cfg.usage_half_life_time = Duration{10'000};
  cfg.usage_sampling_interval = Duration{1'000};
  return cfg;
}

api::LocalQueue WithHistory(const std::string& cpu) {
  api::LocalQueue lq;
  api::AdmissionFairSharingStatus st;
  st.consumed_resources["cpu"] = *api::Quantity::Parse(cpu);
  lq.admission_fair_sharing = st;
  return lq;
}

TEST(AfsLedgerTest, UsageIsTheWeightedHistoryOverTheQueuesWeight) {
  AfsLedger ledger;
  ledger.Seed("ns/a", WithHistory("8"), Time{0});
  const AfsLedger::Entry* a = ledger.Find("ns/a");
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(a, 1, {}), 8);
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(a, 2, {}), 4);
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(a, 1, {{"cpu", 0.5}}), 4);
  EXPECT_EQ(AfsLedger::Usage(a, 0, {}), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(nullptr, 1, {}), 0);
  // A second Seed does not overwrite what the ledger has learned.
  ledger.Seed("ns/a", WithHistory("1"), Time{5});
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(ledger.Find("ns/a"), 1, {}), 8);
}

TEST(AfsLedgerTest, AnAdmissionChargesAPenaltyUntilTheNextFold) {
  AfsLedger ledger;
  const auto cfg = Config();
  ledger.Seed("ns/b", WithHistory("2"), Time{0});
  ledger.AddPenalty("ns/b", {{"cpu", 8000}}, cfg, Time{0});
  const double alpha = 1 - std::pow(0.5, 1.0 / 10.0);  // sampling 1 s, half-life 10 s
  EXPECT_NEAR(AfsLedger::Usage(ledger.Find("ns/b"), 1, {}), 2 + 8 * alpha, 1e-9);
  // Not yet due (500 ms < 1 s): nothing changes.
  ledger.Sample(Time{500}, cfg, {{"ns/b", {{"cpu", 8000}}}});
  EXPECT_NEAR(AfsLedger::Usage(ledger.Find("ns/b"), 1, {}), 2 + 8 * alpha, 1e-9);
  // Due after 2 s: history decays toward what is admitted; the penalty goes.
  ledger.Sample(Time{2000}, cfg, {{"ns/b", {{"cpu", 8000}}}});
  const double a2 = 1 - std::pow(0.5, 2.0 / 10.0);
  EXPECT_NEAR(AfsLedger::Usage(ledger.Find("ns/b"), 1, {}), 2 * (1 - a2) + 8 * a2, 1e-9);
  EXPECT_TRUE(ledger.Find("ns/b")->penalty.empty());
}

TEST(AfsLedgerTest, HistoryHalvesEveryHalfLifeWithNothingAdmitted) {
  AfsLedger ledger;
  const auto cfg = Config();
  ledger.Seed("ns/a", WithHistory("8"), Time{0});
  ledger.Sample(Time{10'000}, cfg, {});
  EXPECT_NEAR(AfsLedger::Usage(ledger.Find("ns/a"), 1, {}), 4, 1e-9);
  ledger.Sample(Time{20'000}, cfg, {});
  EXPECT_NEAR(AfsLedger::Usage(ledger.Find("ns/a"), 1, {}), 2, 1e-9);
  // A half-life of 0 keeps no history at all.
  auto none = cfg;
  none.usage_half_life_time = Duration{0};
  ledger.Sample(Time{30'000}, none, {{"ns/a", {{"cpu", 4000}}}});
  EXPECT_DOUBLE_EQ(AfsLedger::Usage(ledger.Find("ns/a"), 1, {}), 0);
}

}  // namespace
}  // namespace kuota::engine
