#include "perf/consistency.h"

#include <gtest/gtest.h>

#include "perf/summary.h"

namespace kuota::perf {
namespace {

// Two queues of 2 cpu nominal (borrowing limit 2) in one cohort; three
// workloads of 2 cpu each, runtime 100 ms.
Plan TwoQueues() {
  Plan p;
  p.cohorts = {"co-0"};
  p.queue_classes = {"cq"};
  p.workload_classes = {"w"};
  for (int q = 0; q < 2; ++q) {
    PlannedQueue pq;
    pq.name = "cq-0-" + std::to_string(q) + "-co-0";
    pq.cohort = "co-0";
    pq.class_name = "cq";
    pq.nominal_milli = 2000;
    pq.borrowing_limit_milli = 2000;
    p.queues.push_back(pq);
    p.queue_cohort.push_back(0);
    p.queue_class.push_back(0);
  }
  for (int i = 0; i < 3; ++i) {
    PlannedWorkload w;
    w.name = "w-0-" + std::to_string(i) + "-0";
    w.queue = i == 2 ? 1 : 0;
    w.runtime_ms = 100;
    w.request_milli = 2000;
    p.workloads.push_back(w);
  }
  return p;
}

QuotaHold Hold(int32_t queue, int64_t from_ms, int64_t to_ms, bool finished) {
  QuotaHold h;
  h.queue = queue;
  h.reserved_us = h.admitted_us = h.sched_start_us = from_ms * 1000;
  h.released_us = h.sched_end_us = to_ms * 1000;
  h.finished = finished;
  return h;
}

WorkloadRecord Simple(int32_t queue, int64_t created_ms, int64_t admitted_ms) {
  WorkloadRecord w;
  w.created_us = created_ms * 1000;
  w.creations = 1;
  w.admissions = 1;
  w.finishes = 1;
  w.holds.push_back(Hold(queue, admitted_ms, admitted_ms + 100, true));
  w.finished_us = (admitted_ms + 100) * 1000;
  return w;
}

RunRecord Consistent() {
  RunRecord r;
  r.workloads = {Simple(0, 0, 0), Simple(0, 0, 100), Simple(1, 0, 0)};
  r.end_us = 200'000;
  r.completed = true;
  return r;
}

// TwoQueues() and its Consistent() run, for a test to change.
class ConsistencyTest : public ::testing::Test {
 protected:
  ConsistencyReport Check() const { return CheckConsistency(p, r); }

  Plan p = TwoQueues();
  RunRecord r = Consistent();
};

TEST_F(ConsistencyTest, AcceptsAConsistentRun) {
  ConsistencyReport c = Check();
  EXPECT_TRUE(c.ok()) << (c.failures.empty() ? "" : c.failures[0]);
}

TEST_F(ConsistencyTest, ReleaseBeforeAdmissionAtTheSameInstant) {
  // w0 finishes at 100 ms and w1 takes its place at 100 ms: not overcommitted.
  r.workloads[1] = Simple(0, 0, 100);
  EXPECT_TRUE(Check().ok());
}

TEST_F(ConsistencyTest, FindsCohortOvercommit) {
  // Both w0 and w1 run in queue 0 at once: 4 cpu there (within its 4 cpu
  // limit) plus w2's 2 cpu in queue 1 = 6 cpu in a cohort of 4.
  r.workloads[1] = Simple(0, 0, 50);
  ConsistencyReport c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.failures[0].find("cohort co-0 held 6 cpu at 0.050 s, above its quota of 4"),
            std::string::npos)
      << c.failures[0];
}

TEST_F(ConsistencyTest, NamesTheHoldsThatEndedJustAfterAnOvercommit) {
  // w1 is admitted at 50 ms while w0 still holds its quota until 100 ms (it
  // finishes then): the failure names w0 as a hold that ended just after.
  r.workloads[1] = Simple(0, 0, 50);
  r.workloads[1].holds[0].released_us = 400'000;  // the runner's view, later
  ConsistencyReport c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.failures[0].find("; holds that ended within 1 s after it: "), std::string::npos)
      << c.failures[0];
  EXPECT_NE(c.failures[0].find("cq-0-0-co-0/w-0-0-0 (finished at 0.100 s, seen at 0.100 s)"),
            std::string::npos)
      << c.failures[0];
  EXPECT_NE(c.failures[0].find("(finished at 0.150 s, seen at 0.400 s)"), std::string::npos)
      << c.failures[0];
}

TEST_F(ConsistencyTest, FindsQueueAboveBorrowingLimit) {
  p.queues[0].borrowing_limit_milli = 0;  // queue 0 may hold 2 cpu only
  r.workloads[2] = Simple(0, 0, 100);
  r.workloads[1] = Simple(0, 0, 150);
  p.workloads[2].queue = 0;
  ConsistencyReport c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.failures[0].find("ClusterQueue cq-0-0-co-0 held 4 cpu"), std::string::npos)
      << c.failures[0];
}

