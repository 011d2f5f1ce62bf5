#include "perf/perf_config.h"

#include <gtest/gtest.h>

#include "perf/perf_plan.h"

namespace kuota::perf {
namespace {

constexpr const char* kBaseline = R"(
cohorts:
  - className: cohort
    count: 5
    queuesSets:
    - className: cq
      count: 6
      nominalQuota: 20
      borrowingLimit: 100
      reclaimWithinCohort: Any
      withinClusterQueue: LowerPriority
      workloadsSets:
      - count: 350
        creationIntervalMs: 100
        workloads:
        - className: small
          runtimeMs: 200
          priority: 50
          request: 1
      - count: 50
        creationIntervalMs: 1200
        workloads:
        - className: large
          runtimeMs: 1000
          priority: 200
          request: 20
)";

TEST(PerfConfigTest, ParsesKueueBaseline) {
  auto c = ParsePerfConfig(kBaseline);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->cohorts.size(), 1u);
  const CohortSet& cs = c->cohorts[0];
  EXPECT_EQ(cs.class_name, "cohort");
  EXPECT_EQ(cs.count, 5);
  ASSERT_EQ(cs.queues_sets.size(), 1u);
  const QueuesSet& qs = cs.queues_sets[0];
  EXPECT_EQ(qs.nominal_quota.milli(), 20000);
  ASSERT_TRUE(qs.borrowing_limit.has_value());
  EXPECT_EQ(qs.borrowing_limit->milli(), 100000);
  EXPECT_EQ(qs.reclaim_within_cohort, api::ReclaimWithinCohortPolicy::kAny);
  EXPECT_EQ(qs.within_cluster_queue, api::WithinClusterQueuePolicy::kLowerPriority);
  ASSERT_EQ(qs.workloads_sets.size(), 2u);
  EXPECT_EQ(qs.workloads_sets[1].creation_interval_ms, 1200);
  const WorkloadTemplate& t = qs.workloads_sets[1].workloads[0];
  EXPECT_EQ(t.class_name, "large");
  EXPECT_EQ(t.runtime_ms, 1000);
  EXPECT_EQ(t.priority, 200);
  EXPECT_EQ(t.request.milli(), 20000);
  EXPECT_EQ(t.pod_count, 1);
}

struct BadCase {
  const char* name;
  const char* text;
  const char* want;  // substring of the error
};

class PerfConfigErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(PerfConfigErrorTest, NamesWhatIsWrong) {
  auto c = ParsePerfConfig(GetParam().text);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(GetParam().want), std::string::npos) << c.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PerfConfigErrorTest,
    ::testing::Values(
        BadCase{"Empty", "", "the config is empty"}, BadCase{"NotYaml", "cohorts: [\n", "line"},
        BadCase{"NoCohorts", "cohorts: []\n", "at least one cohort"},
        BadCase{"UnknownTopField", "cohorts: []\ntopology: {}\n", "topology: unknown field"},
        BadCase{"UnknownNestedField",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 1\n    colour: red\n",
                "line 8: cohorts[0].queuesSets[0].colour: unknown field"},
        BadCase{
            "TasFieldsRefused",
            "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
            "    count: 1\n    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n"
            "      workloads:\n      - className: w\n        request: 1\n        tasLevel: rack\n",
            "workloads[0].tasLevel: unknown field"},
        BadCase{"ZeroCount", "cohorts:\n- className: c\n  count: 0\n",
                "cohorts[0].count: must be at least 1"},
        BadCase{"MissingClassName", "cohorts:\n- count: 1\n",
                "cohorts[0].className: Required value"},
        BadCase{"BadQuantity",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 10x\n",
                "nominalQuota: invalid quantity"},
        BadCase{"BadPolicy",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 1\n    withinClusterQueue: Sometimes\n",
                "withinClusterQueue"},
        BadCase{"ZeroRequest",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n"
                "      workloads:\n      - className: w\n        request: 0\n",
                "request: must be positive"},
        BadCase{"StringCount", "cohorts:\n- className: c\n  count: \"5\"\n", "expected an integer"},
        BadCase{"TooManyWorkloads",
                "cohorts:\n- className: c\n  count: 100000\n  queuesSets:\n  - className: q\n"
                "    count: 100\n    nominalQuota: 1\n",
                "ClusterQueues; at most"},
        BadCase{"TwoDocuments", "cohorts:\n- className: c\n  count: 1\n---\ncohorts: []\n",
                "single YAML document"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(PerfPlanTest, NamesAndTimesAsKueuesGenerator) {
  auto c = ParsePerfConfig(kBaseline);
  ASSERT_TRUE(c.ok());
  auto plan = BuildPlan(*c);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->queues.size(), 30u);
  EXPECT_EQ(plan->queues[0].name, "cq-0-0-cohort-0");
  EXPECT_EQ(plan->queues[29].name, "cq-0-5-cohort-4");
  EXPECT_EQ(plan->queues[29].cohort, "cohort-4");
  ASSERT_EQ(plan->cohorts.size(), 5u);
  ASSERT_EQ(plan->workloads.size(), 30u * 400u);
  EXPECT_EQ(plan->workload_classes, (std::vector<std::string>{"small", "large"}));
  // The first workload of each set comes one interval after the start.
  const PlannedWorkload& first = plan->workloads.front();
  EXPECT_EQ(first.create_at_ms, 100);
  EXPECT_EQ(first.name, "small-0-0-0");
  EXPECT_EQ(plan->Key(first), "cq-0-0-cohort-0/small-0-0-0");
  const PlannedWorkload& last = plan->workloads.back();
  EXPECT_EQ(last.create_at_ms, 60000);  // 50 large, one every 1200 ms
  EXPECT_EQ(last.name, "large-1-49-0");
  for (size_t i = 1; i < plan->workloads.size(); ++i) {
    ASSERT_LE(plan->workloads[i - 1].create_at_ms, plan->workloads[i].create_at_ms);
  }
}

TEST(PerfPlanTest, RefusesDuplicateClusterQueueNames) {
  auto c = ParsePerfConfig(
      "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n"
      "    nominalQuota: 1\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
      "    count: 1\n    nominalQuota: 1\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto plan = BuildPlan(*c);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("q-0-0-c-0"), std::string::npos);
}

}  // namespace
}  // namespace kuota::perf
