#include "perf/virtual_runner.h"

#include <gtest/gtest.h>

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

// One queue of 2 cpu, no borrowing: two 2-cpu workloads of 100 ms arriving
// 10 ms apart run one after the other.
TEST(VirtualRunnerTest, RunsWorkloadsOneAfterAnother) {
  const Plan plan = MustPlan(R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    borrowingLimit: 0
    workloadsSets:
    - count: 2
      creationIntervalMs: 10
      workloads:
      - className: w
        runtimeMs: 100
        priority: 1
        request: 2
)");
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
  const Plan plan = MustPlan(R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    borrowingLimit: 0
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 1
      creationIntervalMs: 10
      workloads:
      - className: low
        runtimeMs: 100
        priority: 1
        request: 2
    - count: 1
      creationIntervalMs: 50
      workloads:
      - className: high
        runtimeMs: 100
        priority: 10
        request: 2
)");
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
  const Plan plan = MustPlan(R"(
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    borrowingLimit: 0
    workloadsSets:
    - count: 1
      creationIntervalMs: 10
      workloads:
      - className: huge
        runtimeMs: 100
        request: 3
)");
  auto r = RunVirtual(plan, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->completed);
  EXPECT_NE(r->stop_reason.find("1 workloads can never be admitted"), std::string::npos)
      << r->stop_reason;
  EXPECT_FALSE(CheckConsistency(plan, *r).ok());
}

// Borrowing and reclaim in a cohort, and the same figures on every run.
TEST(VirtualRunnerTest, ScaledDownBaselineIsConsistentAndDeterministic) {
  const char* config = R"(
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
    - count: 40
      creationIntervalMs: 20
      workloads:
      - className: small
        runtimeMs: 50
        priority: 50
        request: 1
    - count: 12
      creationIntervalMs: 60
      workloads:
      - className: medium
        runtimeMs: 120
        priority: 100
        request: 2
    - count: 4
      creationIntervalMs: 200
      workloads:
      - className: large
        runtimeMs: 200
        priority: 200
        request: 6
)";
  const Plan plan = MustPlan(config);
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

}  // namespace
}  // namespace kuota::perf
