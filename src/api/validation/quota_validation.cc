// ClusterQueue and Cohort: Kueue's clusterqueue and cohort webhooks plus the
// CRD schema limits on resource groups and admission check strategies
// (pkg/webhooks/clusterqueue_webhook.go, apis/kueue/v1beta2/clusterqueue_types.go).
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "api/validation/names.h"
#include "api/validation/validators.h"

namespace kuota::validation {
namespace {

// CRD limits (kubebuilder markers in clusterqueue_types.go).
constexpr size_t kMaxResourceGroups = 16;
constexpr size_t kMaxCoveredResourcesPerGroup = 64;
constexpr size_t kMaxFlavorsPerGroup = 64;
constexpr size_t kMaxResourcesPerFlavor = 64;
constexpr size_t kMaxAdmissionCheckRules = 64;  // admissionChecksStrategy.admissionChecks
constexpr size_t kMaxOnFlavors = 64;            // admissionChecks[].onFlavors
// ClusterQueue webhook limits (Cohorts have none of these).
constexpr size_t kMaxFlavorsTotal = 256;
constexpr size_t kMaxCoveredResourcesTotal = 256;
constexpr size_t kMaxFlavorResourcesPerGroup = 512;  // flavors x resources in one group

struct QuotaRules {
  bool has_parent = false;              // a cohort (ClusterQueue) or parent (Cohort) is set
  const char* parent_field = "";        // "cohort" or "parent", for messages
  bool lending_within_nominal = false;  // lendingLimit <= nominalQuota (ClusterQueue only)
  // A borrowingLimit with no parent is refused by the CRD's CEL rule on the
  // spec (ClusterQueue only) before Kueue's webhook could name the field.
  bool borrowing_rule_on_spec = false;
};

void ValidateLimit(api::Quantity limit, const QuotaRules& rules, const std::string& path,
                   FieldErrors& errs) {
  if (!rules.has_parent) {
    errs.Invalid(path, limit.ToString(),
                 std::string("must be nil when ") + rules.parent_field + " is empty");
  }
  ValidateNonNegative(limit, path, errs);
}

void ValidateFlavorQuotas(const api::FlavorQuotas& fq,
                          const std::vector<std::string>& covered_resources,
                          const QuotaRules& rules, const std::string& path, FieldErrors& errs) {
  ValidateNameReference(fq.name, Child(path, "name"), errs);
  if (fq.name.empty()) errs.Required(Child(path, "name"));
  const std::string resources_path = Child(path, "resources");
  errs.CheckCount(resources_path, fq.resources.size(), kMaxResourcesPerFlavor);
  for (size_t i = 0; i < fq.resources.size() && i < covered_resources.size(); ++i) {
    const api::ResourceQuota& rq = fq.resources[i];
    std::string rp = Index(resources_path, i);
    if (rq.name != covered_resources[i]) {
      errs.Invalid(Child(rp, "name"), rq.name, "must match the name in coveredResources");
    }
    ValidateNonNegative(rq.nominal_quota, Child(rp, "nominalQuota"), errs);
    if (rq.borrowing_limit.has_value()) {
      if (rules.borrowing_rule_on_spec) {
        ValidateNonNegative(*rq.borrowing_limit, Child(rp, "borrowingLimit"), errs);
      } else {
        ValidateLimit(*rq.borrowing_limit, rules, Child(rp, "borrowingLimit"), errs);
      }
    }
    if (rq.lending_limit.has_value()) {
      std::string lp = Child(rp, "lendingLimit");
      ValidateLimit(*rq.lending_limit, rules, lp, errs);
      if (rules.lending_within_nominal && *rq.lending_limit > rq.nominal_quota) {
        errs.Invalid(lp, rq.lending_limit->ToString(),
                     "must be less than or equal to the nominalQuota");
      }
    }
  }
}

void ValidateResourceGroups(const std::vector<api::ResourceGroup>& groups, const QuotaRules& rules,
                            const std::string& path, FieldErrors& errs) {
  if (groups.size() > kMaxResourceGroups) errs.TooMany(path, groups.size(), kMaxResourceGroups);
  std::set<std::string_view> seen_resources;
  std::set<std::string_view> seen_flavors;
  for (size_t i = 0; i < groups.size(); ++i) {
    const api::ResourceGroup& rg = groups[i];
    std::string gp = Index(path, i);
    std::string cp = Child(gp, "coveredResources");
    errs.CheckCount(cp, rg.covered_resources.size(), kMaxCoveredResourcesPerGroup);
    for (size_t j = 0; j < rg.covered_resources.size(); ++j) {
      const std::string& name = rg.covered_resources[j];
      std::string rp = Index(cp, j);
      std::string msg = CheckQualifiedName(name);
      if (!msg.empty()) errs.Invalid(rp, name, msg);
      if (!seen_resources.insert(name).second) errs.Duplicate(rp, name);
    }
    std::string fp = Child(gp, "flavors");
    errs.CheckCount(fp, rg.flavors.size(), kMaxFlavorsPerGroup);
    // The CRD's CEL rule on a ResourceGroup.
    for (const api::FlavorQuotas& fq : rg.flavors) {
      if (!fq.resources.empty() && fq.resources.size() != rg.covered_resources.size()) {
        errs.Invalid(gp, "object",
                     "flavors must have the same number of resources as the coveredResources");
        break;
      }
    }
    for (size_t j = 0; j < rg.flavors.size(); ++j) {
      const api::FlavorQuotas& fq = rg.flavors[j];
      std::string p = Index(fp, j);
      ValidateFlavorQuotas(fq, rg.covered_resources, rules, p, errs);
      if (!seen_flavors.insert(fq.name).second) errs.Duplicate(Child(p, "name"), fq.name);
    }
  }
}

// The ClusterQueue webhook's size limits beyond the CRD's per-list ones: all
// flavors together, all covered resources together, and the flavor x resource
// quotas of each group.
void ValidateQuotaTotals(const std::vector<api::ResourceGroup>& groups, const std::string& path,
                         FieldErrors& errs) {
  size_t total_flavors = 0;
  size_t total_resources = 0;
  for (const api::ResourceGroup& rg : groups) {
    total_flavors += rg.flavors.size();
    total_resources += rg.covered_resources.size();
  }
  if (total_flavors > kMaxFlavorsTotal) {
    errs.InvalidNumber(path, static_cast<int64_t>(total_flavors),
                       "total number of flavors across all resourceGroups must be \u2264 " +
                           std::to_string(kMaxFlavorsTotal) + ", got " +
                           std::to_string(total_flavors));
  }
  if (total_resources > kMaxCoveredResourcesTotal) {
    errs.InvalidNumber(
        path, static_cast<int64_t>(total_resources),
        "total number of covered resources across all resourceGroups must be \u2264 " +
            std::to_string(kMaxCoveredResourcesTotal) + ", got " + std::to_string(total_resources));
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    size_t combinations = 0;
    for (const api::FlavorQuotas& fq : groups[i].flavors) combinations += fq.resources.size();
    if (combinations > kMaxFlavorResourcesPerGroup) {
      errs.InvalidNumber(Index(path, i), static_cast<int64_t>(combinations),
                         "number of flavor-resource combinations in a resourceGroup must be "
                         "\u2264 " +
                             std::to_string(kMaxFlavorResourcesPerGroup) + ", got " +
                             std::to_string(combinations));
    }
  }
}

// A preference only applies when both actions try the next flavor.
void ValidateFungibilityPreference(const api::FlavorFungibility& ff, const std::string& path,
                                   FieldErrors& errs) {
  const char* name = nullptr;
  switch (ff.preference) {
    case api::FungibilityPreference::kUnset:
      return;
    case api::FungibilityPreference::kBorrowingOverPreemption:
      name = "BorrowingOverPreemption";
      break;
    case api::FungibilityPreference::kPreemptionOverBorrowing:
      name = "PreemptionOverBorrowing";
      break;
  }
  if (ff.when_can_borrow == api::FungibilityAction::kTryNextFlavor &&
      ff.when_can_preempt == api::FungibilityAction::kTryNextFlavor) {
    return;
  }
  errs.Invalid(Child(path, "preference"), name,
               std::string("preference \"") + name +
                   "\" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor");
}

// admissionChecksStrategy: the CRD's list limits (at most 64 rules, each with
// at most 64 distinct onFlavors), then the webhook's rule that every onFlavors
// entry is a flavor the ClusterQueue has quota for.
//
// On an update (`old` set) of a ClusterQueue whose flavors stay the same, a
// rule whose onFlavors are unchanged is not checked again, so a legacy
// ClusterQueue stored with invalid onFlavors takes unrelated updates (Kueue's
// RejectUpdatesToCQWithInvalidOnFlavors gate, off by default).
std::set<std::string> QuotaFlavorsOf(const api::ClusterQueueSpec& spec) {
  std::set<std::string> out;
  for (const api::ResourceGroup& rg : spec.resource_groups) {
    for (const api::FlavorQuotas& fq : rg.flavors) out.insert(fq.name);
  }
  return out;
}

void ValidateCheckStrategy(const api::ClusterQueueSpec& spec, const api::ClusterQueueSpec* old,
                           FieldErrors& errs) {
  const std::vector<api::AdmissionCheckStrategyRule>& rules = spec.admission_checks_strategy;
  const std::string path = "spec.admissionChecksStrategy.admissionChecks";
  if (rules.size() > kMaxAdmissionCheckRules) {
    errs.TooMany(path, rules.size(), kMaxAdmissionCheckRules);
  }
  const std::set<std::string> quota_flavors = QuotaFlavorsOf(spec);
  const std::vector<std::string> supported(quota_flavors.begin(), quota_flavors.end());
  std::map<std::string, std::set<std::string>> unchecked;  // rule name -> old onFlavors
  if (old != nullptr && !old->admission_checks_strategy.empty() &&
      QuotaFlavorsOf(*old) == quota_flavors) {
    for (const api::AdmissionCheckStrategyRule& rule : old->admission_checks_strategy) {
      unchecked[rule.name] = {rule.on_flavors.begin(), rule.on_flavors.end()};
    }
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    const std::string fp = Child(Index(path, i), "onFlavors");
    const std::vector<std::string>& on = rules[i].on_flavors;
    if (on.size() > kMaxOnFlavors) errs.TooMany(fp, on.size(), kMaxOnFlavors);
    std::set<std::string_view> seen;
    for (size_t j = 0; j < on.size(); ++j) {
      if (!seen.insert(on[j]).second) errs.Duplicate(Index(fp, j), on[j]);
    }
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    auto before = unchecked.find(rules[i].name);
    if (before != unchecked.end() &&
        before->second ==
            std::set<std::string>(rules[i].on_flavors.begin(), rules[i].on_flavors.end())) {
      continue;
    }
    const std::string fp = Child(Index(path, i), "onFlavors");
    for (size_t j = 0; j < rules[i].on_flavors.size(); ++j) {
      const std::string& flavor = rules[i].on_flavors[j];
      if (quota_flavors.count(flavor) == 0) errs.NotSupported(Index(fp, j), flavor, supported);
    }
  }
}

void ValidateFairSharing(const api::FairSharing& fs, const std::string& path, FieldErrors& errs) {
  // Kueue reports this at spec.fairSharing; the weight is the offending field.
  if (fs.weight_set && fs.weight < 0) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%g", fs.weight);
    errs.Invalid(Child(path, "weight"), shown, "must be greater than or equal to 0");
  }
}

}  // namespace

