#include "perf/perf_config.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

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
        BadCase{"UnknownTopField", "cohorts: []\ndra: {}\n", "dra: unknown field"},
        BadCase{"UnknownNestedField",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 1\n    colour: red\n",
                "line 8: cohorts[0].queuesSets[0].colour: unknown field"},
        BadCase{
            "TasLevelWithoutConstraint",
            "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
            "    count: 1\n    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n"
            "      workloads:\n      - className: w\n        request: 1\n        tasLevel: rack\n",
            "line 13: cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].tasLevel: needs a "
            "tasConstraint"},
        BadCase{"TasConstraintWithoutTopology",
                "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n"
                "    count: 1\n    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n"
                "      workloads:\n      - className: w\n        request: 1\n"
                "        tasConstraint: required\n        tasLevel: rack\n",
                "workloads[0].tasConstraint: needs a `topology`"},
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

// Kueue's configs/tas shape, scaled down: 1 block x 2 racks x 3 hosts.
constexpr const char* kTas = R"(
topology:
  name: "default-topology"
  levels:
    - name: block
      count: 1
      nodeLabel: "cloud.provider.com/topology-block"
    - name: rack
      count: 2
      nodeLabel: "cloud.provider.com/topology-rack"
    - name: node
      count: 3
      nodeLabel: "kubernetes.io/hostname"
      capacity:
        cpu: "96"
        memory: "256Gi"
resourceFlavor:
  name: "tas-flavor"
  nodeLabel: "tas-node-group"
  topologyName: "default-topology"
cohorts:
  - className: cohort
    count: 1
    queuesSets:
    - className: cq
      count: 1
      nominalQuota: "20"
      workloadsSets:
      - count: 2
        creationIntervalMs: 100
        workloads:
        - className: small-required-rack
          runtimeMs: 200
          request: "500m"
          podCount: 2
          tasConstraint: "required"
          tasLevel: "cloud.provider.com/topology-rack"
        - className: small-balanced-rack
          runtimeMs: 200
          request: "500m"
          podCount: 4
          tasConstraint: "balanced"
          tasLevel: "cloud.provider.com/topology-rack"
          sliceSize: 2
        - className: plain
          request: "1"
)";

TEST(PerfConfigTest, ParsesKueueTasConfig) {
  auto c = ParsePerfConfig(kTas);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->topology.has_value());
  EXPECT_EQ(c->topology->name, "default-topology");
  ASSERT_EQ(c->topology->levels.size(), 3u);
  EXPECT_EQ(c->topology->levels[1].node_label, "cloud.provider.com/topology-rack");
  EXPECT_EQ(c->topology->levels[2].capacity.at("cpu").milli(), 96000);
  EXPECT_EQ(c->topology->node_count(), 6);
  ASSERT_TRUE(c->resource_flavor.has_value());
  EXPECT_EQ(c->resource_flavor->node_label, "tas-node-group");
  const auto& ws = c->cohorts[0].queues_sets[0].workloads_sets[0].workloads;
  EXPECT_EQ(ws[0].tas_constraint, TasConstraint::kRequired);
  EXPECT_EQ(ws[1].tas_constraint, TasConstraint::kBalanced);
  EXPECT_EQ(ws[1].slice_size, 2);
  EXPECT_EQ(ws[2].tas_constraint, TasConstraint::kNone);
}

