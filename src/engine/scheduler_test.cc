// The scheduling cycle: one head per ClusterQueue, StrictFIFO vs
// BestEffortFIFO, inadmissible workloads coming back when quota is released,
// partial admission down to minCount, borrowing and lending limits within a
// cycle, hierarchical cohorts, and the pending messages users read.
#include "engine/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

api::Workload Wl(const std::string& name, const std::string& queue, const std::string& cpu,
                 int64_t created_s, int32_t count = 1) {
  return MakeWorkload(name, "ns")
      .Queue(queue)
      .Created(At(created_s))
      .PodSet("main", count, {{"cpu", cpu}})
      .Obj();
}

api::Workload Running(const std::string& name, const std::string& cq, const std::string& cpu) {
  return MakeWorkload(name, "ns")
      .Queue("lq-" + cq)
      .PodSet("main", 1, {{"cpu", cpu}})
      .ReserveQuota(cq, {{"cpu", "default"}})
      .Admitted()
      .Obj();
}

// "cq" of 4 cpu where "running" holds 3 and "big" (2 cpu, created at 1 s)
// waits.
void BigBehindRunning(EngineHarness& h) {
  h.ApplyQueues({CpuQueue("cq", "4").Obj()});
  ASSERT_TRUE(h.Apply(Running("running", "cq", "3"), Wl("big", "lq-cq", "2", 1)));
}

// "cq" of `nominal` cpu and "wl" of `count` 1-cpu pods, `min_count` at
// least; runs a cycle.
void PartialInCq(EngineHarness& h, const std::string& nominal, int32_t count, int32_t min_count) {
  h.ApplyQueues({CpuQueue("cq", nominal).Obj()});
  ASSERT_TRUE(h.Apply(MakeWorkload("wl", "ns")
                          .Queue("lq-cq")
                          .PodSet("main", count, {{"cpu", "1"}})
                          .MinCount(min_count)));
  h.Cycle();
}

using QueueingTest = HarnessFixture;
using LimitsTest = HarnessFixture;
using PartialAdmissionTest = HarnessFixture;
using PendingMessageTest = HarnessFixture;

// ---------------------------------------------------------------------------
// Queueing strategies. The queue has 4 cpu, 3 held; "big" (2 cpu, older)
// does not fit, "small" (1 cpu) would.

struct FifoCase {
  std::string name;
  bool strict;
  int cycles;
  bool want_small_admitted;
};

using QueueingStrategyTest = HarnessTest<FifoCase>;

TEST_P(QueueingStrategyTest, HeadThatDoesNotFit) {
  MakeClusterQueue cq("cq");
  cq.ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")});
  if (c.strict) cq.StrictFIFO();
  h.ApplyQueues({cq.Obj()});
  ASSERT_TRUE(h.Apply(Running("running", "cq", "3"), Wl("big", "lq-cq", "2", 1),
                      Wl("small", "lq-cq", "1", 2)));
  h.Cycles(c.cycles);
  EXPECT_EQ(h.HoldsQuota("ns/small"), c.want_small_admitted);
  EXPECT_FALSE(h.HoldsQuota("ns/big"));
}

INSTANTIATE_TEST_SUITE_P(
    Table, QueueingStrategyTest,
    ::testing::Values(FifoCase{"BestEffortOneCycleOffersOnlyTheHead", false, 1, false},
                      FifoCase{"BestEffortSkipsHeadInNextCycle", false, 2, true},
                      FifoCase{"StrictBlocksTheQueue", true, 3, false}),
    [](const ::testing::TestParamInfo<FifoCase>& info) { return info.param.name; });