void ValidateClusterQueue(const api::ClusterQueue& cq, std::string_view cohort_path,
                          FieldErrors& errs, const api::ClusterQueue* old) {
  ValidateObjectMeta(cq.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  const api::ClusterQueueSpec& spec = cq.spec;
  ValidateNameReference(spec.cohort, cohort_path, errs);
  QuotaRules rules{.has_parent = !spec.cohort.empty(),
                   .parent_field = "cohort",
                   .lending_within_nominal = true,
                   .borrowing_rule_on_spec = true};
  if (spec.cohort.empty()) {
    // The CRD's CEL rule on ClusterQueueSpec, as kube-apiserver reports it.
    bool borrowing = false;
    for (const api::ResourceGroup& rg : spec.resource_groups) {
      for (const api::FlavorQuotas& fq : rg.flavors) {
        for (const api::ResourceQuota& rq : fq.resources) {
          borrowing |= rq.borrowing_limit.has_value();
        }
      }
    }
    if (borrowing) {
      errs.Invalid("spec", "object", "borrowingLimit must be nil when cohort is empty");
    }
  }
  ValidateResourceGroups(spec.resource_groups, rules, "spec.resourceGroups", errs);
  if (spec.namespace_selector.has_value()) {
    ValidateLabelSelector(*spec.namespace_selector, "spec.namespaceSelector", errs);
  }
  for (size_t i = 0; i < spec.admission_checks.size(); ++i) {
    ValidateNameReference(spec.admission_checks[i], Index("spec.admissionChecks", i), errs);
  }
  for (size_t i = 0; i < spec.admission_checks_strategy.size(); ++i) {
    const api::AdmissionCheckStrategyRule& rule = spec.admission_checks_strategy[i];
    std::string rp = Index("spec.admissionChecksStrategy.admissionChecks", i);
    if (rule.name.empty()) errs.Required(Child(rp, "name"));
    ValidateNameReference(rule.name, Child(rp, "name"), errs);
    for (size_t j = 0; j < rule.on_flavors.size(); ++j) {
      ValidateNameReference(rule.on_flavors[j], Index(Child(rp, "onFlavors"), j), errs);
    }
  }
  if (!spec.admission_checks.empty() && !spec.admission_checks_strategy.empty()) {
    errs.Forbidden("spec",
                   "Either AdmissionChecks or AdmissionCheckStrategy can be set, but not both");
  }
  if (spec.preemption.reclaim_within_cohort == api::ReclaimWithinCohortPolicy::kNever &&
      spec.preemption.borrow_within_cohort.policy != api::BorrowWithinCohortPolicy::kNever) {
    // The CRD's CEL rule on ClusterQueuePreemption.
    errs.Invalid("spec.preemption", "object",
                 "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
  }
  ValidateFungibilityPreference(spec.flavor_fungibility, "spec.flavorFungibility", errs);
  ValidateFairSharing(spec.fair_sharing, "spec.fairSharing", errs);
  ValidateQuotaTotals(spec.resource_groups, "spec.resourceGroups", errs);
  ValidateCheckStrategy(spec, old != nullptr ? &old->spec : nullptr, errs);
}

void ValidateCohort(const api::Cohort& cohort, std::string_view parent_path, FieldErrors& errs) {
  ValidateObjectMeta(cohort.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  ValidateNameReference(cohort.parent_name, parent_path, errs);
  if (!cohort.parent_name.empty() && cohort.parent_name == cohort.metadata.name) {
    errs.Invalid(parent_path, cohort.parent_name, "a Cohort cannot be its own parent");
  }
  QuotaRules rules{.has_parent = !cohort.parent_name.empty(),
                   .parent_field = "parent",
                   .lending_within_nominal = false};
  ValidateResourceGroups(cohort.resource_groups, rules, "spec.resourceGroups", errs);
  ValidateFairSharing(cohort.fair_sharing, "spec.fairSharing", errs);
}

}  // namespace kuota::validation
