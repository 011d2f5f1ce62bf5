// Classic preemption as Kueue's scheduler/preemption does it:
// withinClusterQueue, reclaimWithinCohort, borrowWithinCohort with
// maxPriorityThreshold, the minimal victim set (fill-back), candidate order
// (lower priority first, then most recently reserved), and the preemptor
// being admitted in the cycle after its victims are evicted.
#include "engine/preemptor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

using api::BorrowWithinCohortPolicy;
using api::ReclaimWithinCohortPolicy;
using api::WithinClusterQueuePolicy;

constexpr const char* kIncoming = "ns/incoming";

api::ClusterQueuePreemption Policy(
    WithinClusterQueuePolicy within = WithinClusterQueuePolicy::kNever,
    ReclaimWithinCohortPolicy reclaim = ReclaimWithinCohortPolicy::kNever) {
  api::ClusterQueuePreemption p;
  p.within_cluster_queue = within;
  p.reclaim_within_cohort = reclaim;
  return p;
}

// A running workload holding `cpu` of flavor "default" in `cq`.
api::Workload Running(const std::string& name, const std::string& cq, const std::string& cpu,
                      int32_t priority, int64_t reserved_s, int64_t created_s = 0) {
  return MakeWorkload(name, "ns")
      .Queue("lq-" + cq)
      .Priority(priority)
      .Created(At(created_s))
      .PodSet("main", 1, {{"cpu", cpu}})
      .ReserveQuota(cq, {{"cpu", "default"}}, At(reserved_s))
      .Admitted(At(reserved_s))
      .Obj();
}

api::Workload Incoming(const std::string& cq, const std::string& cpu, int32_t priority,
                       int64_t created_s = 30) {
  return MakeWorkload("incoming", "ns")
      .Queue("lq-" + cq)
      .Priority(priority)
      .Created(At(created_s))
      .PodSet("main", 1, {{"cpu", cpu}})
      .Obj();
}

api::ClusterQueue Queue(const std::string& name, const std::string& cohort,
                        const std::string& nominal, api::ClusterQueuePreemption p,
                        std::optional<std::string_view> borrowing_limit = std::nullopt) {
  return MakeClusterQueue(name)
      .Cohort(cohort)
      .ResourceGroup({"cpu"},
                     {MakeFlavorQuotas("default").Resource("cpu", nominal, borrowing_limit)})
      .Preemption(p.within_cluster_queue, p.reclaim_within_cohort, p.borrow_within_cohort.policy,
                  p.borrow_within_cohort.max_priority_threshold)
      .Obj();
}

void ApplyBase(EngineHarness& h, const std::vector<std::string>& cqs) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default")));
  for (const auto& cq : cqs)
    ASSERT_TRUE(h.Apply(MakeLocalQueue("lq-" + cq, "ns").ClusterQueue(cq)));
}

// Runs a cycle. With `want_preempt`, `victim` alone is preempted for `reason`
// and the incoming workload gets in the next cycle; otherwise nothing is
// preempted and it waits.
void ExpectPreemption(EngineHarness& h, bool want_preempt, const std::string& victim,
                      const std::string& reason) {
  auto r = h.Cycle();
  if (!want_preempt) {
    EXPECT_TRUE(r.preempted.empty());
    EXPECT_FALSE(h.HoldsQuota(kIncoming));
    return;
  }
  ASSERT_EQ(EngineHarness::Victims(r.preempted), Keys{victim});
  EXPECT_EQ(r.preempted[0].reason, reason);
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota(kIncoming));
}

// ---------------------------------------------------------------------------
// withinClusterQueue: cq has 4 cpu, all held by "victim"; the incoming
// workload needs 4.

struct WithinCase {
  std::string name;
  WithinClusterQueuePolicy policy;
  int32_t victim_priority;
  int64_t victim_created_s;
  int32_t incoming_priority;
  int64_t incoming_created_s;
  bool want_preempt;
};