TEST_F(QueueingTest, StrictFifoHeadIsOfferedEveryCycle) {
  h.ApplyQueues({MakeClusterQueue("cq")
                     .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")})
                     .StrictFIFO()
                     .Obj()});
  ASSERT_TRUE(h.Apply(Running("running", "cq", "3"), Wl("big", "lq-cq", "2", 1),
                      Wl("small", "lq-cq", "1", 2)));
  for (int i = 0; i < 3; ++i) {
    auto r = h.Cycle();
    ASSERT_EQ(r.pending.size(), 1u) << "cycle " << i;
    EXPECT_EQ(r.pending[0].workload(), "ns/big");
  }
  const WorkloadInfo* small = h.Find("ns/small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(h.engine().PendingMessage("ns/small"),
            "Waiting in ClusterQueue cq: 1 workload(s) ahead in the queue");
}

TEST_F(QueueingTest, InadmissibleReturnsWhenQuotaIsReleased) {
  ASSERT_NO_FATAL_FAILURE(BigBehindRunning(h));
  auto first = h.Cycle();
  EXPECT_EQ(first.heads, 1);
  auto second = h.Cycle();
  EXPECT_EQ(second.heads, 0);  // parked as inadmissible, not offered again
  EXPECT_FALSE(h.HoldsQuota("ns/big"));
  ASSERT_TRUE(h.engine().FinishWorkload("ns/running").ok());
  EXPECT_FALSE(h.HoldsQuota("ns/running"));
  auto third = h.Cycle();
  EXPECT_EQ(third.heads, 1);
  EXPECT_TRUE(h.HoldsQuota("ns/big"));
}

TEST_F(QueueingTest, InadmissibleReturnsWhenClusterQueueGrows) {
  ASSERT_NO_FATAL_FAILURE(BigBehindRunning(h));
  h.Cycles(2);
  EXPECT_FALSE(h.HoldsQuota("ns/big"));
  ASSERT_TRUE(h.Apply(CpuQueue("cq", "5").Obj()));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/big"));
  EXPECT_TRUE(h.HoldsQuota("ns/running"));
}

TEST_F(QueueingTest, InadmissibleInCohortReturnsWhenAnotherQueueReleases) {
  h.ApplyQueues({CpuQueue("a", "0", "all").Obj(), CpuQueue("b", "4", "all").Obj()});
  ASSERT_TRUE(h.Apply(Running("b-running", "b", "3"), Wl("a-wl", "lq-a", "2", 1)));
  h.Cycles(2);
  EXPECT_FALSE(h.HoldsQuota("ns/a-wl"));
  ASSERT_TRUE(h.engine().FinishWorkload("ns/b-running").ok());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/a-wl"));
}

TEST_F(QueueingTest, DeletingAWorkloadReleasesItsQuota) {
  ASSERT_NO_FATAL_FAILURE(BigBehindRunning(h));
  h.Cycles(2);
  ASSERT_TRUE(h.engine().Delete("Workload", "ns", "running").ok());
  EXPECT_EQ(h.engine().Delete("Workload", "ns", "running").code(), StatusCode::kNotFound);
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/big"));
}

TEST_F(QueueingTest, HigherPriorityHeadFirstWithinCycle) {
  // Two queues share a cohort with room for one 3-cpu workload; the higher
  // priority head wins although it is newer.
  h.ApplyQueues({CpuQueue("a", "2", "all").Obj(), CpuQueue("b", "2", "all").Obj()});
  ASSERT_TRUE(h.Apply(Wl("old-low", "lq-a", "3", 1), MakeWorkload("new-high", "ns")
                                                         .Queue("lq-b")
                                                         .Priority(100)
                                                         .Created(At(5))
                                                         .PodSet("main", 1, {{"cpu", "3"}})));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), Keys{"ns/new-high"});
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_TRUE(EngineHarness::StartsWith(
      r.pending[0].message(), "Workload no longer fits after processing another workload"))
      << r.pending[0].message();
}

TEST_F(QueueingTest, NonBorrowingHeadBeforeBorrowingHead) {
  // b's head fits in its own nominal and goes first, although a's is older
  // and has higher priority; a's then no longer fits.
  h.ApplyQueues({CpuQueue("a", "1", "all").Obj(), CpuQueue("b", "2", "all").Obj()});
  ASSERT_TRUE(h.Apply(MakeWorkload("a-wl", "ns")
                          .Queue("lq-a")
                          .Priority(10)
                          .Created(At(1))
                          .PodSet("main", 1, {{"cpu", "2"}}),
                      Wl("b-wl", "lq-b", "2", 5)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), Keys{"ns/b-wl"});
}

