// Kueue's ClusterQueue webhook rules (pkg/webhooks/clusterqueue_webhook.go)
// and the CRD list limits next to them: each row mutates a valid v1beta2
// ClusterQueue and names the exact errors expected ("" = accepted), so every
// refusal sits beside the nearest object Kueue accepts.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "api/validation/validate.h"

namespace kuota::validation {
namespace {

api::Quantity WhQuantity(const char* text) { return api::Quantity::Parse(text).value(); }

api::FlavorQuotas WhFlavor(const std::string& name, const std::vector<std::string>& resources) {
  api::FlavorQuotas f;
  f.name = name;
  for (const std::string& r : resources) {
    api::ResourceQuota q;
    q.name = r;
    q.nominal_quota = WhQuantity("1");
    f.resources.push_back(q);
  }
  return f;
}

// Groups of `flavors_per_group[g]` flavors ("g<g>-f<i>") over
// `resources_per_group` resources ("example.com/g<g>-r<j>") each.
std::vector<api::ResourceGroup> WhGroups(const std::vector<int>& flavors_per_group,
                                         int resources_per_group) {
  std::vector<api::ResourceGroup> groups;
  for (size_t g = 0; g < flavors_per_group.size(); ++g) {
    api::ResourceGroup rg;
    for (int j = 0; j < resources_per_group; ++j) {
      rg.covered_resources.push_back("example.com/g" + std::to_string(g) + "-r" +
                                     std::to_string(j));
    }
    for (int i = 0; i < flavors_per_group[g]; ++i) {
      rg.flavors.push_back(
          WhFlavor("g" + std::to_string(g) + "-f" + std::to_string(i), rg.covered_resources));
    }
    groups.push_back(rg);
  }
  return groups;
}

// Groups with one flavor each, over `resources_per_group[g]` resources.
std::vector<api::ResourceGroup> WhResourceGroups(const std::vector<int>& resources_per_group) {
  std::vector<api::ResourceGroup> groups;
  for (size_t g = 0; g < resources_per_group.size(); ++g) {
    std::vector<api::ResourceGroup> one = WhGroups({1}, resources_per_group[g]);
    one[0].flavors[0].name = "only-" + std::to_string(g);
    for (std::string& r : one[0].covered_resources) r += "-" + std::to_string(g);
    for (api::ResourceQuota& q : one[0].flavors[0].resources) q.name += "-" + std::to_string(g);
    groups.push_back(one[0]);
  }
  return groups;
}

api::ClusterQueue WhValidClusterQueue() {
  api::ClusterQueue cq;
  cq.metadata.name = "cq";
  cq.spec.cohort = "all";
  api::ResourceGroup rg;
  rg.covered_resources = {"cpu", "memory"};
  rg.flavors = {WhFlavor("default", {"cpu", "memory"}), WhFlavor("spot", {"cpu", "memory"})};
  api::ResourceGroup gpu;
  gpu.covered_resources = {"nvidia.com/gpu"};
  gpu.flavors = {WhFlavor("a100", {"nvidia.com/gpu"})};
  cq.spec.resource_groups = {rg, gpu};
  cq.spec.namespace_selector = api::LabelSelector{};
  return cq;
}

std::function<void(api::ClusterQueue&)> WhOnFlavors(std::vector<std::string> flavors) {
  return [=](api::ClusterQueue& cq) { cq.spec.admission_checks_strategy = {{"check", flavors}}; };
}

std::function<void(api::ClusterQueue&)> WhFungibility(api::FungibilityAction borrow,
                                                      api::FungibilityAction preempt,
                                                      api::FungibilityPreference preference) {
  return [=](api::ClusterQueue& cq) { cq.spec.flavor_fungibility = {borrow, preempt, preference}; };
}

std::function<void(api::ClusterQueue&)> WhStrategyRules(int n) {
  return [=](api::ClusterQueue& cq) {
    for (int i = 0; i < n; ++i) {
      cq.spec.admission_checks_strategy.push_back({"check-" + std::to_string(i), {}});
    }
  };
}

// One rule whose onFlavors are all `n` flavors of a queue that has quota for them.
std::function<void(api::ClusterQueue&)> WhManyOnFlavors(int n) {
  return [=](api::ClusterQueue& cq) {
    cq.spec.resource_groups = WhGroups({n / 2, n - n / 2}, 1);
    std::vector<std::string> names;
    for (const auto& rg : cq.spec.resource_groups) {
      for (const auto& f : rg.flavors) names.push_back(f.name);
    }
    cq.spec.admission_checks_strategy = {{"check", names}};
  };
}

struct WhCase {
  std::string name;
  std::function<void(api::ClusterQueue&)> mutate;
  std::string want;  // "" = accepted
};

TEST(ClusterQueueWebhookRulesTest, Table) {
  using CQ = api::ClusterQueue;
  using A = api::FungibilityAction;
  using P = api::FungibilityPreference;
  const std::string checks = "spec.admissionChecksStrategy.admissionChecks";
  const std::vector<WhCase> cases = {
      // onFlavors must name flavors the ClusterQueue has quota for.
      {"onFlavors naming quota flavors", WhOnFlavors({"spot", "a100"}), ""},
      {"onFlavors empty (all flavors)", WhOnFlavors({}), ""},
      {"onFlavors naming a flavor without quota", WhOnFlavors({"spot", "ghost"}),
       checks + "[0].onFlavors[1]: Unsupported value: \"ghost\": supported values: \"a100\", "
                "\"default\", \"spot\""},
      {"onFlavors on a queue without resource groups",
       [](CQ& cq) {
         cq.spec.resource_groups.clear();
         cq.spec.admission_checks_strategy = {{"check", {"default"}}};
       },
       checks + "[0].onFlavors[0]: Unsupported value: \"default\""},
      {"second rule naming a flavor without quota",
       [](CQ& cq) {
         cq.spec.admission_checks_strategy = {{"a", {"default"}}, {"b", {"x"}}};
       },
       checks + "[1].onFlavors[0]: Unsupported value: \"x\": supported values: \"a100\", "
                "\"default\", \"spot\""},
      // CRD: onFlavors is a set of at most 64; at most 64 rules.
      {"onFlavors listing a flavor twice", WhOnFlavors({"spot", "spot"}),
       checks + "[0].onFlavors[1]: Duplicate value: \"spot\""},
      {"64 onFlavors", WhManyOnFlavors(64), ""},
      {"65 onFlavors", WhManyOnFlavors(65),
       checks + "[0].onFlavors: Too many: 65: must have at most 64 items"},
      {"64 strategy rules", WhStrategyRules(64), ""},
      {"65 strategy rules", WhStrategyRules(65),
       checks + ": Too many: 65: must have at most 64 items"},
      // Flavors across all groups (groups of 64 flavors stay within the CRD's
      // per-group limit).
      {"256 flavors in all",
       [](CQ& cq) {
         cq.spec.resource_groups = WhGroups({64, 64, 64, 64}, 1);
       },
       ""},
      {"257 flavors in all",
       [](CQ& cq) {
         cq.spec.resource_groups = WhGroups({64, 64, 64, 64, 1}, 1);
       },
       "spec.resourceGroups: Invalid value: 257: total number of flavors across all "
       "resourceGroups must be \u2264 256, got 257"},
      // Covered resources across all groups.
      {"256 covered resources in all",
       [](CQ& cq) {
         cq.spec.resource_groups = WhResourceGroups({64, 64, 64, 64});
       },
       ""},
      {"257 covered resources in all",
       [](CQ& cq) {
         cq.spec.resource_groups = WhResourceGroups({64, 64, 64, 64, 1});
       },
       "spec.resourceGroups: Invalid value: 257: total number of covered resources across all "
       "resourceGroups must be \u2264 256, got 257"},
      // Flavor x resource quotas in one group.
      {"8 flavors x 64 resources in a group",
       [](CQ& cq) { cq.spec.resource_groups = WhGroups({8}, 64); }, ""},
      {"9 flavors x 64 resources in a group",
       [](CQ& cq) {
         cq.spec.resource_groups = WhGroups({1, 9}, 64);
       },
       "spec.resourceGroups[1]: Invalid value: 576: number of flavor-resource combinations in a "
       "resourceGroup must be \u2264 512, got 576"},
      // flavorFungibility.preference needs TryNextFlavor for both actions.
      {"preference with both TryNextFlavor",
       WhFungibility(A::kTryNextFlavor, A::kTryNextFlavor, P::kBorrowingOverPreemption), ""},
      {"no preference with MayStopSearch",
       WhFungibility(A::kMayStopSearch, A::kMayStopSearch, P::kUnset), ""},
      {"preference with whenCanBorrow MayStopSearch",
       WhFungibility(A::kMayStopSearch, A::kTryNextFlavor, P::kBorrowingOverPreemption),
       "spec.flavorFungibility.preference: Invalid value: \"BorrowingOverPreemption\": "
       "preference \"BorrowingOverPreemption\" requires both whenCanBorrow and whenCanPreempt "
       "to be TryNextFlavor"},
      {"preference with whenCanPreempt MayStopSearch",
       WhFungibility(A::kTryNextFlavor, A::kMayStopSearch, P::kPreemptionOverBorrowing),
       "spec.flavorFungibility.preference: Invalid value: \"PreemptionOverBorrowing\": "
       "preference \"PreemptionOverBorrowing\" requires both whenCanBorrow and whenCanPreempt "
       "to be TryNextFlavor"},
  };
  for (const WhCase& c : cases) {
    CQ cq = WhValidClusterQueue();
    c.mutate(cq);
    Status st = Validate(api::Object{"kueue.x-k8s.io/v1beta2", "ClusterQueue", cq});
    if (c.want.empty()) {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.ToString();
    } else {
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.name;
      EXPECT_EQ(st.message(), c.want) << c.name;
    }
  }
}

// The totals are the ClusterQueue webhook's; Kueue's Cohort webhook has none.
TEST(ClusterQueueWebhookRulesTest, CohortsHaveNoTotals) {
  api::Cohort cohort;
  cohort.metadata.name = "root";
  cohort.resource_groups = WhGroups({64, 64, 64, 64, 1}, 1);
  Status st = Validate(api::Object{"kueue.x-k8s.io/v1beta2", "Cohort", cohort});
  EXPECT_TRUE(st.ok()) << st.ToString();
}

}  // namespace
}  // namespace kuota::validation