using WithinClusterQueueTest = HarnessTest<WithinCase>;

TEST_P(WithinClusterQueueTest, Policy) {
  ApplyBase(h, {"cq"});
  ASSERT_TRUE(h.Apply(Queue("cq", "", "4", Policy(c.policy)),
                      Running("victim", "cq", "4", c.victim_priority, 5, c.victim_created_s),
                      Incoming("cq", "4", c.incoming_priority, c.incoming_created_s)));
  auto r = h.Cycle();
  if (!c.want_preempt) {
    EXPECT_TRUE(r.preempted.empty());
    EXPECT_TRUE(h.HoldsQuota("ns/victim"));
    EXPECT_FALSE(h.HoldsQuota(kIncoming));
    return;
  }
  ASSERT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/victim"});
  EXPECT_EQ(r.preempted[0].reason, "InClusterQueue");
  EXPECT_EQ(r.preempted[0].preemptor, kIncoming);
  EXPECT_FALSE(h.HoldsQuota("ns/victim"));
  EXPECT_FALSE(h.HoldsQuota(kIncoming));  // admitted in the next cycle, not this one
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota(kIncoming));
  EXPECT_FALSE(h.HoldsQuota("ns/victim"));
}

INSTANTIATE_TEST_SUITE_P(
    Table, WithinClusterQueueTest,
    ::testing::Values(
        WithinCase{"NeverDoesNotPreempt", WithinClusterQueuePolicy::kNever, 0, 0, 10, 30, false},
        WithinCase{"LowerPriorityPreemptsLower", WithinClusterQueuePolicy::kLowerPriority, 0, 0, 10,
                   30, true},
        WithinCase{"LowerPrioritySparesEqual", WithinClusterQueuePolicy::kLowerPriority, 10, 40, 10,
                   30, false},
        WithinCase{"LowerPrioritySparesHigher", WithinClusterQueuePolicy::kLowerPriority, 20, 0, 10,
                   30, false},
        WithinCase{"LowerOrNewerEqualPreemptsLower",
                   WithinClusterQueuePolicy::kLowerOrNewerEqualPriority, 0, 0, 10, 30, true},
        WithinCase{"LowerOrNewerEqualPreemptsNewerEqual",
                   WithinClusterQueuePolicy::kLowerOrNewerEqualPriority, 10, 40, 10, 30, true},
        WithinCase{"LowerOrNewerEqualSparesOlderEqual",
                   WithinClusterQueuePolicy::kLowerOrNewerEqualPriority, 10, 20, 10, 30, false},
        WithinCase{"LowerOrNewerEqualSparesHigher",
                   WithinClusterQueuePolicy::kLowerOrNewerEqualPriority, 20, 40, 10, 30, false}),
    [](const ::testing::TestParamInfo<WithinCase>& info) { return info.param.name; });

TEST(PreemptorTest, PendingMessageWhileVictimsAreEvicted) {
  EngineHarness h;
  ApplyBase(h, {"cq"});
  ASSERT_TRUE(h.Apply(Queue("cq", "", "4", Policy(WithinClusterQueuePolicy::kLowerPriority)),
                      Running("victim", "cq", "4", 0, 5), Incoming("cq", "4", 10)));
  auto r = h.Cycle();
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_NE(r.pending[0].message().find("Pending the preemption of 1 workload(s)"),
            std::string::npos)
      << r.pending[0].message();
  const WorkloadInfo* victim = h.Find("ns/victim");
  ASSERT_NE(victim, nullptr);
  EXPECT_TRUE(api::IsConditionTrue(victim->object.status.conditions, api::kEvicted));
  EXPECT_TRUE(api::IsConditionTrue(victim->object.status.conditions, api::kPreempted));
  EXPECT_FALSE(api::IsConditionTrue(victim->object.status.conditions, api::kQuotaReserved));
}

