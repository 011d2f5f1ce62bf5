// Fair sharing (Kueue's KEP-1714): dominant resource share with weights,
// admission order by share, and fair-sharing preemption with the
// LessThanOrEqualToFinalShare / LessThanInitialShare strategies.
#include "engine/fair_sharing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

using api::FairSharingStrategy;

api::Configuration FairSharingOn(std::vector<FairSharingStrategy> strategies = {
                                     FairSharingStrategy::kLessThanOrEqualToFinalShare,
                                     FairSharingStrategy::kLessThanInitialShare}) {
  api::Configuration c;
  c.fair_sharing.enable = true;
  c.fair_sharing.preemption_strategies = std::move(strategies);
  return c;
}

api::ClusterQueue Queue(const std::string& name, const std::string& cpu, double weight = 1,
                        const std::string& memory = "0") {
  return MakeClusterQueue(name)
      .Cohort("all")
      .ResourceGroup({"cpu", "memory"},
                     {MakeFlavorQuotas("default").Resource("cpu", cpu).Resource("memory", memory)})
      .FairWeight(weight)
      .Preemption(api::WithinClusterQueuePolicy::kNever, api::ReclaimWithinCohortPolicy::kAny)
      .Obj();
}

api::Workload Running(const std::string& name, const std::string& cq, const std::string& cpu,
                      int64_t reserved_s, const std::string& memory = "0") {
  return MakeWorkload(name, "ns")
      .Queue("lq-" + cq)
      .PodSet("main", 1, {{"cpu", cpu}, {"memory", memory}})
      .ReserveQuota(cq, {{"cpu", "default"}, {"memory", "default"}}, At(reserved_s))
      .Admitted(At(reserved_s))
      .Obj();
}

api::Workload Pending(const std::string& name, const std::string& cq, const std::string& cpu,
                      int64_t created_s) {
  return MakeWorkload(name, "ns")
      .Queue("lq-" + cq)
      .Created(At(created_s))
      .PodSet("main", 1, {{"cpu", cpu}})
      .Obj();
}

// ---------------------------------------------------------------------------
// Dominant resource share: "a" (4 cpu, 1Gi) and a lender (8 cpu, 1Gi).

struct DrsCase {
  std::string name;
  double weight;
  std::string cpu_used;
  std::string memory_used;
  double want;  // weighted share, per mille of what the cohort can lend
  bool want_infinite;
};

class DominantResourceShareTest : public ::testing::TestWithParam<DrsCase> {};

TEST_P(DominantResourceShareTest, Value) {
  const DrsCase& c = GetParam();
  EngineHarness h(FairSharingOn());
  h.ApplyQueues({Queue("a", "4", c.weight, "1Gi"), Queue("lender", "8", 1, "1Gi")});
  ASSERT_TRUE(h.Apply(Running("a1", "a", c.cpu_used, 1, c.memory_used)));
  Share s = DominantResourceShare(*h.CQ("a"), h.engine().state().frs);
  EXPECT_EQ(s.infinite, c.want_infinite);
  if (!c.want_infinite) {
    EXPECT_NEAR(s.value, c.want, 1.0);
  }
  EXPECT_EQ(s.IsZero(), !c.want_infinite && c.want == 0);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DominantResourceShareTest,
    ::testing::Values(DrsCase{"NotBorrowingIsZero", 1, "3", "0", 0, false},
                      DrsCase{"AtNominalIsZero", 1, "4", "1Gi", 0, false},
                      DrsCase{"BorrowingCpu", 1, "6", "0", 2000.0 / 12, false},   // 2 of 12 cpu
                      DrsCase{"DominantIsMemory", 1, "6", "1536Mi", 250, false},  // 0.5Gi of 2Gi
                      DrsCase{"WeightTwoHalves", 2, "6", "0", 1000.0 / 12, false},
                      DrsCase{"WeightHalfDoubles", 0.5, "6", "0", 4000.0 / 12, false},
                      DrsCase{"WeightZeroBorrowingIsInfinite", 0, "6", "0", 0, true},
                      DrsCase{"WeightZeroNotBorrowingIsZero", 0, "2", "0", 0, false}),
    [](const ::testing::TestParamInfo<DrsCase>& info) { return info.param.name; });

TEST(FairSharingTest, CompareShareOrdersInfiniteLast) {
  Share zero;
  Share small{100, false, 100};
  Share big{200, false, 200};
  Share inf{0, true, 50};
  EXPECT_LT(CompareShare(zero, small), 0);
  EXPECT_LT(CompareShare(small, big), 0);
  EXPECT_GT(CompareShare(inf, big), 0);
  EXPECT_EQ(CompareShare(big, big), 0);
}

// ---------------------------------------------------------------------------
// Admission order. A lender has 4 cpu; "a" and "b" have none. "a" already
// borrows 2. Two pending 2-cpu workloads, a's older, compete for the last 2.

struct OrderCase {
  std::string name;
  bool fair_sharing;
  double weight_a;
  double weight_b;
  std::string want_admitted;
};

class FairSharingOrderTest : public ::testing::TestWithParam<OrderCase> {};

