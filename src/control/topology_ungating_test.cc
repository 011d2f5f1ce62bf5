// PlanTopologyUngates against the cases of Kueue's topology_ungater_test.go:
// ranks by pod index label (some pods already scheduled, LeaderWorkerSet's
// leader and workers ranked as one, JobSet's sub groups, an offset), the
// greedy fallback (no index, repeated or out-of-range ranks, a running pod
// not where its rank says), already-ungated pods counted against their
// domains, pods beyond the count left gated, terminal pods replaced.
#include "control/topology_ungating.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

using Json = nlohmann::json;
using UgSelector = std::map<std::string, std::string>;

constexpr const char* kUgBlock = "cloud.com/block";
constexpr const char* kUgRack = "cloud.com/rack";
constexpr const char* kUgIndex = "batch.kubernetes.io/job-completion-index";

api::TopologyAssignment UgAssignment(
    std::vector<std::pair<std::vector<std::string>, int32_t>> domains) {
  api::TopologyAssignment ta;
  ta.levels = {kUgBlock, kUgRack};
  for (auto& [values, count] : domains) ta.domains.push_back({values, count});
  return ta;
}

// A workload "wl" with one pod set per entry, admitted with its assignment.
struct UgSetSpec {
  std::string name;
  int32_t count;
  std::optional<api::TopologyAssignment> ta;
  std::optional<std::string> index_label;
  std::optional<std::string> group;
};

api::Workload UgAdmitted(const std::vector<UgSetSpec>& sets) {
  api::Workload wl;
  wl.metadata.name = "wl";
  wl.metadata.namespace_ = "ns";
  api::Admission& adm = wl.status.admission.emplace();
  adm.cluster_queue = "cq";
  for (const UgSetSpec& s : sets) {
    api::PodSet ps;
    ps.name = s.name;
    ps.count = s.count;
    if (s.index_label || s.group) {
      api::PodSetTopologyRequest req;
      req.required = kUgRack;
      req.pod_index_label = s.index_label;
      req.pod_set_group_name = s.group;
      ps.topology_request = req;
    }
    wl.spec.pod_sets.push_back(ps);
    api::PodSetAssignment psa;
    psa.name = s.name;
    psa.count = s.count;
    psa.topology_assignment = s.ta;
    adm.pod_set_assignments.push_back(psa);
  }
  return wl;
}

// A pod of "wl"'s pod set `pod_set`; `index` as the completion index label
// (none when negative); `at` orders creation; `selector` empty: gated.
TopologyPod UgPod(const std::string& name, int index, const UgSelector& selector = {},
                  const std::string& pod_set = "main", int at = 0) {
  TopologyPod p;
  p.ns = "ns";
  p.name = name;
  p.workload = "wl";
  p.pod_set = pod_set;
  if (index >= 0) p.labels[kUgIndex] = std::to_string(index);
  p.gated = selector.empty();
  p.node_selector = selector;
  p.creation = "2026-01-01T00:00:" + std::string(at < 10 ? "0" : "") + std::to_string(at) + "Z";
  return p;
}

UgSelector UgDomain(const std::string& block, const std::string& rack) {
  return {{kUgBlock, block}, {kUgRack, rack}};
}

// name -> selector of each planned ungate.
std::map<std::string, UgSelector> UgPlan(const api::Workload& wl,
                                         const std::vector<TopologyPod>& pods) {
  auto plan = PlanTopologyUngates(wl, pods);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  std::map<std::string, UgSelector> out;
  if (!plan.ok()) return out;
  for (const auto& u : *plan) {
    EXPECT_TRUE(out.emplace(u.name, u.node_selector).second) << "ungated twice: " << u.name;
  }
  return out;
}

const api::TopologyAssignment kUgThreeDomains =
    UgAssignment({{{"b1", "r1"}, 2}, {{"b1", "r2"}, 1}, {{"b2", "r1"}, 2}});

TEST(TopologyUngatingTest, SinglePodGetsItsDomain) {
  auto wl = UgAdmitted({{"main", 1, UgAssignment({{{"b1", "r1"}, 1}}), {}, {}}});
  auto plan = UgPlan(wl, {UgPod("p", -1)});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan["p"], UgDomain("b1", "r1"));
}