// ---------------------------------------------------------------------------
// Minimal victim set and candidate order: "cq" has `nominal` cpu and
// preempts lower priority within it; `workloads` hold it and come in.
struct VictimCase {
  std::string name;
  std::string nominal;
  std::vector<api::Workload> workloads;
  Keys want_victims;           // in key order
  std::string want_kept = "";  // a workload that keeps its quota; "" for none
};

using VictimOrderTest = HarnessTest<VictimCase>;

TEST_P(VictimOrderTest, Victims) {
  ApplyBase(h, {"cq"});
  ASSERT_TRUE(
      h.Apply(Queue("cq", "", c.nominal, Policy(WithinClusterQueuePolicy::kLowerPriority))));
  for (const api::Workload& w : c.workloads) ASSERT_TRUE(h.Apply(w));
  auto r = h.Cycle();
  Keys victims = EngineHarness::Victims(r.preempted);
  std::sort(victims.begin(), victims.end());
  EXPECT_EQ(victims, c.want_victims);
  if (!c.want_kept.empty()) EXPECT_TRUE(h.HoldsQuota(c.want_kept));
}

INSTANTIATE_TEST_SUITE_P(
    Table, VictimOrderTest,
    ::testing::Values(VictimCase{"PreemptsLowestPriorityFirstAndOnlyWhatIsNeeded",
                                 "6",
                                 {Running("p1", "cq", "2", 1, 1), Running("p2", "cq", "2", 2, 2),
                                  Running("p3", "cq", "2", 3, 3), Incoming("cq", "4", 10)},
                                 {"ns/p1", "ns/p2"},
                                 "ns/p3"},
                      // Candidates in order: small (priority 1, 1 cpu), big (priority 2, 3
                      // cpu). Removing small is not enough; removing big is; small is then
                      // put back.
                      VictimCase{"FillBackDropsVictimsThatAreNotNeeded",
                                 "4",
                                 {Running("small", "cq", "1", 1, 1),
                                  Running("big", "cq", "3", 2, 2), Incoming("cq", "3", 10)},
                                 {"ns/big"},
                                 "ns/small"},
                      VictimCase{"SamePriorityMostRecentlyReservedFirst",
                                 "4",
                                 {Running("older", "cq", "2", 0, 10),
                                  Running("newer", "cq", "2", 0, 20), Incoming("cq", "2", 5)},
                                 {"ns/newer"}},
                      VictimCase{"LowerPriorityBeatsRecency",
                                 "4",
                                 {Running("old-low", "cq", "2", 0, 10),
                                  Running("new-mid", "cq", "2", 3, 20), Incoming("cq", "2", 5)},
                                 {"ns/old-low"}},
                      // A workload already being evicted (Evicted=True, still holding
                      // quota) is taken before others, whatever its reservation time.
                      VictimCase{"EvictedCandidatesFirst",
                                 "4",
                                 {MakeWorkload("evicting", "ns")
                                      .Queue("lq-cq")
                                      .PodSet("main", 1, {{"cpu", "2"}})
                                      .ReserveQuota("cq", {{"cpu", "default"}}, At(1))
                                      .Admitted(At(1))
                                      .Condition(api::kEvicted, "True", "PodsReadyTimeout", At(40))
                                      .Obj(),
                                  Running("fresh", "cq", "2", 0, 20), Incoming("cq", "2", 10)},
                                 {"ns/evicting"}}),
    [](const ::testing::TestParamInfo<VictimCase>& info) { return info.param.name; });

TEST(PreemptorTest, NoPreemptionWhenVictimsCannotMakeRoom) {
  // Only 2 cpu are held by lower priority; the rest by higher priority.
  EngineHarness h;
  ApplyBase(h, {"cq"});
  ASSERT_TRUE(h.Apply(Queue("cq", "", "4", Policy(WithinClusterQueuePolicy::kLowerPriority)),
                      Running("low", "cq", "2", 0, 10), Running("high", "cq", "2", 20, 20),
                      Incoming("cq", "4", 10)));
  auto r = h.Cycle();
  EXPECT_TRUE(r.preempted.empty());
  EXPECT_TRUE(h.HoldsQuota("ns/low"));
  EXPECT_TRUE(h.PendingStartsWith(
      kIncoming,
      "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
      "default, 4 more needed"));
}