TEST_F(ConsistencyTest, FindsAdmissionEvictionMismatchAndDoubleFinish) {
  r.workloads[0].evictions = 1;  // evicted once, admitted once
  r.workloads[1].finishes = 2;
  ConsistencyReport c = Check();
  EXPECT_EQ(c.failure_count, 2);
  ASSERT_EQ(c.failures.size(), 2u);
  EXPECT_NE(c.failures[0].find("admitted 1 times, evicted 1 times"), std::string::npos);
  EXPECT_NE(c.failures[1].find("finished 2 times"), std::string::npos);
}

TEST_F(ConsistencyTest, NamesServerAnomaliesSeenByTheWatch) {
  // Evicted from an admission the server never published.
  r.workloads[0].evictions = 1;
  r.workloads[0].evictions_unseen_admission = 1;
  // Shown evicted, without its Finished condition, after it finished.
  r.workloads[1].finish_lost = true;
  r.workloads[1].evictions_after_finish = 1;
  ConsistencyReport c = Check();
  ASSERT_EQ(c.failure_count, 2);
  EXPECT_NE(c.failures[0].find("evicted 1 time(s) without having been seen admitted"),
            std::string::npos)
      << c.failures[0];
  EXPECT_NE(c.failures[1].find("lost its Finished condition after it finished, shown evicted"),
            std::string::npos)
      << c.failures[1];
}

TEST_F(ConsistencyTest, FindsShortRunAndWrongQueue) {
  r.workloads[0].holds[0].released_us = 60'000;  // ran 60 of its 100 ms
  r.workloads[2].holds[0].queue = 0;             // belongs to queue 1
  ConsistencyReport c = Check();
  ASSERT_EQ(c.failure_count, 2);
  EXPECT_NE(c.failures[0].find("finished after running 60 ms of its 100 ms"), std::string::npos);
  EXPECT_NE(c.failures[1].find("not in its own ClusterQueue cq-0-1-co-0"), std::string::npos);
}

TEST_F(ConsistencyTest, NeverCreatedIsAFailure) {
  r.workloads[2] = WorkloadRecord{};
  ConsistencyReport c = Check();
  ASSERT_EQ(c.failure_count, 1);
  EXPECT_NE(c.failures[0].find("created 0 times"), std::string::npos);
}