// ---------------------------------------------------------------------------
// Borrowing and lending limits through whole cycles.

TEST_F(LimitsTest, BorrowingLimitCapsAdmission) {
  h.ApplyQueues({CpuQueue("a", "2", "all", "1").Obj(), CpuQueue("b", "10", "all").Obj()});
  ASSERT_TRUE(h.Apply(Wl("fits", "lq-a", "3", 1), Wl("too-big", "lq-a", "4", 2)));
  h.Cycles(2);
  EXPECT_TRUE(h.HoldsQuota("ns/fits"));
  EXPECT_FALSE(h.HoldsQuota("ns/too-big"));
  EXPECT_EQ(h.engine().PendingMessage("ns/too-big"),
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
            "default, request > maximum capacity (4 > 3)");
}

TEST_F(LimitsTest, LendingLimitKeepsQuotaForOwner) {
  // a lends at most 1 of its 4: b (nominal 1) can reach 2 but not 3.
  h.ApplyQueues(
      {CpuQueue("a", "4", "all", std::nullopt, "1").Obj(), CpuQueue("b", "1", "all").Obj()});
  ASSERT_TRUE(h.Apply(Wl("b-two", "lq-b", "2", 1)));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/b-two"));
  ASSERT_TRUE(h.Apply(Wl("b-one-more", "lq-b", "1", 2)));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/b-one-more"));
  // a still gets its guaranteed 3 without preempting anyone.
  ASSERT_TRUE(h.Apply(Wl("a-three", "lq-a", "3", 3)));
  auto r = h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/a-three"));
  EXPECT_TRUE(r.preempted.empty());
}

TEST_F(LimitsTest, HierarchicalCohortLendsItsOwnQuota) {
  // root has 6 cpu of its own; "a" (2 cpu) in child cohort "left" can use up
  // to 8, not 9.
  ASSERT_TRUE(h.Apply(
      MakeCohort("root").ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "6")}),
      MakeCohort("left").Parent("root")));
  h.ApplyQueues({CpuQueue("a", "2", "left").Obj()});
  ASSERT_TRUE(h.Apply(Wl("seven", "lq-a", "7", 1), Wl("two", "lq-a", "2", 2)));
  h.Cycles(3);
  EXPECT_TRUE(h.HoldsQuota("ns/seven"));
  EXPECT_FALSE(h.HoldsQuota("ns/two"));
  EXPECT_TRUE(h.PendingStartsWith(
      "ns/two",
      "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
      "default, 1 more needed"));
}

TEST_F(LimitsTest, NoOverAdmissionWithinOneCycle) {
  // Two heads each fit alone in the shared 4 cpu, not together.
  h.ApplyQueues({CpuQueue("a", "0", "all").Obj(), CpuQueue("b", "0", "all").Obj(),
                 CpuQueue("lender", "4", "all").Obj()});
  ASSERT_TRUE(h.Apply(Wl("a-wl", "lq-a", "3", 1), Wl("b-wl", "lq-b", "3", 2)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), Keys{"ns/a-wl"});
  EXPECT_EQ(h.CQ("lender")->parent()->usage(h.Fr("default", "cpu")), 3000);
}

// ---------------------------------------------------------------------------
// Partial admission.

TEST_F(PartialAdmissionTest, ShrinksToWhatFits) {
  ASSERT_NO_FATAL_FAILURE(PartialInCq(h, "10", 20, 5));
  ASSERT_TRUE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.CountOf("ns/wl", "main"), 10);
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "cpu")), 10'000);
}

TEST_F(PartialAdmissionTest, NotBelowMinCount) {
  ASSERT_NO_FATAL_FAILURE(PartialInCq(h, "10", 20, 12));
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"),
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
            "default, request > maximum capacity (20 > 10)");
}