TEST_P(FairSharingOrderTest, WhoGetsTheLastQuota) {
  const OrderCase& c = GetParam();
  api::Configuration cfg;
  if (c.fair_sharing) cfg = FairSharingOn();
  EngineHarness h(cfg);
  h.ApplyQueues({Queue("lender", "4"), Queue("a", "0", c.weight_a), Queue("b", "0", c.weight_b)});
  ASSERT_TRUE(
      h.Apply(Running("a1", "a", "2", 1), Pending("a2", "a", "2", 2), Pending("b1", "b", "2", 3)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), Keys{c.want_admitted});
  EXPECT_TRUE(r.preempted.empty());
}

INSTANTIATE_TEST_SUITE_P(Table, FairSharingOrderTest,
                         ::testing::Values(
                             // Without fair sharing: FIFO among equally-borrowing heads.
                             OrderCase{"DisabledIsFifo", false, 1, 1, "ns/a2"},
                             // a would reach a share of 4/4, b only 2/4.
                             OrderCase{"LowerShareFirst", true, 1, 1, "ns/b1"},
                             // a's weight 4 divides its share to 250 < 500.
                             OrderCase{"WeightFavoursHeavierQueue", true, 4, 1, "ns/a2"},
                             // b borrowing with weight 0 has an infinite share.
                             OrderCase{"WeightZeroGoesLast", true, 1, 0, "ns/a2"}),
                         [](const ::testing::TestParamInfo<OrderCase>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------------------
// Preemption. "a", "b", "c" have 4 cpu each (12 in all). "a" holds 4 and
// "b" holds 8 in two 4-cpu workloads; "c" is empty. A 2-cpu workload in "a"
// would make a borrow 2 (share 2/12); b's share is 4/12 now and 0 after
// losing one workload.

struct StrategyCase {
  std::string name;
  std::vector<FairSharingStrategy> strategies;
  Keys want_victims;
};

class FairSharingPreemptionTest : public ::testing::TestWithParam<StrategyCase> {};

TEST_P(FairSharingPreemptionTest, Strategies) {
  const StrategyCase& c = GetParam();
  EngineHarness h(FairSharingOn(c.strategies));
  h.ApplyQueues({Queue("a", "4"), Queue("b", "4"), Queue("c", "4")});
  ASSERT_TRUE(h.Apply(Running("a1", "a", "2", 1), Running("a2", "a", "2", 2),
                      Running("b1", "b", "4", 3), Running("b2", "b", "4", 4),
                      Pending("incoming", "a", "2", 10)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::Victims(r.preempted), c.want_victims);
  for (const auto& d : r.preempted) EXPECT_EQ(d.reason, "InCohortFairSharing");
  h.Cycle();
  EXPECT_EQ(h.HoldsQuota("ns/incoming"), !c.want_victims.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Table, FairSharingPreemptionTest,
    ::testing::Values(
        // 2/12 <= 0/12 is false: b would end below a.
        StrategyCase{"LessThanOrEqualToFinalShareRefuses",
                     {FairSharingStrategy::kLessThanOrEqualToFinalShare},
                     {}},
        // 2/12 < 4/12: b starts above a.
        StrategyCase{
            "LessThanInitialShareAllows", {FairSharingStrategy::kLessThanInitialShare}, {"ns/b2"}},
        StrategyCase{"DefaultFallsBackToInitialShare",
                     {FairSharingStrategy::kLessThanOrEqualToFinalShare,
                      FairSharingStrategy::kLessThanInitialShare},
                     {"ns/b2"}}),
    [](const ::testing::TestParamInfo<StrategyCase>& info) { return info.param.name; });

TEST(FairSharingPreemptionTest, SmallVictimsSatisfyFinalShare) {
  // b holds 8 as four 2-cpu workloads: removing one leaves b at 2/12, and
  // a's 2/12 <= 2/12, so LessThanOrEqualToFinalShare allows it.
  EngineHarness h(FairSharingOn({FairSharingStrategy::kLessThanOrEqualToFinalShare}));
  h.ApplyQueues({Queue("a", "4"), Queue("b", "4"), Queue("c", "4")});
  ASSERT_TRUE(h.Apply(Running("a1", "a", "4", 1), Running("b1", "b", "2", 3),
                      Running("b2", "b", "2", 4), Running("b3", "b", "2", 5),
                      Running("b4", "b", "2", 6), Pending("incoming", "a", "2", 10)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/b4"});
}

TEST(FairSharingPreemptionTest, WithinNominalReclaimsFromBorrower) {
  // a is within its nominal after admission: it reclaims regardless of shares.
  EngineHarness h(FairSharingOn({FairSharingStrategy::kLessThanOrEqualToFinalShare}));
  h.ApplyQueues({Queue("a", "4"), Queue("b", "4")});
  ASSERT_TRUE(h.Apply(Running("b1", "b", "4", 3), Running("b2", "b", "4", 4),
                      Pending("incoming", "a", "4", 10)));
  auto r = h.Cycle();
  ASSERT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/b2"});
  EXPECT_EQ(r.preempted[0].reason, "InCohortReclamation");
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/incoming"));
}

TEST(FairSharingPreemptionTest, NeverPreemptsQueueWithinNominal) {
  // b is within its nominal: it is not a candidate even for a high share.
  EngineHarness h(FairSharingOn());
  h.ApplyQueues({Queue("a", "0"), Queue("b", "4")});
  ASSERT_TRUE(h.Apply(Running("b1", "b", "4", 3), Pending("incoming", "a", "2", 10)));
  auto r = h.Cycle();
  EXPECT_TRUE(r.preempted.empty());
  EXPECT_FALSE(h.HoldsQuota("ns/incoming"));
}

}  // namespace
}  // namespace kuota::engine