TEST(PerfPlanTest, TopologyNodesFlavorAndRequests) {
  auto c = ParsePerfConfig(kTas);
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto plan = BuildPlan(*c);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->flavor_name, "tas-flavor");
  ASSERT_EQ(plan->nodes.size(), 6u);
  EXPECT_EQ(plan->nodes[4].name, "node-0-1-1");
  EXPECT_EQ(plan->nodes[4].domains,
            (std::vector<std::string>{"block-0", "rack-0-1", "node-0-1-1"}));

  const auto node = std::get<api::Node>(NodeObject(*plan, plan->nodes[4]).value);
  EXPECT_EQ(node.metadata.name, "node-0-1-1");
  EXPECT_EQ(node.metadata.labels.at("cloud.provider.com/topology-rack"), "rack-0-1");
  EXPECT_EQ(node.metadata.labels.at("kubernetes.io/hostname"), "node-0-1-1");
  EXPECT_EQ(node.metadata.labels.at("tas-node-group"), "tas-flavor");
  EXPECT_EQ(node.allocatable.at("cpu").milli(), 96000);
  EXPECT_EQ(node.allocatable.at("pods").milli(), 110000);
  EXPECT_EQ(node.allocatable.count("memory"), 1u);

  const auto rf = std::get<api::ResourceFlavor>(FlavorObject(*plan).value);
  EXPECT_EQ(rf.metadata.name, "tas-flavor");
  EXPECT_EQ(rf.topology_name, "default-topology");
  EXPECT_EQ(rf.node_labels.at("tas-node-group"), "tas-flavor");
  const auto topo = std::get<api::Topology>(TopologyObject(*plan).value);
  EXPECT_EQ(topo.levels.size(), 3u);
  const auto cq = std::get<api::ClusterQueue>(ClusterQueueObject(*plan, plan->queues[0]).value);
  EXPECT_EQ(cq.spec.resource_groups[0].flavors[0].name, "tas-flavor");

  const PlannedWorkload* required = nullptr;
  const PlannedWorkload* balanced = nullptr;
  const PlannedWorkload* plain = nullptr;
  for (const PlannedWorkload& w : plan->workloads) {
    const std::string& cls = plan->workload_classes[w.class_index];
    if (cls == "small-required-rack") required = &w;
    if (cls == "small-balanced-rack") balanced = &w;
    if (cls == "plain") plain = &w;
  }
  ASSERT_TRUE(required && balanced && plain);
  auto request = [&](const PlannedWorkload* w) {
    return std::get<api::Workload>(WorkloadObject(*plan, *w).value).spec.pod_sets[0];
  };
  const api::PodSet r = request(required);
  EXPECT_EQ(r.count, 2);
  ASSERT_TRUE(r.topology_request.has_value());
  EXPECT_EQ(r.topology_request->required, "cloud.provider.com/topology-rack");
  EXPECT_FALSE(r.topology_request->preferred.has_value());
  EXPECT_FALSE(r.topology_request->pod_set_slice_size.has_value());
  const api::PodSet b = request(balanced);  // balanced runs as preferred
  ASSERT_TRUE(b.topology_request.has_value());
  EXPECT_EQ(b.topology_request->preferred, "cloud.provider.com/topology-rack");
  EXPECT_FALSE(b.topology_request->required.has_value());
  EXPECT_EQ(b.topology_request->pod_set_slice_required_topology,
            "cloud.provider.com/topology-rack");
  EXPECT_EQ(b.topology_request->pod_set_slice_size, 2);
  EXPECT_FALSE(request(plain).topology_request.has_value());
}

// kTas with `from` replaced by `to` (which must be there).
std::string TasWith(const std::string& from, const std::string& to) {
  std::string s = kTas;
  const size_t at = s.find(from);
  if (at == std::string::npos) return "missing: " + from;
  return s.replace(at, from.size(), to);
}