TEST_F(PartialAdmissionTest, ShrinksPodSetsTogether) {
  // Kueue's PodSetReducer: 12 pods in 9 cpu; slack 2 + 4 = 6; step 3 of 6
  // gives up floor(2x3/6) = 1 and floor(4x3/6) = 2 (step 2: 0 + 1, short).
  h.ApplyQueues({CpuQueue("cq", "9").Obj()});
  ASSERT_TRUE(h.Apply(MakeWorkload("wl", "ns")
                          .Queue("lq-cq")
                          .PodSet("a", 4, {{"cpu", "1"}})
                          .MinCount(2)
                          .PodSet("b", 8, {{"cpu", "1"}})
                          .MinCount(4)));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.CountOf("ns/wl", "a"), 3);
  EXPECT_EQ(h.CountOf("ns/wl", "b"), 6);
}

TEST_F(PartialAdmissionTest, FullCountWhenItFits) {
  ASSERT_NO_FATAL_FAILURE(PartialInCq(h, "10", 8, 2));
  EXPECT_EQ(h.CountOf("ns/wl", "main"), 8);
}

TEST_F(PartialAdmissionTest, PreemptionAtFullCountIsPreferredToShrinking) {
  // With victims available at the full count, Kueue preempts rather than
  // admitting fewer pods.
  h.ApplyQueues({MakeClusterQueue("cq")
                     .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "10")})
                     .Preemption(api::WithinClusterQueuePolicy::kLowerPriority)
                     .Obj()});
  ASSERT_TRUE(h.Apply(Running("low", "cq", "5"), MakeWorkload("wl", "ns")
                                                     .Queue("lq-cq")
                                                     .Priority(10)
                                                     .PodSet("main", 10, {{"cpu", "1"}})
                                                     .MinCount(2)));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/low"});
  h.Cycle();
  EXPECT_EQ(h.CountOf("ns/wl", "main"), 10);
}

// ---------------------------------------------------------------------------
// Pending messages.

TEST_F(PendingMessageTest, InsufficientUnusedQuota) {
  h.ApplyQueues({CpuQueue("cq", "4").Obj()});
  ASSERT_TRUE(h.Apply(Running("running", "cq", "2"), Wl("wl", "lq-cq", "4", 1)));
  auto r = h.Cycle();
  const std::string want =
      "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
      "default, 2 more needed";
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_EQ(r.pending[0].workload(), "ns/wl");
  EXPECT_TRUE(EngineHarness::StartsWith(r.pending[0].message(), want)) << r.pending[0].message();
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), r.pending[0].message());
  const WorkloadInfo* wl = h.Find("ns/wl");
  const api::Condition* qr = api::FindCondition(wl->object.status.conditions, api::kQuotaReserved);
  ASSERT_NE(qr, nullptr);
  EXPECT_EQ(qr->status, "False");
  EXPECT_EQ(qr->reason, "Pending");
  EXPECT_EQ(qr->message, r.pending[0].message());
}

TEST_F(PendingMessageTest, MilliCpuAndMemoryAmounts) {
  h.ApplyQueues(
      {MakeClusterQueue("cq")
           .ResourceGroup(
               {"cpu", "memory"},
               {MakeFlavorQuotas("default").Resource("cpu", "1").Resource("memory", "1Gi")})
           .Obj()});
  ASSERT_TRUE(h.Apply(MakeWorkload("running", "ns")
                          .Queue("lq-cq")
                          .PodSet("main", 1, {{"cpu", "500m"}, {"memory", "512Mi"}})
                          .ReserveQuota("cq", {{"cpu", "default"}, {"memory", "default"}})
                          .Admitted(),
                      MakeWorkload("wl", "ns")
                          .Queue("lq-cq")
                          .PodSet("main", 1, {{"cpu", "750m"}, {"memory", "1Gi"}})));
  h.Cycle();
  EXPECT_TRUE(h.PendingStartsWith(
      "ns/wl",
      "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
      "default, 250m more needed, insufficient unused quota for memory in flavor default, "
      "512Mi more needed"));
}