// TwoQueues() on a topology of 1 block x 2 racks x 2 nodes of 2 cpu; each
// workload is 2 pods of 1 cpu, w-0-0-0 requiring one rack, w-0-1-0
// preferring one with slices of 2 pods, w-0-2-0 requiring one rack.
Plan OnTopology() {
  Plan p = TwoQueues();
  TopologyConfig t;
  t.name = "topo";
  t.levels = {{"block", 1, "block-label", {}},
              {"rack", 2, "rack-label", {}},
              {"node", 2, "kubernetes.io/hostname", {}}};
  p.topology = t;
  for (int r = 0; r < 2; ++r) {
    for (int n = 0; n < 2; ++n) {
      const std::string rack = "rack-0-" + std::to_string(r);
      const std::string node = "node-0-" + std::to_string(r) + "-" + std::to_string(n);
      p.nodes.push_back({node, {"block-0", rack, node}});
    }
  }
  p.node_allocatable["cpu"] = api::Quantity::FromMilli(2000);
  p.node_allocatable["pods"] = api::Quantity::FromMilli(110'000);
  for (PlannedWorkload& w : p.workloads) {
    w.pod_count = 2;
    w.request_milli = 1000;
    w.tas_constraint = TasConstraint::kRequired;
    w.tas_level = 1;
  }
  p.workloads[1].tas_constraint = TasConstraint::kPreferred;
  p.workloads[1].slice_size = 2;
  return p;
}

// Pods per node name, hostname level only (as Kueue reports it).
Placement OnNodes(std::vector<std::pair<std::string, int32_t>> pods) {
  Placement pl;
  pl.levels = {"kubernetes.io/hostname"};
  for (auto& [node, count] : pods) pl.domains.push_back({{node}, count});
  return pl;
}

// Consistent(): w-0-0-0 [0, 100 ms) and w-0-1-0 [100, 200 ms) on node 0,
// w-0-2-0 [0, 100 ms) on rack 1's two nodes.
class TopologyConsistencyTest : public ::testing::Test {
 protected:
  TopologyConsistencyTest() {
    r.workloads[0].holds[0].placement = OnNodes({{"node-0-0-0", 2}});
    r.workloads[1].holds[0].placement = OnNodes({{"node-0-0-0", 2}});
    r.workloads[2].holds[0].placement = OnNodes({{"node-0-1-0", 1}, {"node-0-1-1", 1}});
  }
  ConsistencyReport Check() const { return CheckConsistency(p, r); }
  // Every failure listed, one a line.
  std::string Failures() const {
    std::string out;
    for (const std::string& f : Check().failures) out += f + "\n";
    return out;
  }

  Plan p = OnTopology();
  RunRecord r = Consistent();
};

TEST_F(TopologyConsistencyTest, AcceptsAConsistentPlacement) {
  ConsistencyReport c = Check();
  EXPECT_TRUE(c.ok()) << Failures();
}

TEST_F(TopologyConsistencyTest, AcceptsFullLevelValues) {
  Placement& pl = *r.workloads[2].holds[0].placement;
  pl.levels = {"block-label", "rack-label", "kubernetes.io/hostname"};
  pl.domains[0].values = {"block-0", "rack-0-1", "node-0-1-0"};
  pl.domains[1].values = {"block-0", "rack-0-1", "node-0-1-1"};
  EXPECT_TRUE(Check().ok()) << Failures();
  pl.domains[1].values[1] = "rack-0-0";
  EXPECT_NE(Failures().find("node node-0-1-1 is in rack-label rack-0-1, not rack-0-0"),
            std::string::npos)
      << Failures();
}

TEST_F(TopologyConsistencyTest, FindsANodeOvercommitted) {
  r.workloads[1].holds[0].sched_start_us = 50'000;  // overlaps w-0-0-0 on node 0
  ConsistencyReport c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(Failures().find("node node-0-0-0 held 4 pods using 4 cpu at 0.050 s, above its "
                            "allocatable 2 cpu, 110 pods (admitting cq-0-0-co-0/w-0-1-0)"),
            std::string::npos)
      << Failures();
}

TEST_F(TopologyConsistencyTest, FindsTooManyPodsOnANode) {
  p.node_allocatable["pods"] = api::Quantity::FromMilli(1000);
  EXPECT_NE(Failures().find("above its allocatable 2 cpu, 1 pods"), std::string::npos)
      << Failures();
}

TEST_F(TopologyConsistencyTest, FindsARequiredGangSplitAcrossRacks) {
  r.workloads[2].holds[0].placement = OnNodes({{"node-0-0-1", 1}, {"node-0-1-1", 1}});
  EXPECT_NE(
      Failures().find("cq-0-1-co-0/w-0-2-0: requires one rack-label but was placed at 0.000 s "
                      "in 2 (rack-0-0, rack-0-1)"),
      std::string::npos)
      << Failures();
}

TEST_F(TopologyConsistencyTest, AllowsAPreferredGangSplitButNotItsSlices) {
  r.workloads[1].holds[0].placement = OnNodes({{"node-0-0-0", 1}, {"node-0-1-0", 1}});
  EXPECT_NE(Failures().find("w-0-1-0: slices of 2 pods must each be in one rack-label, but "
                            "rack-0-0 holds 1 of its pods"),
            std::string::npos)
      << Failures();
  p.workloads[1].slice_size.reset();
  EXPECT_TRUE(Check().ok()) << Failures();
}

TEST_F(TopologyConsistencyTest, FindsMissingOrWrongAssignments) {
  r.workloads[0].holds[0].placement.reset();
  EXPECT_NE(Failures().find("w-0-0-0: admitted at 0.000 s without a topology assignment"),
            std::string::npos)
      << Failures();
  r.workloads[0].holds[0].placement = OnNodes({{"node-0-0-0", 1}});
  EXPECT_NE(Failures().find("places 1 pods of its 2"), std::string::npos) << Failures();
  r.workloads[0].holds[0].placement = OnNodes({{"node-9", 2}});
  EXPECT_NE(Failures().find("node node-9 is not one of the plan's"), std::string::npos)
      << Failures();
  Placement racks;
  racks.levels = {"block-label", "rack-label"};
  racks.domains = {{{"block-0", "rack-0-0"}, 2}};
  r.workloads[0].holds[0].placement = racks;
  EXPECT_NE(Failures().find("its domains are not nodes"), std::string::npos) << Failures();
}

TEST(SummaryTest, UsageAndTimesAsKueuesChecker) {
  const Plan p = TwoQueues();
  RunRecord r = Consistent();
  r.workloads[1].created_us = 20'000;  // waited 80 ms
  r.workloads[0].evictions = 0;
  Summary s = Summarize(p, r);
  ASSERT_EQ(s.queue_classes.size(), 1u);
  // Held: 3 × 2 cpu × 100 ms = 600 cpu·ms of 4 cpu × 200 ms = 75 %.
  EXPECT_DOUBLE_EQ(s.queue_classes[0].usage_percent, 75.0);
  EXPECT_EQ(s.queue_classes[0].max_usage_milli, 2000);
  ASSERT_EQ(s.workload_classes.size(), 1u);
  EXPECT_EQ(s.workload_classes[0].count, 3);
  EXPECT_EQ(s.workload_classes[0].finished, 3);
  EXPECT_NEAR(s.workload_classes[0].avg_time_to_admission_ms, 80.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(s.workload_classes[0].max_time_to_admission_ms, 80.0);
  EXPECT_NEAR(s.workload_classes[0].avg_time_to_finish_ms, (100.0 + 180.0 + 100.0) / 3, 1e-9);
}

TEST(SummaryTest, TimeToAdmissionIsTheLastAdmissionLikeKueue) {
  WorkloadRecord w;
  w.created_us = 0;
  w.holds.push_back(Hold(0, 10, 20, false));
  w.holds.push_back(Hold(0, 50, 150, true));
  EXPECT_DOUBLE_EQ(TimeToAdmissionMs(w), 50.0);
  EXPECT_DOUBLE_EQ(TimeToFirstAdmissionMs(w), 10.0);
}

}  // namespace
}  // namespace kuota::perf