TEST(PerfConfigTest, TopologyErrorsNameTheField) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {TasWith("tasConstraint: \"required\"", "tasConstraint: \"spread\""),
       "workloads[0].tasConstraint: unsupported value; supported values: \"required\", "
       "\"preferred\", \"balanced\""},
      {TasWith("          tasConstraint: \"required\"\n", ""),
       "workloads[0].tasLevel: needs a tasConstraint"},
      {TasWith("          tasLevel: \"cloud.provider.com/topology-rack\"\n          sliceSize",
               "          sliceSize"),
       "workloads[1].tasLevel: Required value"},
      {TasWith("tasLevel: \"cloud.provider.com/topology-rack\"", "tasLevel: \"zone\""),
       "workloads[0].tasLevel: is not a nodeLabel of topology default-topology's levels "
       "(cloud.provider.com/topology-block, cloud.provider.com/topology-rack, "
       "kubernetes.io/hostname) (value \"zone\")"},
      {TasWith("sliceSize: 2", "sliceSize: 0"), "workloads[1].sliceSize: must be at least 1"},
      {TasWith("sliceSize: 2", "sliceSize: 8"),
       "workloads[1].sliceSize: must not exceed podCount (4)"},
      {TasWith("        - className: plain\n",
               "        - className: plain\n          sliceSize: 1\n"),
       "workloads[2].sliceSize: needs a tasConstraint"},
      {TasWith("      count: 2\n      nodeLabel", "      count: 0\n      nodeLabel"),
       "line 9: topology.levels[1].count: must be at least 1"},
      {TasWith("      count: 3\n", "      count: 100000\n"),
       "topology.levels: the levels ask for 200000 nodes"},
      {TasWith("      capacity:\n        cpu: \"96\"\n        memory: \"256Gi\"\n", ""),
       "topology.levels[2].capacity: Required value"},
      {TasWith("      count: 1\n      nodeLabel: \"cloud.provider.com/topology-block\"",
               "      count: 1\n      nodeLabel: \"cloud.provider.com/topology-block\"\n      "
               "capacity: {cpu: 1}"),
       "topology.levels[0].capacity: only the lowest level"},
      {TasWith("nodeLabel: \"cloud.provider.com/topology-rack\"",
               "nodeLabel: \"kubernetes.io/hostname\""),
       "topology.levels[2]: nodeLabel kubernetes.io/hostname is also level 1's"},
      {TasWith("nodeLabel: \"cloud.provider.com/topology-block\"", "nodeLabel: \"bad label!\""),
       "topology.levels[0].nodeLabel:"},
      {TasWith("      count: 1\n      nodeLabel",
               "      count: 1\n      colour: red\n      nodeLabel"),
       "topology.levels[0].colour: unknown field"},
      {TasWith("    - name: rack", "    - name: Rack"), "topology.levels[1].name: "},
      {TasWith("    - name: rack", "    - name: " + std::string(60, 'r')),
       "topology.levels[1]: its domains would be named with up to 64 characters"},
      {TasWith("  topologyName: \"default-topology\"", "  topologyName: \"other\""),
       "resourceFlavor.topologyName: the config's topology is default-topology (value \"other\")"},
      {TasWith("  topologyName: \"default-topology\"\n", ""),
       "resourceFlavor.topologyName: Required value"},
      {TasWith("resourceFlavor:\n  name: \"tas-flavor\"\n  nodeLabel: \"tas-node-group\"\n"
               "  topologyName: \"default-topology\"\n",
               ""),
       "resourceFlavor: Required value: a topology needs a resourceFlavor"},
      {TasWith("  name: \"default-topology\"\n  levels:",
               "  name: \"default-topology\"\n  levels: []\n  x:"),
       "topology.x: unknown field"},
  };
  for (const Case& c : cases) {
    auto parsed = ParsePerfConfig(c.text);
    ASSERT_FALSE(parsed.ok()) << c.want;
    EXPECT_NE(parsed.status().message().find(c.want), std::string::npos)
        << "want: " << c.want << "\ngot:  " << parsed.status().message();
  }
}

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

TEST(PerfPlanTest, QueueingStrategyAndBackfillReachTheObjects) {
  auto c = ParsePerfConfig(R"(cohorts:
- className: c
  count: 1
  queuesSets:
  - className: q
    count: 1
    nominalQuota: 8
    queueingStrategy: StrictFIFO
    backfill: true
    workloadsSets:
    - count: 1
      creationIntervalMs: 10
      workloads: [{className: w, runtimeMs: 1500, request: 1}]
)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto plan = BuildPlan(*c);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const auto cq = std::get<api::ClusterQueue>(ClusterQueueObject(*plan, plan->queues[0]).value);
  EXPECT_EQ(cq.spec.queueing_strategy, api::QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(cq.metadata.annotations.at("kuota.dev/backfill"), "true");
  const auto wl = std::get<api::Workload>(WorkloadObject(*plan, plan->workloads[0]).value);
  EXPECT_EQ(wl.spec.maximum_execution_time_seconds, 2);  // 1.5 s, rounded up
  auto bad = ParsePerfConfig(R"(cohorts:
- className: c
  count: 1
  queuesSets:
  - className: q
    count: 1
    nominalQuota: 8
    queueingStrategy: Lifo
    workloadsSets: []
)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cohorts[0].queuesSets[0].queueingStrategy"),
            std::string::npos)
      << bad.status().message();
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