TEST(PreemptorTest, PreemptionNeedsTheWorkloadToFitInNominalQuota) {
  // cq (4 cpu, all used by "low") may borrow the lender's 4. A 6-cpu
  // workload would fit after preempting "low" (borrowing 2), but it exceeds
  // cq's nominal quota, and without borrowWithinCohort Kueue only lets
  // workloads that fit within nominal quota preempt.
  EngineHarness h;
  ApplyBase(h, {"cq", "lender"});
  ASSERT_TRUE(h.Apply(Queue("cq", "all", "4", Policy(WithinClusterQueuePolicy::kLowerPriority)),
                      Queue("lender", "all", "4", Policy()), Running("low", "cq", "4", 0, 1),
                      Incoming("cq", "6", 10)));
  auto r = h.Cycle();
  EXPECT_TRUE(r.preempted.empty());
  EXPECT_TRUE(h.HoldsQuota("ns/low"));
}

TEST(PreemptorTest, BorrowingQueuesVictimsBeforeOwnLowerPriority) {
  // a is within nominal after admission; b borrows. Kueue takes candidates
  // from other (borrowing) queues before the preemptor's own queue, even when
  // the own candidate has lower priority.
  EngineHarness h;
  ApplyBase(h, {"a", "b"});
  ASSERT_TRUE(h.Apply(Queue("a", "all", "4",
                            Policy(WithinClusterQueuePolicy::kLowerPriority,
                                   ReclaimWithinCohortPolicy::kLowerPriority)),
                      Queue("b", "all", "4", Policy()), Running("a-low", "a", "2", 0, 1),
                      Running("b1", "b", "4", 5, 2), Running("b2", "b", "2", 5, 3),
                      Incoming("a", "2", 10)));
  auto r = h.Cycle();
  ASSERT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/b2"});
  EXPECT_EQ(r.preempted[0].reason, "InCohortReclamation");
  EXPECT_TRUE(h.HoldsQuota("ns/a-low"));
}

TEST(PreemptorTest, ReclaimTakesFromEachBorrowingQueueOnlyUntilItsNominal) {
  // b and c each borrow 2 of a's 8. Candidates in order: b3, b2, b1, c3, ...
  // Once b3 is taken b is within nominal, so b2 and b1 are no longer valid
  // victims; c3 is the next one, and the two make room.
  EngineHarness h;
  ApplyBase(h, {"a", "b", "c"});
  const auto reclaim =
      Policy(WithinClusterQueuePolicy::kNever, ReclaimWithinCohortPolicy::kLowerPriority);
  ASSERT_TRUE(h.Apply(Queue("a", "all", "8", reclaim), Queue("b", "all", "4", Policy()),
                      Queue("c", "all", "4", Policy()), Running("a1", "a", "4", 10, 1),
                      Running("c1", "c", "2", 0, 1), Running("c2", "c", "2", 0, 2),
                      Running("c3", "c", "2", 0, 3), Running("b1", "b", "2", 0, 4),
                      Running("b2", "b", "2", 0, 5), Running("b3", "b", "2", 0, 6),
                      Incoming("a", "4", 5)));
  auto r = h.Cycle();
  auto victims = EngineHarness::Victims(r.preempted);
  std::sort(victims.begin(), victims.end());
  EXPECT_EQ(victims, (Keys{"ns/b3", "ns/c3"}));
  EXPECT_TRUE(h.HoldsQuota("ns/b2"));
  EXPECT_TRUE(h.HoldsQuota("ns/c2"));
}

