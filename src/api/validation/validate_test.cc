// Validate(): one table per kind. Each case mutates a valid object and names
// the exact errors expected (a trailing '*' makes the expectation a prefix,
// for Kubernetes' long regex messages).
#include "api/validation/validate.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace kuota::validation {
namespace {

api::Quantity Q(const char* text) { return api::Quantity::Parse(text).value(); }

template <typename T>
struct Case {
  std::string name;
  std::function<void(T&)> mutate;
  std::string want;  // "" = valid; "...*" = prefix
};

template <typename T>
void RunCases(const T& base, const std::vector<Case<T>>& cases, const std::string& api_version,
              const std::string& kind) {
  for (const auto& c : cases) {
    T value = base;
    c.mutate(value);
    api::Object object{api_version, kind, value};
    Status st = Validate(object);
    if (c.want.empty()) {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.ToString();
    } else if (c.want.back() == '*') {
      std::string prefix = c.want.substr(0, c.want.size() - 1);
      EXPECT_EQ(st.message().substr(0, prefix.size()), prefix) << c.name;
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.name;
    } else {
      EXPECT_EQ(st.message(), c.want) << c.name;
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.name;
    }
  }
}

// ---- builders ----

api::FlavorQuotas Flavor(const std::string& name,
                         std::vector<std::pair<std::string, const char*>> quotas) {
  api::FlavorQuotas f;
  f.name = name;
  for (const auto& [resource, nominal] : quotas) {
    api::ResourceQuota q;
    q.name = resource;
    q.nominal_quota = Q(nominal);
    f.resources.push_back(q);
  }
  return f;
}

api::ClusterQueue ValidClusterQueue() {
  api::ClusterQueue cq;
  cq.metadata.name = "cq";
  cq.spec.cohort = "all";
  api::ResourceGroup rg;
  rg.covered_resources = {"cpu", "memory"};
  rg.flavors.push_back(Flavor("default", {{"cpu", "10"}, {"memory", "10Gi"}}));
  rg.flavors.push_back(Flavor("spot", {{"cpu", "5"}, {"memory", "5Gi"}}));
  cq.spec.resource_groups.push_back(rg);
  api::ResourceGroup gpu;
  gpu.covered_resources = {"nvidia.com/gpu"};
  gpu.flavors.push_back(Flavor("a100", {{"nvidia.com/gpu", "8"}}));
  cq.spec.resource_groups.push_back(gpu);
  cq.spec.namespace_selector = api::LabelSelector{};
  return cq;
}

api::Workload ValidWorkload() {
  api::Workload wl;
  wl.metadata.name = "wl";
  wl.metadata.namespace_ = "ns";
  wl.spec.queue_name = "lq";
  api::PodSet ps;
  ps.name = "main";
  ps.count = 2;
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = Q("1");
  c.resources.limits["memory"] = Q("1Gi");
  ps.template_.spec.containers.push_back(c);
  wl.spec.pod_sets.push_back(ps);
  return wl;
}

api::Container& MainContainer(api::Workload& wl) {
  return wl.spec.pod_sets[0].template_.spec.containers[0];
}

api::PodSpec& MainPod(api::Workload& wl) { return wl.spec.pod_sets[0].template_.spec; }

// Case mutations shared by several rows.
std::function<void(api::ClusterQueue&)> LendingLimit(const char* quantity) {
  return [=](api::ClusterQueue& cq) {
    cq.spec.resource_groups[0].flavors[0].resources[0].lending_limit = Q(quantity);
  };
}
std::function<void(api::ClusterQueue&)> SelectorExpression(std::string key, std::string op,
                                                           std::vector<std::string> values) {
  return [=](api::ClusterQueue& cq) {
    cq.spec.namespace_selector->match_expressions.push_back({key, op, values});
  };
}
std::function<void(api::Workload&)> Tolerations(std::vector<api::Toleration> tolerations) {
  return [=](api::Workload& w) { MainPod(w).tolerations = tolerations; };
}
std::function<void(api::Workload&)> RequiredTerms(std::vector<api::NodeSelectorTerm> terms) {
  return [=](api::Workload& w) { MainPod(w).node_affinity.required_terms = terms; };
}
// Admitted to `cq` with one pod set assignment, named `pod_set`.
std::function<void(api::Workload&)> AdmittedAs(std::string pod_set, std::string cq,
                                               bool reserved = true) {
  return [=](api::Workload& w) {
    api::PodSetAssignment psa;
    psa.name = pod_set;
    w.status.admission = api::Admission{cq, {psa}};
    if (reserved) w.status.conditions = {{api::kQuotaReserved, "True", "", "", std::nullopt, 0}};
  };
}
// `n` copies of the first pod set, named p0, p1, ...
std::function<void(api::Workload&)> PodSets(int n) {
  return [=](api::Workload& w) {
    api::PodSet ps = w.spec.pod_sets[0];
    w.spec.pod_sets.clear();
    for (int i = 0; i < n; ++i) {
      ps.name = "p" + std::to_string(i);
      w.spec.pod_sets.push_back(ps);
    }
  };
}

constexpr const char* kSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of*";

// ---- ClusterQueue ----

TEST(ValidateClusterQueueTest, Table) {
  using CQ = api::ClusterQueue;
  const std::string q = "spec.resourceGroups[0].flavors[0].resources[0]";
  std::vector<Case<CQ>> cases = {
      {"valid", [](CQ&) {}, ""},
      {"no resource groups", [](CQ& cq) { cq.spec.resource_groups.clear(); }, ""},
      {"generateName instead of name",
       [](CQ& cq) {
         cq.metadata.name.clear();
         cq.metadata.generate_name = "cq-";
       },
       ""},
      {"no name", [](CQ& cq) { cq.metadata.name.clear(); },
       "metadata.name: Required value: name or generateName is required"},
      {"bad name", [](CQ& cq) { cq.metadata.name = "CQ"; },
       std::string("metadata.name: Invalid value: \"CQ\": ") + kSubdomainMsg},
      {"bad generateName", [](CQ& cq) { cq.metadata.generate_name = "Bad-"; },
       "metadata.generateName: Invalid value: \"Bad-\": *"},
      {"bad cohort", [](CQ& cq) { cq.spec.cohort = "All"; },
       std::string("spec.cohort: Invalid value: \"All\": ") + kSubdomainMsg},
      {"too many resource groups",
       [](CQ& cq) {
         cq.spec.resource_groups.clear();
         for (int i = 0; i < 17; ++i) {
           api::ResourceGroup rg;
           rg.covered_resources = {"r" + std::to_string(i)};
           rg.flavors.push_back(Flavor("f" + std::to_string(i), {{"r" + std::to_string(i), "1"}}));
           cq.spec.resource_groups.push_back(rg);
         }
       },
       "spec.resourceGroups: Too many: 17: must have at most 16 items"},
      {"too many flavors in total",
       [](CQ& cq) {
         cq.spec.resource_groups.clear();
         for (int g = 0; g < 5; ++g) {
           api::ResourceGroup rg;
           std::string r = "r" + std::to_string(g);
           rg.covered_resources = {r};
           for (int f = 0; f < 52; ++f) {
             rg.flavors.push_back(
                 Flavor("f" + std::to_string(g) + "-" + std::to_string(f), {{r, "1"}}));
           }
           cq.spec.resource_groups.push_back(rg);
         }
       },
       "spec.resourceGroups: Invalid value: 260: total number of flavors across all "
       "resourceGroups must be \u2264 256, got 260"},
      {"too many flavors in a group",
       [](CQ& cq) {
         auto& rg = cq.spec.resource_groups[1];
         rg.flavors.clear();
         for (int f = 0; f < 65; ++f) {
           rg.flavors.push_back(Flavor("g" + std::to_string(f), {{"nvidia.com/gpu", "1"}}));
         }
       },
       "spec.resourceGroups[1].flavors: Too many: 65: must have at most 64 items"},
      {"too many covered resources",
       [](CQ& cq) {
         auto& rg = cq.spec.resource_groups[1];
         rg.covered_resources.clear();
         std::vector<std::pair<std::string, const char*>> quotas;
         for (int r = 0; r < 65; ++r) {
           rg.covered_resources.push_back("example.com/r" + std::to_string(r));
           quotas.emplace_back("example.com/r" + std::to_string(r), "1");
         }
         rg.flavors = {Flavor("a100", quotas)};
       },
       "spec.resourceGroups[1].coveredResources: Too many: 65: must have at most 64 items; "
       "spec.resourceGroups[1].flavors[0].resources: Too many: 65: must have at most 64 items"},
      {"no covered resources",
       [](CQ& cq) {
         cq.spec.resource_groups[1].covered_resources.clear();
         cq.spec.resource_groups[1].flavors[0].resources.clear();
       },
       "spec.resourceGroups[1].coveredResources: Required value; "
       "spec.resourceGroups[1].flavors[0].resources: Required value"},
      {"no flavors", [](CQ& cq) { cq.spec.resource_groups[1].flavors.clear(); },
       "spec.resourceGroups[1].flavors: Required value"},
      {"flavor misses a resource",
       [](CQ& cq) { cq.spec.resource_groups[0].flavors[1].resources.pop_back(); },
       "spec.resourceGroups[0]: Invalid value: \"object\": flavors must have the same number "
       "of resources as the coveredResources"},
      {"flavor has an extra resource",
       [](CQ& cq) {
         cq.spec.resource_groups[0].flavors[0].resources.push_back(
             Flavor("x", {{"pods", "1"}}).resources[0]);
       },
       "spec.resourceGroups[0]: Invalid value: \"object\": flavors must have the same number "
       "of resources as the coveredResources"},
      {"flavor resources out of order",
       [](CQ& cq) {
         auto& r = cq.spec.resource_groups[0].flavors[0].resources;
         std::swap(r[0], r[1]);
       },
       "spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: \"memory\": must "
       "match the name in coveredResources; spec.resourceGroups[0].flavors[0].resources[1].name: "
       "Invalid value: \"cpu\": must match the name in coveredResources"},
      {"resource in two groups",
       [](CQ& cq) {
         cq.spec.resource_groups[1].covered_resources = {"cpu"};
         cq.spec.resource_groups[1].flavors[0].resources[0].name = "cpu";
       },
       "spec.resourceGroups[1].coveredResources[0]: Duplicate value: \"cpu\""},
      {"resource twice in a group",
       [](CQ& cq) {
         cq.spec.resource_groups[0].covered_resources[1] = "cpu";
         for (auto& f : cq.spec.resource_groups[0].flavors) f.resources[1].name = "cpu";
       },
       "spec.resourceGroups[0].coveredResources[1]: Duplicate value: \"cpu\""},
      {"flavor in two groups",
       [](CQ& cq) { cq.spec.resource_groups[1].flavors[0].name = "default"; },
       "spec.resourceGroups[1].flavors[0].name: Duplicate value: \"default\""},
      {"bad flavor name", [](CQ& cq) { cq.spec.resource_groups[0].flavors[0].name = "Default"; },
       std::string("spec.resourceGroups[0].flavors[0].name: Invalid value: \"Default\": ") +
           kSubdomainMsg},
      {"bad resource name",
       [](CQ& cq) {
         cq.spec.resource_groups[1].covered_resources[0] = "gpu!";
         cq.spec.resource_groups[1].flavors[0].resources[0].name = "gpu!";
       },
       "spec.resourceGroups[1].coveredResources[0]: Invalid value: \"gpu!\": name part must "
       "consist of alphanumeric characters*"},
      {"negative nominal quota",
       [](CQ& cq) { cq.spec.resource_groups[0].flavors[0].resources[0].nominal_quota = Q("-1"); },
       q + ".nominalQuota: Invalid value: \"-1\": must be greater than or equal to 0"},
      {"zero nominal quota",
       [](CQ& cq) { cq.spec.resource_groups[0].flavors[0].resources[0].nominal_quota = Q("0"); },
       ""},
      {"borrowing and lending limits with a cohort",
       [](CQ& cq) {
         auto& r = cq.spec.resource_groups[0].flavors[0].resources[0];
         r.borrowing_limit = Q("0");
         r.lending_limit = Q("10");
       },
       ""},
      {"negative borrowing limit",
       [](CQ& cq) {
         cq.spec.resource_groups[0].flavors[0].resources[0].borrowing_limit = Q("-500m");
       },
       q + ".borrowingLimit: Invalid value: \"-500m\": must be greater than or equal to 0"},
      {"borrowing limit without a cohort",
       [](CQ& cq) {
         cq.spec.cohort.clear();
         cq.spec.resource_groups[0].flavors[0].resources[0].borrowing_limit = Q("1");
       },
       "spec: Invalid value: \"object\": borrowingLimit must be nil when cohort is empty"},
      {"lending limit without a cohort",
       [](CQ& cq) {
         cq.spec.cohort.clear();
         cq.spec.resource_groups[0].flavors[0].resources[0].lending_limit = Q("1");
       },
       q + ".lendingLimit: Invalid value: \"1\": must be nil when cohort is empty"},
      {"lending limit over nominal quota", LendingLimit("11"),
       q + ".lendingLimit: Invalid value: \"11\": must be less than or equal to the nominalQuota"},
      {"negative lending limit", LendingLimit("-1"),
       q + ".lendingLimit: Invalid value: \"-1\": must be greater than or equal to 0"},
      {"selector with a bad operator", SelectorExpression("team", "Is", {"a"}),
       "spec.namespaceSelector.matchExpressions[0].operator: Invalid value: \"Is\": not a valid "
       "selector operator"},
      {"selector In without values", SelectorExpression("team", "In", {}),
       "spec.namespaceSelector.matchExpressions[0].values: Required value: must be specified "
       "when `operator` is 'In' or 'NotIn'"},
      {"selector Exists with values", SelectorExpression("team", "Exists", {"a"}),
       "spec.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when "
       "`operator` is 'Exists' or 'DoesNotExist'"},
      {"selector with a bad key", SelectorExpression("bad key", "Exists", {}),
       "spec.namespaceSelector.matchExpressions[0].key: Invalid value: \"bad key\": *"},
      {"selector with a bad label value",
       [](CQ& cq) { cq.spec.namespace_selector->match_labels["team"] = "a b"; },
       "spec.namespaceSelector.matchLabels: Invalid value: \"a b\": a valid label must be an "
       "empty string*"},
      {"admission checks and strategy together",
       [](CQ& cq) {
         cq.spec.admission_checks = {"a"};
         cq.spec.admission_checks_strategy = {{"b", {}}};
       },
       "spec: Forbidden: Either AdmissionChecks or AdmissionCheckStrategy can be set, but not "
       "both"},
      {"admission check strategy without a name",
       [](CQ& cq) {
         cq.spec.admission_checks_strategy = {{"", {"default"}}};
       },
       "spec.admissionChecksStrategy.admissionChecks[0].name: Required value"},
      {"bad admission check name", [](CQ& cq) { cq.spec.admission_checks = {"Bad"}; },
       "spec.admissionChecks[0]: Invalid value: \"Bad\": *"},
      {"borrowWithinCohort without reclaimWithinCohort",
       [](CQ& cq) {
         cq.spec.preemption.borrow_within_cohort.policy =
             api::BorrowWithinCohortPolicy::kLowerPriority;
       },
       "spec.preemption: Invalid value: \"object\": reclaimWithinCohort=Never and "
       "borrowWithinCohort.Policy!=Never"},
      {"borrowWithinCohort with reclaimWithinCohort",
       [](CQ& cq) {
         cq.spec.preemption.reclaim_within_cohort = api::ReclaimWithinCohortPolicy::kAny;
         cq.spec.preemption.borrow_within_cohort.policy =
             api::BorrowWithinCohortPolicy::kLowerPriority;
         cq.spec.preemption.borrow_within_cohort.max_priority_threshold = 100;
       },
       ""},
      {"maxPriorityThreshold with policy Never (Kueue accepts it)",
       [](CQ& cq) { cq.spec.preemption.borrow_within_cohort.max_priority_threshold = 5; }, ""},
      {"negative fair sharing weight",
       [](CQ& cq) {
         cq.spec.fair_sharing.weight = -1.5;
         cq.spec.fair_sharing.weight_set = true;
       },
       "spec.fairSharing.weight: Invalid value: \"-1.5\": must be greater than or equal to 0"},
      {"zero fair sharing weight",
       [](CQ& cq) {
         cq.spec.fair_sharing.weight = 0;
         cq.spec.fair_sharing.weight_set = true;
       },
       ""},
      {"bad label key", [](CQ& cq) { cq.metadata.labels["bad key"] = "v"; },
       "metadata.labels: Invalid value: \"bad key\": name part must consist*"},
      {"bad label value", [](CQ& cq) { cq.metadata.labels["team"] = "-a"; },
       "metadata.labels: Invalid value: \"-a\": a valid label must be*"},
      {"annotations too large",
       [](CQ& cq) { cq.metadata.annotations["big"] = std::string(256 * 1024, 'x'); },
       "metadata.annotations: Too long: may not be more than 262144 bytes"},
      {"uppercase annotation key is fine",
       [](CQ& cq) { cq.metadata.annotations["Example.COM/Note"] = "x"; }, ""},
      {"bad finalizer", [](CQ& cq) { cq.metadata.finalizers = {"a/b/c"}; },
       "metadata.finalizers[0]: Invalid value: \"a/b/c\": *"},
      {"duplicate finalizer",
       [](CQ& cq) {
         cq.metadata.finalizers = {"kueue.x-k8s.io/resource-in-use",
                                   "kueue.x-k8s.io/resource-in-use"};
       },
       "metadata.finalizers[1]: Duplicate value: \"kueue.x-k8s.io/resource-in-use\""},
      {"owner reference without uid",
       [](CQ& cq) {
         cq.metadata.owner_references.push_back({"v1", "Thing", "t", "", false, false});
       },
       "metadata.ownerReferences[0].uid: Invalid value: \"\": uid must not be empty"},
      {"two controller owners",
       [](CQ& cq) {
         cq.metadata.owner_references.push_back({"v1", "A", "a", "1", true, false});
         cq.metadata.owner_references.push_back({"v1", "B", "b", "2", true, false});
       },
       "metadata.ownerReferences: Invalid value: 2: Only one reference can have Controller set "
       "to true"},
      {"negative generation", [](CQ& cq) { cq.metadata.generation = -1; },
       "metadata.generation: Invalid value: -1: must be greater than or equal to 0"},
      {"several errors are all reported",
       [](CQ& cq) {
         cq.spec.resource_groups[0].flavors[0].resources[0].nominal_quota = Q("-1");
         cq.spec.resource_groups[0].flavors[1].resources[1].nominal_quota = Q("-2");
       },
       q + ".nominalQuota: Invalid value: \"-1\": must be greater than or equal to 0; "
           "spec.resourceGroups[0].flavors[1].resources[1].nominalQuota: Invalid value: \"-2\": "
           "must be greater than or equal to 0"},
  };
  RunCases(ValidClusterQueue(), cases, "kueue.x-k8s.io/v1beta1", "ClusterQueue");
}

// ---- Cohort ----

TEST(ValidateCohortTest, Table) {
  api::Cohort base;
  base.metadata.name = "child";
  base.parent_name = "root";
  api::ResourceGroup rg;
  rg.covered_resources = {"cpu"};
  rg.flavors.push_back(Flavor("default", {{"cpu", "4"}}));
  rg.flavors[0].resources[0].borrowing_limit = Q("1");
  rg.flavors[0].resources[0].lending_limit = Q("2");
  base.resource_groups.push_back(rg);
  using C = api::Cohort;
  const std::string q = "spec.resourceGroups[0].flavors[0].resources[0]";
  std::vector<Case<C>> cases = {
      {"valid", [](C&) {}, ""},
      {"root without limits",
       [](C& c) {
         c.parent_name.clear();
         c.resource_groups[0].flavors[0].resources[0].borrowing_limit.reset();
         c.resource_groups[0].flavors[0].resources[0].lending_limit.reset();
       },
       ""},
      {"lending limit over nominal quota is allowed for a cohort",
       [](C& c) { c.resource_groups[0].flavors[0].resources[0].lending_limit = Q("10"); }, ""},
      {"own parent", [](C& c) { c.parent_name = "child"; },
       "spec.parentName: Invalid value: \"child\": a Cohort cannot be its own parent"},
      {"bad parent", [](C& c) { c.parent_name = "Root"; },
       std::string("spec.parentName: Invalid value: \"Root\": ") + kSubdomainMsg},
      {"limits without a parent", [](C& c) { c.parent_name.clear(); },
       q + ".borrowingLimit: Invalid value: \"1\": must be nil when parent is empty; " + q +
           ".lendingLimit: Invalid value: \"2\": must be nil when parent is empty"},
      {"negative nominal quota",
       [](C& c) { c.resource_groups[0].flavors[0].resources[0].nominal_quota = Q("-1m"); },
       q + ".nominalQuota: Invalid value: \"-1m\": must be greater than or equal to 0"},
      {"negative weight",
       [](C& c) {
         c.fair_sharing.weight = -0.5;
         c.fair_sharing.weight_set = true;
       },
       "spec.fairSharing.weight: Invalid value: \"-0.5\": must be greater than or equal to 0"},
      {"too many resource groups",
       [](C& c) {
         c.resource_groups.clear();
         for (int i = 0; i < 17; ++i) {
           api::ResourceGroup g;
           g.covered_resources = {"r" + std::to_string(i)};
           g.flavors.push_back(Flavor("f" + std::to_string(i), {{"r" + std::to_string(i), "1"}}));
           c.resource_groups.push_back(g);
         }
       },
       "spec.resourceGroups: Too many: 17: must have at most 16 items"},
  };
  RunCases(base, cases, "kueue.x-k8s.io/v1beta1", "Cohort");
  // v1alpha1 names the parent field spec.parent.
  std::vector<Case<C>> alpha = {
      {"own parent (v1alpha1)", [](C& c) { c.parent_name = "child"; },
       "spec.parent: Invalid value: \"child\": a Cohort cannot be its own parent"},
  };
  RunCases(base, alpha, "kueue.x-k8s.io/v1alpha1", "Cohort");
}

// ---- Workload ----

void TwoMinCountPodSets(api::Workload& w) {
  w.spec.pod_sets[0].min_count = 1;
  w.spec.pod_sets.push_back(w.spec.pod_sets[0]);
  w.spec.pod_sets[1].name = "other";
}

// The simulator's option: several minCount pod sets pass (Kueue's scheduler
// handles them), every other rule still applies.
TEST(ValidateWorkloadTest, SeveralMinCountPodSetsAllowedByOption) {
  api::Workload w = ValidWorkload();
  TwoMinCountPodSets(w);
  ValidateOptions options;
  options.allow_several_min_count_pod_sets = true;
  EXPECT_TRUE(Validate(api::Object{"kueue.x-k8s.io/v1beta1", "Workload", w}, options).ok());
  EXPECT_FALSE(Validate(api::Object{"kueue.x-k8s.io/v1beta1", "Workload", w}).ok());
  w.spec.pod_sets[1].min_count = 5;
  EXPECT_EQ(Validate(api::Object{"kueue.x-k8s.io/v1beta1", "Workload", w}, options).message(),
            "spec.podSets[1].minCount: Invalid value: 5: minCount should be positive and less or "
            "equal to count");
}

TEST(ValidateWorkloadTest, Table) {
  using W = api::Workload;
  const std::string pod = "spec.podSets[0].template.spec";
  const std::string c0 = pod + ".containers[0]";
  std::vector<Case<W>> cases = {
      {"valid", [](W&) {}, ""},
      {"no namespace", [](W& w) { w.metadata.namespace_.clear(); }, ""},
      {"bad namespace", [](W& w) { w.metadata.namespace_ = "a.b"; },
       "metadata.namespace: Invalid value: \"a.b\": a lowercase RFC 1123 label*"},
      {"no pod sets", [](W& w) { w.spec.pod_sets.clear(); }, "spec.podSets: Required value"},
      {"nine pod sets", PodSets(9), "spec.podSets: Too many: 9: must have at most 8 items"},
      {"eight pod sets", PodSets(8), ""},
      {"duplicate pod set names", [](W& w) { w.spec.pod_sets.push_back(w.spec.pod_sets[0]); },
       "spec.podSets[1].name: Duplicate value: \"main\""},
      {"pod set name not a DNS label", [](W& w) { w.spec.pod_sets[0].name = "a.b"; },
       "spec.podSets[0].name: Invalid value: \"a.b\": a lowercase RFC 1123 label*"},
      {"empty pod set name", [](W& w) { w.spec.pod_sets[0].name.clear(); },
       "spec.podSets[0].name: Invalid value: \"\": a lowercase RFC 1123 label*"},
      {"negative count", [](W& w) { w.spec.pod_sets[0].count = -1; },
       "spec.podSets[0].count: Invalid value: -1: must be greater than or equal to 0"},
      {"zero count", [](W& w) { w.spec.pod_sets[0].count = 0; }, ""},
      {"minCount within count", [](W& w) { w.spec.pod_sets[0].min_count = 1; }, ""},
      {"minCount equal to count", [](W& w) { w.spec.pod_sets[0].min_count = 2; }, ""},
      {"minCount zero", [](W& w) { w.spec.pod_sets[0].min_count = 0; },
       "spec.podSets[0].minCount: Invalid value: 0: minCount should be positive and less or "
       "equal to count"},
      {"minCount over count", [](W& w) { w.spec.pod_sets[0].min_count = 3; },
       "spec.podSets[0].minCount: Invalid value: 3: minCount should be positive and less or "
       "equal to count"},
      {"two pod sets with minCount (Kueue's webhook refuses them)", TwoMinCountPodSets,
       "spec.podSets: Invalid value: 2: at most one podSet can use minCount"},
      {"priority class source values",
       [](W& w) { w.spec.priority_class_source = api::kPodPriorityClassSource; }, ""},
      {"bad priority class source", [](W& w) { w.spec.priority_class_source = "custom"; },
       "spec.priorityClassSource: Unsupported value: \"custom\": supported values: "
       "\"kueue.x-k8s.io/workloadpriorityclass\", \"scheduling.k8s.io/priorityclass\", \"\""},
      {"priorityClassName without priority (resolved by the engine)",
       [](W& w) { w.spec.priority_class_name = "high"; }, ""},
      {"bad priority class name", [](W& w) { w.spec.priority_class_name = "High"; },
       "spec.priorityClassName: Invalid value: \"High\": *"},
      {"bad queue name", [](W& w) { w.spec.queue_name = "Queue"; },
       "spec.queueName: Invalid value: \"Queue\": *"},
      {"zero maximum execution time", [](W& w) { w.spec.maximum_execution_time_seconds = 0; },
       "spec.maximumExecutionTimeSeconds: Invalid value: 0: must be greater than or equal to 1"},
      {"no containers", [](W& w) { MainPod(w).containers.clear(); },
       pod + ".containers: Required value"},
      {"container without a name", [](W& w) { MainContainer(w).name.clear(); },
       c0 + ".name: Required value"},
      {"negative request", [](W& w) { MainContainer(w).resources.requests["cpu"] = Q("-1"); },
       c0 + ".resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"},
      {"pods request is reserved",
       [](W& w) { MainContainer(w).resources.requests["pods"] = Q("1"); },
       c0 + ".resources.requests[pods]: Invalid value: \"pods\": the key is reserved for internal "
            "kueue use"},
      {"bad resource name", [](W& w) { MainContainer(w).resources.requests["a b"] = Q("1"); },
       c0 + ".resources.requests[a b]: Invalid value: \"a b\": *"},
      {"negative init container limit",
       [](W& w) {
         api::Container init;
         init.name = "init";
         init.resources.limits["memory"] = Q("-1Gi");
         MainPod(w).init_containers.push_back(init);
       },
       pod + ".initContainers[0].resources.limits[memory]: Invalid value: \"-1073741824\": must "
             "be greater than or equal to 0"},
      {"negative overhead", [](W& w) { MainPod(w).overhead["cpu"] = Q("-100m"); },
       pod + ".overhead[cpu]: Invalid value: \"-100m\": must be greater than or equal to 0"},
      {"env var without a name",
       [](W& w) {
         MainContainer(w).env.push_back({"", "x"});
       },
       c0 + ".env[0].name: Required value"},
      {"bad container restart policy", [](W& w) { MainContainer(w).restart_policy = "Sometimes"; },
       c0 + ".restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
            "\"OnFailure\", \"Never\""},
      {"bad pod restart policy", [](W& w) { MainPod(w).restart_policy = "Maybe"; },
       pod + ".restartPolicy: Unsupported value: \"Maybe\": supported values: \"Always\", "
             "\"OnFailure\", \"Never\""},
      {"valid tolerations",
       Tolerations({{"", "Exists", "", "", std::nullopt},
                    {"spot", "Equal", "true", "NoExecute", 60},
                    {"gpu", "", "a100", "NoSchedule", std::nullopt}}),
       ""},
      {"toleration without key must be Exists", Tolerations({{"", "Equal", "", "", std::nullopt}}),
       pod + ".tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
             "`key` is empty, which means \"match all values and all keys\""},
      {"toleration seconds need NoExecute", Tolerations({{"k", "Exists", "", "NoSchedule", 5}}),
       pod + ".tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
             "when `tolerationSeconds` is set"},
      {"Exists toleration with a value", Tolerations({{"k", "Exists", "v", "", std::nullopt}}),
       pod + ".tolerations[0].operator: Invalid value: \"v\": value must be empty when "
             "`operator` is 'Exists'"},
      {"bad toleration operator", Tolerations({{"k", "In", "v", "", std::nullopt}}),
       pod + ".tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", "
             "\"Exists\""},
      {"bad toleration effect", Tolerations({{"k", "Exists", "", "Never", std::nullopt}}),
       pod + ".tolerations[0].effect: Unsupported value: \"Never\": supported values: "
             "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""},
      {"valid node affinity",
       RequiredTerms({{{{"zone", "In", {"a"}}, {"gpu", "Exists", {}}, {"cores", "Gt", {"4"}}},
                       {{"metadata.name", "NotIn", {"n1"}}}}}),
       ""},
      {"empty node selector terms", RequiredTerms({}),
       pod + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms: Required value: must have at least one node selector term"},
      {"bad node selector operator", RequiredTerms({{{{"zone", "Has", {"a"}}}, {}}}),
       pod + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Has\": not a "
             "valid selector operator"},
      {"Gt with two values", RequiredTerms({{{{"cores", "Gt", {"1", "2"}}}, {}}}),
       pod + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified "
             "single value when `operator` is 'Lt' or 'Gt'"},
      {"match field on a label", RequiredTerms({{{}, {{"zone", "In", {"a"}}}}}),
       pod + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
             "nodeSelectorTerms[0].matchFields[0].key: Unsupported value: \"zone\": supported "
             "values: \"metadata.name\""},
      {"zero active deadline", [](W& w) { MainPod(w).active_deadline_seconds = 0; },
       pod + ".activeDeadlineSeconds: Invalid value: 0: must be greater than or equal to 1"},
      {"negative grace period", [](W& w) { MainPod(w).termination_grace_period_seconds = -1; },
       pod + ".terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal "
             "to 0"},
      {"bad template label", [](W& w) { w.spec.pod_sets[0].template_.labels["app"] = "a b"; },
       "spec.podSets[0].template.metadata.labels: Invalid value: \"a b\": *"},
      // Status.
      {"valid admission",
       [](W& w) {
         api::PodSetAssignment psa;
         psa.name = "main";
         psa.flavors["cpu"] = "default";
         psa.resource_usage["cpu"] = Q("2");
         psa.count = 2;
         w.status.admission = api::Admission{"cq", {psa}};
         w.status.conditions = {
             {api::kQuotaReserved, "True", "QuotaReserved", "", std::nullopt, 0}};
       },
       ""},
      {"admission for an unknown pod set", AdmittedAs("other", "cq"),
       "status.admission.podSetAssignments[0].name: Not found: \"other\""},
      {"admission for an unknown pod set, quota not reserved (Kueue checks it only while "
       "reserved)",
       AdmittedAs("other", "cq", /*reserved=*/false), ""},
      {"admission without a ClusterQueue", AdmittedAs("main", ""),
       "status.admission.clusterQueue: Required value"},
      {"quota reserved with missing assignments",
       [](W& w) {
         w.status.admission = api::Admission{"cq", {}};
         w.status.conditions = {{api::kQuotaReserved, "True", "", "", std::nullopt, 0}};
       },
       "<nil>: Invalid value: \"object\": podSetAssignments must have the same number of "
       "podSets as the spec"},
      {"usage not a multiple of count",
       [](W& w) {
         api::PodSetAssignment psa;
         psa.name = "main";
         psa.resource_usage["cpu"] = Q("3m");
         psa.resource_usage["memory"] = Q("4Gi");
         psa.count = 2;
         w.status.admission = api::Admission{"cq", {psa}};
         w.status.conditions = {{api::kQuotaReserved, "True", "", "", std::nullopt, 0}};
       },
       "status.admission.podSetAssignments[0].resourceUsage[cpu]: Invalid value: \"3m\": is not "
       "a multiple of 2"},
      {"bad condition status",
       [](W& w) {
         w.status.conditions = {{"Admitted", "Yes", "", "", std::nullopt, 0}};
       },
       "status.conditions[0].status: Unsupported value: \"Yes\": supported values: \"False\", "
       "\"True\", \"Unknown\""},
      {"duplicate condition type",
       [](W& w) {
         w.status.conditions = {{"Admitted", "True", "", "", std::nullopt, 0},
                                {"Admitted", "False", "", "", std::nullopt, 0}};
       },
       "status.conditions[1].type: Duplicate value: \"Admitted\""},
      {"reclaimable pods over count",
       [](W& w) {
         w.status.reclaimable_pods = {{"main", 5}};
       },
       "status.reclaimablePods[main].count: Invalid value: 5: should be less or equal to 2"},
      {"reclaimable pods for an unknown pod set",
       [](W& w) {
         w.status.reclaimable_pods = {{"x", 1}};
       },
       "status.reclaimablePods[x].name: Unsupported value: \"x\": supported values: \"main\""},
      {"quota reserved without an admission",
       [](W& w) {
         w.status.conditions = {{api::kQuotaReserved, "True", "", "", std::nullopt, 0}};
       },
       "status.admission: Required value: must be set while the QuotaReserved condition is "
       "true"},
      {"bad admission check state",
       [](W& w) {
         w.status.admission_checks = {{"prov", "Done", std::nullopt, ""}};
       },
       "status.admissionChecks[0].state: Unsupported value: \"Done\": supported values: "
       "\"Pending\", \"Ready\", \"Retry\", \"Rejected\""},
      {"negative requeue count",
       [](W& w) {
         w.status.requeue_state = api::RequeueState{-1, std::nullopt};
       },
       "status.requeueState.count: Invalid value: -1: must be greater than or equal to 0"},
  };
  RunCases(ValidWorkload(), cases, "kueue.x-k8s.io/v1beta1", "Workload");
}

// ---- ResourceFlavor ----

TEST(ValidateResourceFlavorTest, Table) {
  api::ResourceFlavor base;
  base.metadata.name = "spot";
  base.node_labels = {{"cloud.com/spot", "true"}};
  base.node_taints = {{"spot", "true", "NoSchedule"}};
  base.tolerations = {{"spot", "Equal", "true", "NoSchedule", std::nullopt}};
  using RF = api::ResourceFlavor;
  std::vector<Case<RF>> cases = {
      {"valid", [](RF&) {}, ""},
      {"empty",
       [](RF& rf) {
         rf = RF{};
         rf.metadata.name = "empty";
       },
       ""},
      {"nine node labels",
       [](RF& rf) {
         for (int i = 0; i < 8; ++i) rf.node_labels["l" + std::to_string(i)] = "v";
       },
       "spec.nodeLabels: Too many: 9: must have at most 8 items"},
      {"bad node label", [](RF& rf) { rf.node_labels["x"] = "a b"; },
       "spec.nodeLabels: Invalid value: \"a b\": *"},
      {"taint without effect", [](RF& rf) { rf.node_taints[0].effect.clear(); },
       "spec.nodeTaints[0].effect: Required value"},
      {"bad taint effect (the CRD's CEL rule)",
       [](RF& rf) { rf.node_taints[0].effect = "NoAdmit"; },
       "spec.nodeTaints: Invalid value: \"array\": supported taint effect values: 'NoSchedule', "
       "'PreferNoSchedule', 'NoExecute'"},
      {"taint without key", [](RF& rf) { rf.node_taints[0].key.clear(); },
       "spec.nodeTaints[0].key: Invalid value: \"\": name part must be non-empty"},
      {"bad taint value", [](RF& rf) { rf.node_taints[0].value = "a b"; },
       "spec.nodeTaints[0].value: Invalid value: \"a b\": *"},
      {"duplicate taint",
       [](RF& rf) {
         rf.node_taints.push_back({"spot", "false", "NoSchedule"});
       },
       "spec.nodeTaints[1]: Duplicate value: \"spot:NoSchedule\": taints must be unique by key "
       "and effect pair"},
      {"same key, other effect",
       [](RF& rf) {
         rf.node_taints.push_back({"spot", "true", "NoExecute"});
       },
       ""},
      {"nine taints",
       [](RF& rf) {
         for (int i = 0; i < 8; ++i)
           rf.node_taints.push_back({"t" + std::to_string(i), "", "NoSchedule"});
       },
       "spec.nodeTaints: Too many: 9: must have at most 8 items"},
      {"nine tolerations",
       [](RF& rf) {
         for (int i = 0; i < 8; ++i) {
           rf.tolerations.push_back({"t" + std::to_string(i), "Exists", "", "", std::nullopt});
         }
       },
       "spec.tolerations: Too many: 9: must have at most 8 items"},
      {"Exists toleration with a value (the CRD's CEL rule)",
       [](RF& rf) { rf.tolerations[0].op = "Exists"; },
       "spec.tolerations: Invalid value: \"array\": a value must be empty when 'operator' is "
       "'Exists'"},
      {"keyless Equal toleration (the CRD's CEL rule)",
       [](RF& rf) {
         rf.tolerations[0].key.clear();
         rf.tolerations[0].value.clear();
       },
       "spec.tolerations: Invalid value: \"array\": operator must be Exists when 'key' is "
       "empty, which means 'match all values and all keys'"},
      {"tolerationSeconds without NoExecute (the CRD's CEL rule)",
       [](RF& rf) { rf.tolerations[0].toleration_seconds = 5; },
       "spec.tolerations: Invalid value: \"array\": effect must be 'NoExecute' when "
       "'tolerationSeconds' is set"},
      {"unknown toleration operator (the CRD's CEL rule)",
       [](RF& rf) { rf.tolerations[0].op = "In"; },
       "spec.tolerations: Invalid value: \"array\": supported toleration values: "
       "'Equal'(default), 'Exists'"},
      {"bad toleration key (the webhook's rule)", [](RF& rf) { rf.tolerations[0].key = "@a"; },
       "spec.tolerations[0].key: Invalid value: \"@a\": name part must consist of*"},
      {"topology without node labels",
       [](RF& rf) {
         rf.node_labels.clear();
         rf.topology_name = "default";
       },
       "spec: Invalid value: \"object\": at least one nodeLabel is required when topology is "
       "set"},
      {"topology with node labels", [](RF& rf) { rf.topology_name = "default"; }, ""},
  };
  RunCases(base, cases, "kueue.x-k8s.io/v1beta1", "ResourceFlavor");
}

// ---- LocalQueue, priority classes, AdmissionCheck, Namespace ----

TEST(ValidateSmallKindsTest, LocalQueue) {
  api::LocalQueue base;
  base.metadata.name = "lq";
  base.metadata.namespace_ = "team-a";
  base.cluster_queue = "cq";
  using LQ = api::LocalQueue;
  std::vector<Case<LQ>> cases = {
      {"valid", [](LQ&) {}, ""},
      {"dotted name (a DNS subdomain)", [](LQ& lq) { lq.metadata.name = "team.queue"; }, ""},
      {"no ClusterQueue", [](LQ& lq) { lq.cluster_queue.clear(); },
       "spec.clusterQueue: Required value"},
      {"bad ClusterQueue", [](LQ& lq) { lq.cluster_queue = "CQ"; },
       "spec.clusterQueue: Invalid value: \"CQ\": *"},
      {"bad namespace", [](LQ& lq) { lq.metadata.namespace_ = "Team"; },
       "metadata.namespace: Invalid value: \"Team\": *"},
  };
  RunCases(base, cases, "kueue.x-k8s.io/v1beta1", "LocalQueue");
}

TEST(ValidateSmallKindsTest, PriorityClasses) {
  api::WorkloadPriorityClass wpc;
  wpc.metadata.name = "high";
  wpc.value = INT32_MAX;
  using WPC = api::WorkloadPriorityClass;
  RunCases(wpc,
           std::vector<Case<WPC>>{
               {"valid", [](WPC&) {}, ""},
               {"negative value", [](WPC& p) { p.value = INT32_MIN; }, ""},
               {"bad name", [](WPC& p) { p.metadata.name = "High"; },
                "metadata.name: Invalid value: \"High\": *"},
           },
           "kueue.x-k8s.io/v1beta1", "WorkloadPriorityClass");

  api::PriorityClass pc;
  pc.metadata.name = "batch";
  pc.value = 1'000'000'000;
  using PC = api::PriorityClass;
  RunCases(
      pc,
      std::vector<Case<PC>>{
          {"valid", [](PC&) {}, ""},
          {"over the user limit", [](PC& p) { p.value = 1'000'000'001; },
           "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"},
          {"system class may exceed it",
           [](PC& p) {
             p.metadata.name = "system-node-critical";
             p.value = 2'000'001'000;
           },
           ""},
          {"reserved prefix", [](PC& p) { p.metadata.name = "system-custom"; },
           "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved"},
          {"preemption policy", [](PC& p) { p.preemption_policy = "PreemptLowerPriority"; }, ""},
          {"bad preemption policy", [](PC& p) { p.preemption_policy = "Always"; },
           "preemptionPolicy: Unsupported value: \"Always\": supported values: \"Never\", "
           "\"PreemptLowerPriority\""},
      },
      "scheduling.k8s.io/v1", "PriorityClass");
}

TEST(ValidateSmallKindsTest, AdmissionCheckAndNamespace) {
  api::AdmissionCheck ac;
  ac.metadata.name = "prov";
  ac.controller_name = "kueue.x-k8s.io/provisioning-request";
  using AC = api::AdmissionCheck;
  RunCases(ac,
           std::vector<Case<AC>>{
               {"valid", [](AC&) {}, ""},
               {"no controller", [](AC& a) { a.controller_name.clear(); },
                "spec.controllerName: Required value"},
               {"negative retry delay", [](AC& a) { a.retry_delay_minutes = -1; },
                "spec.retryDelayMinutes: Invalid value: -1: must be greater than or equal to 0"},
               {"bad condition",
                [](AC& a) {
                  a.conditions = {{"Active", "yes", "", "", std::nullopt, 0}};
                },
                "status.conditions[0].status: Unsupported value: \"yes\": *"},
           },
           "kueue.x-k8s.io/v1beta1", "AdmissionCheck");

  api::Namespace ns;
  ns.metadata.name = "team-a";
  using NS = api::Namespace;
  RunCases(ns,
           std::vector<Case<NS>>{
               {"valid", [](NS&) {}, ""},
               {"dotted name", [](NS& n) { n.metadata.name = "team.a"; },
                "metadata.name: Invalid value: \"team.a\": a lowercase RFC 1123 label*"},
               {"64 characters", [](NS& n) { n.metadata.name = std::string(64, 'a'); },
                "metadata.name: Invalid value: \"" + std::string(64, 'a') +
                    "\": must be no more than 63 characters"},
           },
           "v1", "Namespace");
}

// ---- Configuration ----

TEST(ValidateConfigurationTest, Table) {
  using C = api::Configuration;
  using S = api::FairSharingStrategy;
  std::vector<Case<C>> cases = {
      {"defaults", [](C&) {}, ""},
      {"one strategy",
       [](C& c) { c.fair_sharing.preemption_strategies = {S::kLessThanInitialShare}; }, ""},
      {"strategies in the wrong order",
       [](C& c) {
         c.fair_sharing.preemption_strategies = {S::kLessThanInitialShare,
                                                 S::kLessThanOrEqualToFinalShare};
       },
       "fairSharing.preemptionStrategies: Unsupported value: "
       "\"LessThanInitialShare,LessThanOrEqualToFinalShare\": supported values: "
       "\"LessThanOrEqualToFinalShare\", \"LessThanInitialShare\", "
       "\"LessThanOrEqualToFinalShare,LessThanInitialShare\""},
      {"no strategies", [](C& c) { c.fair_sharing.preemption_strategies.clear(); },
       "fairSharing.preemptionStrategies: Unsupported value: \"\": *"},
      {"negative timeout while disabled is ignored",
       [](C& c) { c.wait_for_pods_ready.timeout = Duration{-1}; }, ""},
      {"negative timeout",
       [](C& c) {
         c.wait_for_pods_ready.enable = true;
         c.wait_for_pods_ready.timeout = Duration{-1000};
       },
       "waitForPodsReady.timeout: Invalid value: -1000: must be greater than or equal to 0"},
      {"negative recovery timeout",
       [](C& c) {
         c.wait_for_pods_ready.enable = true;
         c.wait_for_pods_ready.recovery_timeout = Duration{-1};
       },
       "waitForPodsReady.recoveryTimeout: Invalid value: -1: must be greater than or equal to 0"},
      {"negative backoff settings",
       [](C& c) {
         c.wait_for_pods_ready.enable = true;
         c.wait_for_pods_ready.requeuing_strategy.backoff_limit_count = -1;
         c.wait_for_pods_ready.requeuing_strategy.backoff_base_seconds = -2;
         c.wait_for_pods_ready.requeuing_strategy.backoff_max_seconds = -3;
       },
       "waitForPodsReady.requeuingStrategy.backoffLimitCount: Invalid value: -1: must be greater "
       "than or equal to 0; waitForPodsReady.requeuingStrategy.backoffBaseSeconds: Invalid "
       "value: -2: must be greater than or equal to 0; "
       "waitForPodsReady.requeuingStrategy.backoffMaxSeconds: Invalid value: -3: must be greater "
       "than or equal to 0"},
  };
  RunCases(C{}, cases, "config.kueue.x-k8s.io/v1beta1", "Configuration");
}

}  // namespace
}  // namespace kuota::validation