TEST_F(PendingMessageTest, AdmittedHasNone) {
  h.ApplyQueues({CpuQueue("cq", "4").Obj()});
  ASSERT_TRUE(h.Apply(Wl("wl", "lq-cq", "1", 1)));
  auto r = h.Cycle();
  ASSERT_EQ(r.admitted.size(), 1u);
  EXPECT_TRUE(r.admitted[0].admitted);
  EXPECT_EQ(r.admitted[0].cluster_queue, "cq");
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), "");
  const WorkloadInfo* wl = h.Find("ns/wl");
  ASSERT_TRUE(wl->object.status.admission.has_value());
  EXPECT_EQ(wl->object.status.admission->cluster_queue, "cq");
  EXPECT_TRUE(api::IsConditionTrue(wl->object.status.conditions, api::kQuotaReserved));
  EXPECT_TRUE(api::IsConditionTrue(wl->object.status.conditions, api::kAdmitted));
}

// ---------------------------------------------------------------------------
// One instant per cycle. A clock that moves on every read (as kuotad's does).
// The cohort has 8 cpu, 7 held by "b" (borrowing 3); "a" reclaims for a
// 2-cpu head, and "c" and "d" each fit a 1-cpu head into the 1 cpu left.
// Both are admitted in the same cycle because the fit check counts the
// victim as gone: until the victim is evicted (at the cycle's end) the
// cohort holds 9. Its eviction must not be stamped after those admissions,
// or an observer ordering by the timestamps sees the cohort over its quota.

class TickingClock final : public Clock {
 public:
  explicit TickingClock(Time start) : now_(start) {}
  Time Now() const override {
    now_ = now_ + Duration{1};
    return now_;
  }

 private:
  mutable Time now_;
};

TEST(CycleTimeTest, AdmissionsAreNotStampedBeforeTheEvictionsTheyCountOn) {
  TickingClock clock(At(60));
  Engine engine(clock, {});
  auto apply = [&](auto x) { ASSERT_TRUE(engine.Apply(testing::ToObject(std::move(x))).ok()); };
  apply(MakeResourceFlavor("default"));
  apply(MakeClusterQueue("a")
            .Cohort("all")
            .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")})
            .Preemption(api::WithinClusterQueuePolicy::kNever, api::ReclaimWithinCohortPolicy::kAny)
            .Obj());
  apply(CpuQueue("b", "4", "all").Obj());
  apply(CpuQueue("c", "0", "all").Obj());
  apply(CpuQueue("d", "0", "all").Obj());
  for (const char* q : {"a", "b", "c", "d"}) {
    apply(MakeLocalQueue(std::string("lq-") + q, "ns").ClusterQueue(q).Obj());
  }
  apply(Running("b-1", "b", "3"));
  apply(Running("b-2", "b", "4"));
  apply(Wl("reclaimer", "lq-a", "2", 10));
  apply(Wl("c-1", "lq-c", "1", 20));
  apply(Wl("d-1", "lq-d", "1", 30));

  CycleResult r = engine.RunCycle();
  ASSERT_EQ(r.preempted.size(), 1u);
  Keys admitted = EngineHarness::AdmittedKeys(r);
  std::sort(admitted.begin(), admitted.end());
  ASSERT_EQ(admitted, (Keys{"ns/c-1", "ns/d-1"}));
  const WorkloadInfo* victim = engine.FindWorkload(r.preempted[0].workload);
  ASSERT_NE(victim, nullptr);
  const api::Condition* evicted =
      api::FindCondition(victim->object.status.conditions, api::kEvicted);
  ASSERT_TRUE(evicted && evicted->last_transition_time);
  for (const std::string& key : admitted) {
    const api::Condition* reserved =
        api::FindCondition(engine.FindWorkload(key)->object.status.conditions, api::kQuotaReserved);
    ASSERT_TRUE(reserved && reserved->last_transition_time) << key;
    EXPECT_LE(*evicted->last_transition_time, *reserved->last_transition_time) << key;
  }
}

}  // namespace
}  // namespace kuota::engine