// ---------------------------------------------------------------------------
// reclaimWithinCohort: "a" and "b" have 4 cpu each; "b" holds 8 (b1 within
// its nominal, b2 borrowed from "a"). The incoming workload in "a" needs 4,
// within a's nominal.

struct ReclaimCase {
  std::string name;
  ReclaimWithinCohortPolicy policy;
  int32_t b_priority;
  bool want_preempt;
};

using ReclaimWithinCohortTest = HarnessTest<ReclaimCase>;

TEST_P(ReclaimWithinCohortTest, Policy) {
  ApplyBase(h, {"a", "b"});
  ASSERT_TRUE(h.Apply(Queue("a", "all", "4", Policy(WithinClusterQueuePolicy::kNever, c.policy)),
                      Queue("b", "all", "4", Policy()), Running("b1", "b", "4", c.b_priority, 1),
                      Running("b2", "b", "4", c.b_priority, 2), Incoming("a", "4", 5)));
  ASSERT_NO_FATAL_FAILURE(ExpectPreemption(h, c.want_preempt, "ns/b2", "InCohortReclamation"));
  if (c.want_preempt) {
    EXPECT_TRUE(h.HoldsQuota("ns/b1"));
    EXPECT_FALSE(h.HoldsQuota("ns/b2"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ReclaimWithinCohortTest,
    ::testing::Values(ReclaimCase{"NeverDoesNotReclaim", ReclaimWithinCohortPolicy::kNever, 0,
                                  false},
                      ReclaimCase{"LowerPriorityReclaimsLower",
                                  ReclaimWithinCohortPolicy::kLowerPriority, 0, true},
                      ReclaimCase{"LowerPrioritySparesEqual",
                                  ReclaimWithinCohortPolicy::kLowerPriority, 5, false},
                      ReclaimCase{"LowerPrioritySparesHigher",
                                  ReclaimWithinCohortPolicy::kLowerPriority, 10, false},
                      ReclaimCase{"AnyReclaimsHigher", ReclaimWithinCohortPolicy::kAny, 10, true}),
    [](const ::testing::TestParamInfo<ReclaimCase>& info) { return info.param.name; });

TEST(PreemptorTest, ReclaimNeverTakesFromQueueWithinItsNominal) {
  // "b" holds exactly its nominal: nothing of it can be reclaimed, even with Any.
  EngineHarness h;
  ApplyBase(h, {"a", "b"});
  ASSERT_TRUE(
      h.Apply(Queue("a", "all", "4",
                    Policy(WithinClusterQueuePolicy::kNever, ReclaimWithinCohortPolicy::kAny)),
              Queue("b", "all", "4", Policy()), Running("b1", "b", "4", 0, 1),
              Running("a1", "a", "2", 0, 1), Incoming("a", "4", 5)));
  auto r = h.Cycle();
  EXPECT_TRUE(r.preempted.empty());
  EXPECT_FALSE(h.HoldsQuota(kIncoming));
}

// ---------------------------------------------------------------------------
// borrowWithinCohort: "a" and "b" have 3 cpu each; "b" holds 4 (borrowing
// 1). The incoming workload in "a" needs 4: more than a's nominal, so it
// must borrow even after preempting.

struct BorrowCase {
  std::string name;
  BorrowWithinCohortPolicy policy;
  std::optional<int32_t> threshold;
  int32_t b_priority;
  bool want_preempt;
};

using BorrowWithinCohortTest = HarnessTest<BorrowCase>;

TEST_P(BorrowWithinCohortTest, Policy) {
  ApplyBase(h, {"a", "b"});
  api::ClusterQueuePreemption p;
  p.reclaim_within_cohort = ReclaimWithinCohortPolicy::kAny;
  p.borrow_within_cohort = {c.policy, c.threshold};
  ASSERT_TRUE(h.Apply(Queue("a", "all", "3", p), Queue("b", "all", "3", Policy()),
                      Running("b1", "b", "4", c.b_priority, 1), Incoming("a", "4", 10)));
  ExpectPreemption(h, c.want_preempt, "ns/b1", "InCohortReclaimWhileBorrowing");
}

INSTANTIATE_TEST_SUITE_P(
    Table, BorrowWithinCohortTest,
    ::testing::Values(
        BorrowCase{"NeverCannotPreemptWhileBorrowing", BorrowWithinCohortPolicy::kNever,
                   std::nullopt, 0, false},
        BorrowCase{"LowerPriorityPreemptsWhileBorrowing", BorrowWithinCohortPolicy::kLowerPriority,
                   std::nullopt, 0, true},
        BorrowCase{"LowerPrioritySparesEqualPriority", BorrowWithinCohortPolicy::kLowerPriority,
                   std::nullopt, 10, false},
        BorrowCase{"ThresholdInclusive", BorrowWithinCohortPolicy::kLowerPriority, 0, 0, true},
        BorrowCase{"AboveThresholdSpared", BorrowWithinCohortPolicy::kLowerPriority, -1, 0, false}),
    [](const ::testing::TestParamInfo<BorrowCase>& info) { return info.param.name; });

TEST(PreemptorTest, BorrowingLimitBoundsPreemptionWhileBorrowing) {
  // a may borrow at most 0: a 4-cpu workload can never fit its 3, so no
  // preemption is attempted at all.
  EngineHarness h;
  ApplyBase(h, {"a", "b"});
  api::ClusterQueuePreemption p;
  p.reclaim_within_cohort = ReclaimWithinCohortPolicy::kAny;
  p.borrow_within_cohort = {BorrowWithinCohortPolicy::kLowerPriority, std::nullopt};
  ASSERT_TRUE(h.Apply(Queue("a", "all", "3", p, "0"), Queue("b", "all", "3", Policy()),
                      Running("b1", "b", "4", 0, 1), Incoming("a", "4", 10)));
  auto r = h.Cycle();
  EXPECT_TRUE(r.preempted.empty());
  EXPECT_NE(h.engine().PendingMessage(kIncoming).find("request > maximum capacity (4 > 3)"),
            std::string::npos)
      << h.engine().PendingMessage(kIncoming);
}

TEST(PreemptorTest, OverlappingTargetsPreemptOnce) {
  // a and b each need back the 2 cpu that c borrowed from them in a single
  // workload. Both heads pick the same victim; only the first preempts, the
  // other is skipped this cycle, and both are admitted once it is gone.
  EngineHarness h;
  ApplyBase(h, {"a", "b", "c"});
  const auto reclaim = Policy(WithinClusterQueuePolicy::kNever, ReclaimWithinCohortPolicy::kAny);
  ASSERT_TRUE(h.Apply(
      Queue("a", "all", "2", reclaim), Queue("b", "all", "2", reclaim),
      Queue("c", "all", "0", Policy()), Running("c-wl", "c", "4", 0, 1),
      MakeWorkload("a-new", "ns").Queue("lq-a").Created(At(10)).PodSet("main", 1, {{"cpu", "2"}}),
      MakeWorkload("b-new", "ns").Queue("lq-b").Created(At(11)).PodSet("main", 1, {{"cpu", "2"}})));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::Victims(r.preempted), Keys{"ns/c-wl"});
  bool b_skipped = false;
  for (const auto& p : r.pending) {
    if (p.workload() != "ns/b-new") continue;
    b_skipped = true;
    EXPECT_TRUE(EngineHarness::StartsWith(
        p.message(), "Workload has overlapping preemption targets with another workload"))
        << p.message();
  }
  EXPECT_TRUE(b_skipped);
  auto second = h.Cycle();
  EXPECT_TRUE(second.preempted.empty());
  EXPECT_TRUE(h.HoldsQuota("ns/a-new"));
  EXPECT_TRUE(h.HoldsQuota("ns/b-new"));
}

TEST(PreemptorTest, PreemptionAcrossCyclesKeepsVictimPending) {
  // After the preemption, the victim goes back to its queue and waits: it
  // does not take the capacity back before the preemptor.
  EngineHarness h;
  ApplyBase(h, {"cq"});
  ASSERT_TRUE(h.Apply(Queue("cq", "", "4", Policy(WithinClusterQueuePolicy::kLowerPriority)),
                      Running("victim", "cq", "4", 0, 5), Incoming("cq", "4", 10)));
  auto preempted = h.Cycles(3);
  EXPECT_EQ(EngineHarness::Victims(preempted), Keys{"ns/victim"});
  EXPECT_TRUE(h.HoldsQuota(kIncoming));
  EXPECT_FALSE(h.HoldsQuota("ns/victim"));
  const WorkloadInfo* victim = h.Find("ns/victim");
  ASSERT_NE(victim, nullptr);
  EXPECT_EQ(victim->state, WorkloadState::kPending);
}

TEST(PreemptorTest, FrozenAnswersFollowTheTreesOfEachFreeze) {
  // While the holders are frozen, what Classic derives from a tree's usage is
  // kept for the next heads; a later freeze must see the tree as it is then.
  // First b borrows (its newest workload is the victim); then b is back
  // within nominal quota and c borrows (c's newest is the victim).
  EngineHarness h;
  ApplyBase(h, {"a", "b", "c"});
  const auto reclaim = Policy(WithinClusterQueuePolicy::kNever, ReclaimWithinCohortPolicy::kAny);
  ASSERT_TRUE(h.Apply(Queue("a", "all", "4", reclaim), Queue("b", "all", "4", reclaim),
                      Queue("c", "all", "4", reclaim), Running("b1", "b", "4", 0, 10),
                      Running("b2", "b", "4", 0, 20), Running("c1", "c", "4", 0, 15),
                      Incoming("a", "4", 0)));
  const WorkloadInfo* incoming = h.Find(kIncoming);
  ASSERT_NE(incoming, nullptr);
  const FrId cpu = h.Fr("default", "cpu");
  const FrIdSet need{cpu};
  const FrUsage usage{{cpu, 4000}};
  api::FairSharingConfig fair_sharing;
  Preemptor preemptor(h.engine().state().frs, fair_sharing);
  auto victims = [&]() {
    preemptor.holders().Freeze();
    Keys keys;
    for (const auto& t : preemptor.GetTargets(*incoming, *h.CQ("a"), need, usage)) {
      keys.push_back(t.workload->key);
    }
    preemptor.holders().Thaw();
    return keys;
  };
  EXPECT_EQ(victims(), Keys{"ns/b2"});
  EXPECT_EQ(victims(), Keys{"ns/b2"});
  ASSERT_TRUE(h.engine().Delete("Workload", "ns", "b2").ok());
  ASSERT_TRUE(h.Apply(Running("c2", "c", "4", 0, 40)));
  EXPECT_EQ(victims(), Keys{"ns/c2"});
}

TEST(PreemptorTest, DryRunNeverChangesTheAnswer) {
  // Random flat cohorts (quotas, borrowing and lending limits, policies,
  // holders over and under their quotas): the victims found with the dry
  // run, frozen (memo) and not, are those of simulating every attempt.
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  int with_victims = 0, without = 0;
  for (int round = 0; round < 300; ++round) {
    EngineHarness h;
    const int n_cqs = 2 + pick(4);
    std::vector<std::string> names;
    for (int i = 0; i < n_cqs; ++i) names.push_back("q" + std::to_string(i));
    ApplyBase(h, names);
    for (const auto& name : names) {
      api::ClusterQueuePreemption p;
      p.within_cluster_queue = static_cast<WithinClusterQueuePolicy>(pick(3));
      p.reclaim_within_cohort = static_cast<ReclaimWithinCohortPolicy>(pick(3));
      p.borrow_within_cohort.policy = static_cast<BorrowWithinCohortPolicy>(pick(2));
      if (pick(2)) p.borrow_within_cohort.max_priority_threshold = pick(3) - 1;
      auto quotas = MakeFlavorQuotas("default");
      for (const char* res : {"cpu", "memory"}) {
        const std::string nominal = std::to_string(pick(8));
        std::optional<std::string> borrow, lend;
        if (pick(3) == 0) borrow = std::to_string(pick(6));
        if (pick(3) == 0) lend = std::to_string(pick(6));
        quotas.Resource(res, nominal,
                        borrow ? std::optional<std::string_view>(*borrow) : std::nullopt,
                        lend ? std::optional<std::string_view>(*lend) : std::nullopt);
      }
      ASSERT_TRUE(h.Apply(MakeClusterQueue(name)
                              .Cohort("all")
                              .ResourceGroup({"cpu", "memory"}, {quotas})
                              .Preemption(p.within_cluster_queue, p.reclaim_within_cohort,
                                          p.borrow_within_cohort.policy,
                                          p.borrow_within_cohort.max_priority_threshold)
                              .Obj()));
    }
    const int n_holders = pick(14);
    for (int i = 0; i < n_holders; ++i) {
      const std::string cq = names[static_cast<size_t>(pick(n_cqs))];
      const std::string name = "w" + std::to_string(i);
      ASSERT_TRUE(h.Apply(
          MakeWorkload(name, "ns")
              .Queue("lq-" + cq)
              .Priority(pick(4) - 1)
              .Created(At(0))
              .PodSet("main", 1,
                      {{"cpu", std::to_string(pick(4))}, {"memory", std::to_string(pick(4))}})
              .ReserveQuota(cq, {{"cpu", "default"}, {"memory", "default"}}, At(pick(5)))
              .Admitted(At(pick(5)))
              .Obj()));
    }
    const std::string in_cq = names[static_cast<size_t>(pick(n_cqs))];
    ASSERT_TRUE(h.Apply(
        MakeWorkload("incoming", "ns")
            .Queue("lq-" + in_cq)
            .Priority(pick(4) - 1)
            .Created(At(30))
            .PodSet("main", 1,
                    {{"cpu", std::to_string(1 + pick(5))}, {"memory", std::to_string(pick(5))}})
            .Obj()));
    const WorkloadInfo* incoming = h.Find(kIncoming);
    ASSERT_NE(incoming, nullptr);
    const FrId cpu = h.Fr("default", "cpu"), memory = h.Fr("default", "memory");
    FrUsage usage;
    for (const auto& [fr, v] : incoming->pod_sets[0].per_pod) {
      usage.emplace_back(fr == "cpu" ? cpu : memory, v);
    }
    std::sort(usage.begin(), usage.end());
    for (const FrIdSet& need : {FrIdSet{cpu}, FrIdSet{memory}, FrIdSet{cpu, memory}}) {
      api::FairSharingConfig fair_sharing;
      auto victims = [&](bool dry, bool frozen) {
        Preemptor preemptor(h.engine().state().frs, fair_sharing);
        preemptor.set_dry_run(dry);
        if (frozen) preemptor.holders().Freeze();
        Keys keys;
        for (const auto& t : preemptor.GetTargets(*incoming, *h.CQ(in_cq), need, usage)) {
          keys.push_back(t.workload->key + " " + t.reason);
        }
        return keys;
      };
      const Keys simulated = victims(false, false);
      EXPECT_EQ(victims(true, false), simulated) << "round " << round;
      EXPECT_EQ(victims(true, true), simulated) << "round " << round;
      ++(simulated.empty() ? without : with_victims);
    }
  }
  // Both answers are common, so the comparison means something.
  EXPECT_GT(with_victims, 100);
  EXPECT_GT(without, 100);
}

}  // namespace
}  // namespace kuota::engine