TEST(TopologyUngatingTest, RanksSomePodsAlreadyScheduled) {
  auto wl = UgAdmitted({{"main", 5, kUgThreeDomains, kUgIndex, {}}});
  auto plan = UgPlan(wl, {UgPod("p0", 0, UgDomain("b1", "r1")), UgPod("p1", 1), UgPod("p2", 2),
                          UgPod("p3", 3, UgDomain("b2", "r1")), UgPod("p4", 4)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"p1", UgDomain("b1", "r1")},
                                                     {"p2", UgDomain("b1", "r2")},
                                                     {"p4", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, RanksOrderByIndexNotByCreation) {
  auto wl = UgAdmitted({{"main", 5, kUgThreeDomains, kUgIndex, {}}});
  // Created in reverse index order: the lowest index still takes the first domain.
  auto plan = UgPlan(
      wl, {UgPod("a", 4, {}, "main", 0), UgPod("b", 3, {}, "main", 1), UgPod("c", 2, {}, "main", 2),
           UgPod("d", 1, {}, "main", 3), UgPod("e", 0, {}, "main", 4)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"e", UgDomain("b1", "r1")},
                                                     {"d", UgDomain("b1", "r1")},
                                                     {"c", UgDomain("b1", "r2")},
                                                     {"b", UgDomain("b2", "r1")},
                                                     {"a", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, LeaderAndWorkersRankedAsOneGroup) {
  auto wl = UgAdmitted(
      {{"leader", 1, UgAssignment({{{"b1", "r1"}, 1}}), kUgIndex, "lws"},
       {"workers", 4, UgAssignment({{{"b1", "r1"}, 1}, {{"b1", "r2"}, 1}, {{"b2", "r1"}, 2}}),
        kUgIndex, "lws"}});
  // Workers are numbered 1..4 after the leader's 0.
  auto plan = UgPlan(wl, {UgPod("l", 0, {}, "leader"), UgPod("w1", 1, {}, "workers"),
                          UgPod("w2", 2, {}, "workers"), UgPod("w3", 3, {}, "workers"),
                          UgPod("w4", 4, {}, "workers")});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"l", UgDomain("b1", "r1")},
                                                     {"w1", UgDomain("b1", "r1")},
                                                     {"w2", UgDomain("b1", "r2")},
                                                     {"w3", UgDomain("b2", "r1")},
                                                     {"w4", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, SubGroupsRankJobByJob) {
  auto wl =
      UgAdmitted({{"main", 4, UgAssignment({{{"b1", "r1"}, 2}, {{"b2", "r1"}, 2}}), "idx", {}}});
  wl.spec.pod_sets[0].topology_request->sub_group_index_label = "job";
  wl.spec.pod_sets[0].topology_request->sub_group_count = 2;
  auto pod = [](const std::string& name, int job, int idx) {
    TopologyPod p = UgPod(name, -1);
    p.labels["job"] = std::to_string(job);
    p.labels["idx"] = std::to_string(idx);
    return p;
  };
  auto plan =
      UgPlan(wl, {pod("j1-0", 1, 0), pod("j0-1", 0, 1), pod("j1-1", 1, 1), pod("j0-0", 0, 0)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"j0-0", UgDomain("b1", "r1")},
                                                     {"j0-1", UgDomain("b1", "r1")},
                                                     {"j1-0", UgDomain("b2", "r1")},
                                                     {"j1-1", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, SubGroupIndexWithoutCountFallsBackToGreedy) {
  auto wl = UgAdmitted({{"main", 1, UgAssignment({{{"b1", "r1"}, 1}}), kUgIndex, {}}});
  wl.spec.pod_sets[0].topology_request->sub_group_index_label = "job";
  auto plan = UgPlan(wl, {UgPod("p", 0)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"p", UgDomain("b1", "r1")}}));
}

TEST(TopologyUngatingTest, OffsetAnnotationShiftsRanks) {
  auto wl =
      UgAdmitted({{"main", 2, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), kUgIndex, {}}});
  TopologyPod a = UgPod("a", 2, {}, "main", 0), b = UgPod("b", 1, {}, "main", 1);
  a.index_offset = b.index_offset = "1";
  EXPECT_EQ(UgPlan(wl, {a, b}), (std::map<std::string, UgSelector>{{"b", UgDomain("b1", "r1")},
                                                                   {"a", UgDomain("b2", "r1")}}));
  a.index_offset = b.index_offset = "x";
  auto plan = PlanTopologyUngates(wl, {a, b});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("kueue.x-k8s.io/pod-index-offset"), std::string::npos);
}

TEST(TopologyUngatingTest, PodsWithoutIndexGoInCreationOrder) {
  auto wl = UgAdmitted({{"main", 3, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 2}}), {}, {}}});
  auto plan = UgPlan(wl, {UgPod("z", -1, {}, "main", 0), UgPod("y", -1, {}, "main", 1),
                          UgPod("x", -1, {}, "main", 2)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"z", UgDomain("b1", "r1")},
                                                     {"y", UgDomain("b2", "r1")},
                                                     {"x", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, OnePodWithoutIndexMakesTheSetGreedy) {
  auto wl =
      UgAdmitted({{"main", 2, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), kUgIndex, {}}});
  auto plan = UgPlan(wl, {UgPod("late", 0, {}, "main", 5), UgPod("early", -1, {}, "main", 1)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"early", UgDomain("b1", "r1")},
                                                     {"late", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, RepeatedOrOutOfRangeRanksFallBackToGreedy) {
  auto wl =
      UgAdmitted({{"main", 2, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), kUgIndex, {}}});
  EXPECT_EQ(UgPlan(wl, {UgPod("b", 1, {}, "main", 0), UgPod("a", 1, {}, "main", 1)}),
            (std::map<std::string, UgSelector>{{"b", UgDomain("b1", "r1")},
                                               {"a", UgDomain("b2", "r1")}}));
  EXPECT_EQ(UgPlan(wl, {UgPod("b", 7, {}, "main", 0), UgPod("a", 0, {}, "main", 1)}),
            (std::map<std::string, UgSelector>{{"b", UgDomain("b1", "r1")},
                                               {"a", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, AssignmentShorterThanCountFallsBackToGreedy) {
  // 3 pods, but the assignment places 2: rank 2 has no domain.
  auto wl =
      UgAdmitted({{"main", 3, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), kUgIndex, {}}});
  auto plan = UgPlan(wl, {UgPod("p2", 2, {}, "main", 0), UgPod("p0", 0, {}, "main", 1),
                          UgPod("p1", 1, {}, "main", 2)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"p2", UgDomain("b1", "r1")},
                                                     {"p0", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, RunningPodOutsideItsRanksDomainMakesTheSetGreedy) {
  auto wl =
      UgAdmitted({{"main", 2, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), kUgIndex, {}}});
  // Rank 1 runs in b1/r1 (rank 0's domain): the gated rank 0 takes what is left.
  auto plan = UgPlan(wl, {UgPod("p1", 1, UgDomain("b1", "r1")), UgPod("p0", 0)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"p0", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, UngatedPodsCountAgainstTheirDomain) {
  auto wl = UgAdmitted({{"main", 2, UgAssignment({{{"b1", "r1"}, 1}, {{"b2", "r1"}, 1}}), {}, {}}});
  auto plan = UgPlan(wl, {UgPod("running", -1, UgDomain("b1", "r1"), "main", 0),
                          UgPod("gated", -1, {}, "main", 1)});
  EXPECT_EQ(plan, (std::map<std::string, UgSelector>{{"gated", UgDomain("b2", "r1")}}));
}

TEST(TopologyUngatingTest, PodsBeyondTheCountStayGated) {
  auto wl = UgAdmitted({{"main", 1, UgAssignment({{{"b1", "r1"}, 1}}), {}, {}}});
  // One already running: the second stays gated.
  EXPECT_TRUE(UgPlan(wl, {UgPod("running", -1, UgDomain("b1", "r1"), "main", 0),
                          UgPod("extra", -1, {}, "main", 1)})
                  .empty());
  // Two gated for one place: the older goes.
  EXPECT_EQ(UgPlan(wl, {UgPod("new", -1, {}, "main", 2), UgPod("old", -1, {}, "main", 1)}),
            (std::map<std::string, UgSelector>{{"old", UgDomain("b1", "r1")}}));
}

TEST(TopologyUngatingTest, FinishedPodsAreReplaced) {
  auto wl = UgAdmitted({{"main", 1, UgAssignment({{{"b1", "r1"}, 1}}), {}, {}}});
  for (const char* phase : {"Failed", "Succeeded"}) {
    TopologyPod done = UgPod("done", -1, UgDomain("b1", "r1"), "main", 0);
    done.terminal = true;
    EXPECT_EQ(UgPlan(wl, {done, UgPod("replacement", -1, {}, "main", 1)}),
              (std::map<std::string, UgSelector>{{"replacement", UgDomain("b1", "r1")}}))
        << phase;
  }
}

TEST(TopologyUngatingTest, OnlyPodsOfAPlacedPodSetOfThisWorkload) {
  auto wl = UgAdmitted(
      {{"main", 1, UgAssignment({{{"b1", "r1"}, 1}}), {}, {}}, {"plain", 1, std::nullopt, {}, {}}});
  TopologyPod other = UgPod("other", -1);
  other.workload = "another";
  EXPECT_TRUE(
      UgPlan(wl, {UgPod("p", -1, {}, "plain"), UgPod("q", -1, {}, "unknown"), other}).empty());
  api::Workload not_admitted = wl;
  not_admitted.status.admission.reset();
  EXPECT_TRUE(UgPlan(not_admitted, {UgPod("p", -1)}).empty());
}

TEST(TopologyUngatingTest, HostnameOnlyLevels) {
  auto wl = UgAdmitted({{"main", 2, std::nullopt, kUgIndex, {}}});
  api::TopologyAssignment ta;
  ta.levels = {"kubernetes.io/hostname"};
  ta.domains = {{{"node-2"}, 1}, {{"node-1"}, 1}};
  wl.status.admission->pod_set_assignments[0].topology_assignment = ta;
  auto plan = UgPlan(wl, {UgPod("p1", 1), UgPod("p0", 0)});
  EXPECT_EQ(plan,
            (std::map<std::string, UgSelector>{{"p0", {{"kubernetes.io/hostname", "node-2"}}},
                                               {"p1", {{"kubernetes.io/hostname", "node-1"}}}}));
}

TEST(TopologyUngatingTest, ReadsPodsAsKueueDoes) {
  Json pod = Json::parse(R"({
    "metadata": {"name": "p", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z",
                 "labels": {"kueue.x-k8s.io/podset": "main", "idx": "3"},
                 "annotations": {"kueue.x-k8s.io/workload": "wl",
                                 "kueue.x-k8s.io/podset-required-topology": "cloud.com/rack",
                                 "kueue.x-k8s.io/pod-index-offset": "2"}},
    "spec": {"schedulingGates": [{"name": "other"}, {"name": "kueue.x-k8s.io/topology"}],
             "nodeSelector": {"a": "b"}},
    "status": {"phase": "Failed"}})");
  std::optional<TopologyPod> p = ReadTopologyPod(pod);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->workload, "wl");
  EXPECT_EQ(p->pod_set, "main");
  EXPECT_TRUE(p->gated);
  EXPECT_TRUE(p->terminal);
  EXPECT_EQ(p->labels.at("idx"), "3");
  EXPECT_EQ(p->index_offset.value_or(""), "2");
  EXPECT_EQ(p->node_selector, (UgSelector{{"a", "b"}}));
  EXPECT_TRUE(IsTopologyPod(pod));
  pod["metadata"]["annotations"].erase("kueue.x-k8s.io/podset-required-topology");
  EXPECT_FALSE(IsTopologyPod(pod));
  pod["metadata"]["annotations"]["kueue.x-k8s.io/podset-unconstrained-topology"] = "true";
  EXPECT_TRUE(IsTopologyPod(pod));
  pod["metadata"]["annotations"].erase("kueue.x-k8s.io/workload");
  EXPECT_FALSE(ReadTopologyPod(pod).has_value());
}

}  // namespace
}  // namespace kuota::control
