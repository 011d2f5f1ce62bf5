#include "perf/virtual_runner.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "perf/consistency.h"
#include "perf/perf_config.h"
#include "perf/summary.h"

namespace kuota::perf {
namespace {

Plan MustPlan(const char* text) {
  auto c = ParsePerfConfig(text);
  EXPECT_TRUE(c.ok()) << c.status().message();
  auto p = BuildPlan(*c);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

// One workloadsSets entry: `count` workloads of class `name`, one every
// `interval_ms`, each asking `request` cpu for `runtime_ms`.
std::string Set(int count, int interval_ms, const std::string& name, int runtime_ms,
                std::optional<int> priority, int request) {
  std::string yaml = "    - count: " + std::to_string(count) +
                     "\n      creationIntervalMs: " + std::to_string(interval_ms) +
                     "\n      workloads:\n      - className: " + name +
                     "\n        runtimeMs: " + std::to_string(runtime_ms) + "\n";
  if (priority) yaml += "        priority: " + std::to_string(*priority) + "\n";
  return yaml + "        request: " + std::to_string(request) + "\n";
}

// One cohort "co" with one queue "cq" of 2 cpu that does not borrow; `queue`
// adds lines to the queue; `sets` are its workloadsSets.
Plan OneQueuePlan(const std::string& sets, const std::string& queue = "") {
  return MustPlan((R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    borrowingLimit: 0
)" + queue + "    workloadsSets:\n" +
                   sets)
                      .c_str());
}

// One queue of 2 cpu, no borrowing: two 2-cpu workloads of 100 ms arriving
// 10 ms apart run one after the other.
TEST(VirtualRunnerTest, RunsWorkloadsOneAfterAnother) {
  const Plan plan = OneQueuePlan(Set(2, 10, "w", 100, 1, 2));
  auto r = RunVirtual(plan, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->completed) << r->stop_reason;
  ASSERT_EQ(r->workloads.size(), 2u);
  EXPECT_EQ(r->workloads[0].created_us, 10'000);
  EXPECT_EQ(r->workloads[0].holds.at(0).admitted_us, 10'000);
  EXPECT_EQ(r->workloads[0].finished_us, 110'000);
  EXPECT_EQ(r->workloads[1].created_us, 20'000);
  EXPECT_EQ(r->workloads[1].holds.at(0).admitted_us, 110'000);  // waited for the first
  EXPECT_EQ(r->workloads[1].finished_us, 210'000);
  EXPECT_EQ(r->wall_us, 210'000);
  Summary s = Summarize(plan, *r);
  EXPECT_DOUBLE_EQ(s.workload_classes[0].avg_time_to_admission_ms, 45.0);  // (0 + 90) / 2
  // 2 × 2 cpu × 100 ms held over 210 ms of 2 cpu.
  EXPECT_NEAR(s.queue_classes[0].usage_percent, 400.0 / 420.0 * 100.0, 1e-9);
  EXPECT_TRUE(CheckConsistency(plan, *r).ok());
}

// A high-priority workload preempts a running low-priority one in its queue;
// the victim runs its full runtime again afterwards.
TEST(VirtualRunnerTest, EvictedWorkloadsRunAgainInFull) {
  const Plan plan = OneQueuePlan(Set(1, 10, "low", 100, 1, 2) + Set(1, 50, "high", 100, 10, 2),
                                 "    withinClusterQueue: LowerPriority\n");
  auto r = RunVirtual(plan, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->completed) << r->stop_reason;
  const WorkloadRecord& low = r->workloads[0];
  const WorkloadRecord& high = r->workloads[1];
  EXPECT_EQ(low.evictions, 1);
  EXPECT_EQ(low.admissions, 2);
  ASSERT_EQ(low.holds.size(), 2u);
  EXPECT_EQ(low.holds[0].released_us, 50'000);
  EXPECT_FALSE(low.holds[0].finished);
  EXPECT_EQ(high.holds.at(0).admitted_us, 50'000);
  EXPECT_EQ(high.finished_us, 150'000);
  EXPECT_EQ(low.holds[1].admitted_us, 150'000);
  EXPECT_EQ(low.finished_us, 250'000);
  ConsistencyReport c = CheckConsistency(plan, *r);
  EXPECT_TRUE(c.ok()) << (c.failures.empty() ? "" : c.failures[0]);
  Summary s = Summarize(plan, *r);
  EXPECT_EQ(s.workload_classes[0].evictions, 1);
  EXPECT_DOUBLE_EQ(s.workload_classes[0].avg_time_to_admission_ms, 140.0);  // last admission
  EXPECT_DOUBLE_EQ(s.workload_classes[0].avg_time_to_first_admission_ms, 0.0);
}

TEST(VirtualRunnerTest, ReportsWorkloadsThatCanNeverFit) {
  const Plan plan = OneQueuePlan(Set(1, 10, "huge", 100, std::nullopt, 3));
  auto r = RunVirtual(plan, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->completed);
  EXPECT_NE(r->stop_reason.find("1 workloads can never be admitted"), std::string::npos)
      << r->stop_reason;
  EXPECT_FALSE(CheckConsistency(plan, *r).ok());
}

// Borrowing and reclaim in a cohort, and the same figures on every run.
TEST(VirtualRunnerTest, ScaledDownBaselineIsConsistentAndDeterministic) {
  const std::string config = R"(
cohorts:
- className: cohort
  count: 2
  queuesSets:
  - className: cq
    count: 3
    nominalQuota: 4
    borrowingLimit: 8
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
)" + Set(40, 20, "small", 50, 50, 1) +
                             Set(12, 60, "medium", 120, 100, 2) + Set(4, 200, "large", 200, 200, 6);
  const Plan plan = MustPlan(config.c_str());
  ASSERT_EQ(plan.workloads.size(), 336u);
  auto a = RunVirtual(plan, {});
  auto b = RunVirtual(plan, {});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->completed) << a->stop_reason;
  ConsistencyReport c = CheckConsistency(plan, *a);
  EXPECT_TRUE(c.ok()) << (c.failures.empty() ? "" : c.failures[0]);
  EXPECT_EQ(a->wall_us, b->wall_us);
  EXPECT_EQ(a->cycles, b->cycles);
  for (size_t i = 0; i < a->workloads.size(); ++i) {
    ASSERT_EQ(a->workloads[i].finished_us, b->workloads[i].finished_us) << i;
  }
  Summary s = Summarize(plan, *a);
  EXPECT_GT(s.queue_classes[0].usage_percent, 10.0);
  EXPECT_LE(s.queue_classes[0].usage_percent, 100.0);
  // Some queue borrowed beyond its nominal 4 cpu.
  EXPECT_GT(s.queue_classes[0].max_usage_milli, 4000);
}

// A topology of 2 racks of 2 nodes of 2 cpu, quota well above it: four
// gangs of 4 one-cpu pods that each require a rack arrive together; only two
// fit the nodes at once, so the other two wait for them.
TEST(VirtualRunnerTest, PlacesGangsOnTheTopology) {
  const Plan plan = MustPlan(R"(
topology:
  name: topo
  levels:
  - {name: block, count: 1, nodeLabel: example.com/block}
  - {name: rack, count: 2, nodeLabel: example.com/rack}
  - {name: node, count: 2, nodeLabel: kubernetes.io/hostname, capacity: {cpu: 2}}
resourceFlavor: {name: tas, nodeLabel: example.com/tas, topologyName: topo}
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 100
    workloadsSets:
    - count: 4
      creationIntervalMs: 0
      workloads:
      - {className: gang, runtimeMs: 100, request: 1, podCount: 4, tasConstraint: required,
         tasLevel: example.com/rack}
)");
  ASSERT_EQ(plan.nodes.size(), 4u);
  auto r = RunVirtual(plan, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->completed) << r->stop_reason;
  int64_t late = 0;
  for (const WorkloadRecord& w : r->workloads) {
    ASSERT_EQ(w.holds.size(), 1u);
    ASSERT_TRUE(w.holds[0].placement.has_value());
    int32_t pods = 0;
    for (const PlacedDomain& d : w.holds[0].placement->domains) pods += d.pods;
    EXPECT_EQ(pods, 4);
    if (w.holds[0].sched_start_us >= 100'000) ++late;
  }
  EXPECT_EQ(late, 2);
  ConsistencyReport c = CheckConsistency(plan, *r);
  EXPECT_TRUE(c.ok()) << (c.failures.empty() ? "" : c.failures[0]);
}

}  // namespace
}  // namespace kuota::perf
