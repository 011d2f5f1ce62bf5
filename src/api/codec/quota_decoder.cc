// Decoders of ClusterQueue and Cohort, and of the quota table (resource
// groups) and fair-sharing weight they share, with Kueue's CRD defaults.
#include "api/codec/decoders.h"
#include "api/codec/policy_names.h"

namespace kuota::codec {
namespace {

using api::BorrowWithinCohortPolicy;
using api::FungibilityAction;
using api::FungibilityPreference;
using api::QueueingStrategy;
using api::StopPolicy;

Status DecodeResourceQuota(MapReader& r, api::ResourceQuota& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "nominalQuota"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.Quantity("nominalQuota", out.nominal_quota));
  KUOTA_RETURN_IF_ERROR(r.OptQuantity("borrowingLimit", out.borrowing_limit));
  return r.OptQuantity("lendingLimit", out.lending_limit);
}

Status DecodeFlavorQuotas(MapReader& r, api::FlavorQuotas& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "resources"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  return r.ObjectList("resources", out.resources, DecodeResourceQuota);
}

Status DecodeBorrowWithinCohort(MapReader& r, api::BorrowWithinCohort& out) {
  KUOTA_RETURN_IF_ERROR(r.Enum<BorrowWithinCohortPolicy>(
      "policy", out.policy,
      {{"Never", BorrowWithinCohortPolicy::kNever},
       {"LowerPriority", BorrowWithinCohortPolicy::kLowerPriority}}));
  return r.OptInt32("maxPriorityThreshold", out.max_priority_threshold);
}

Status DecodePreemption(MapReader& r, api::ClusterQueuePreemption& out) {
  KUOTA_RETURN_IF_ERROR(
      r.Enum("reclaimWithinCohort", out.reclaim_within_cohort, kReclaimWithinCohortNames));
  KUOTA_RETURN_IF_ERROR(
      r.Enum("withinClusterQueue", out.within_cluster_queue, kWithinClusterQueueNames));
  return r.Object("borrowWithinCohort", out.borrow_within_cohort, DecodeBorrowWithinCohort);
}

template <bool kV1beta2>
Status DecodeFlavorFungibility(MapReader& r, api::FlavorFungibility& out) {
  // v1beta1 also takes "Borrow" and "Preempt", the deprecated names of
  // MayStopSearch, which v1beta2 dropped.
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(
        r.Enum<FungibilityAction>("whenCanBorrow", out.when_can_borrow,
                                  {{"MayStopSearch", FungibilityAction::kMayStopSearch},
                                   {"TryNextFlavor", FungibilityAction::kTryNextFlavor}}));
    KUOTA_RETURN_IF_ERROR(
        r.Enum<FungibilityAction>("whenCanPreempt", out.when_can_preempt,
                                  {{"MayStopSearch", FungibilityAction::kMayStopSearch},
                                   {"TryNextFlavor", FungibilityAction::kTryNextFlavor}}));
  } else {
    KUOTA_RETURN_IF_ERROR(
        r.Enum<FungibilityAction>("whenCanBorrow", out.when_can_borrow,
                                  {{"MayStopSearch", FungibilityAction::kMayStopSearch},
                                   {"TryNextFlavor", FungibilityAction::kTryNextFlavor},
                                   {"Borrow", FungibilityAction::kMayStopSearch}}));
    KUOTA_RETURN_IF_ERROR(
        r.Enum<FungibilityAction>("whenCanPreempt", out.when_can_preempt,
                                  {{"MayStopSearch", FungibilityAction::kMayStopSearch},
                                   {"TryNextFlavor", FungibilityAction::kTryNextFlavor},
                                   {"Preempt", FungibilityAction::kMayStopSearch}}));
  }
  return r.Enum<FungibilityPreference>(
      "preference", out.preference,
      {{"BorrowingOverPreemption", FungibilityPreference::kBorrowingOverPreemption},
       {"PreemptionOverBorrowing", FungibilityPreference::kPreemptionOverBorrowing}});
}

Status DecodeAdmissionCheckStrategyRule(MapReader& r, api::AdmissionCheckStrategyRule& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  return r.StringList("onFlavors", out.on_flavors);
}

Status DecodeAdmissionChecksStrategy(MapReader& r,
                                     std::vector<api::AdmissionCheckStrategyRule>& out) {
  return r.ObjectList("admissionChecks", out, DecodeAdmissionCheckStrategyRule);
}

// v1beta2 renames spec.cohort to spec.cohortName and drops spec.admissionChecks
// (its rules are spec.admissionChecksStrategy without onFlavors).
template <bool kV1beta2>
Status DecodeClusterQueueSpec(MapReader& r, api::ClusterQueueSpec& out) {
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(r.Removed("cohort", "kueue.x-k8s.io/v1beta2 names it spec.cohortName"));
    KUOTA_RETURN_IF_ERROR(r.Removed(
        "admissionChecks",
        "kueue.x-k8s.io/v1beta2 lists them in spec.admissionChecksStrategy.admissionChecks"));
    KUOTA_RETURN_IF_ERROR(r.String("cohortName", out.cohort));
  } else {
    KUOTA_RETURN_IF_ERROR(r.String("cohort", out.cohort));
  }
  KUOTA_RETURN_IF_ERROR(r.ObjectList("resourceGroups", out.resource_groups, DecodeResourceGroup));
  KUOTA_RETURN_IF_ERROR(
      r.Enum<QueueingStrategy>("queueingStrategy", out.queueing_strategy,
                               {{"BestEffortFIFO", QueueingStrategy::kBestEffortFIFO},
                                {"StrictFIFO", QueueingStrategy::kStrictFIFO}}));
  // Absent (or null) matches no namespace; `{}` matches all (Kueue's rule).
  KUOTA_RETURN_IF_ERROR(
      r.OptObject("namespaceSelector", out.namespace_selector, DecodeLabelSelector));
  KUOTA_RETURN_IF_ERROR(
      r.Object("flavorFungibility", out.flavor_fungibility, DecodeFlavorFungibility<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.Object("preemption", out.preemption, DecodePreemption));
  if constexpr (!kV1beta2) {
    KUOTA_RETURN_IF_ERROR(r.StringList("admissionChecks", out.admission_checks));
  }
  KUOTA_RETURN_IF_ERROR(r.Object("admissionChecksStrategy", out.admission_checks_strategy,
                                 DecodeAdmissionChecksStrategy));
  KUOTA_RETURN_IF_ERROR(DecodeStopPolicy(r, out.stop_policy));
  KUOTA_RETURN_IF_ERROR(r.Object("fairSharing", out.fair_sharing, DecodeFairSharing));
  KUOTA_RETURN_IF_ERROR(r.Object("admissionScope", out, [](MapReader& s, auto& spec) {
    KUOTA_RETURN_IF_ERROR(s.Require("admissionMode"));
    return s.Enum<bool>(
        "admissionMode", spec.usage_based_admission_fair_sharing,
        {{"UsageBasedAdmissionFairSharing", true}, {"NoAdmissionFairSharing", false}});
  }));
  r.Ignore({"excludeResourcePrefixes"});
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeClusterQueueAs(MapReader& r, api::ClusterQueue& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out.spec, DecodeClusterQueueSpec<kV1beta2>));
  r.Ignore({"status"});
  return Status::Ok();
}

template <bool kAlpha>
Status DecodeCohortSpec(MapReader& r, api::Cohort& out) {
  KUOTA_RETURN_IF_ERROR(r.String(kAlpha ? "parent" : "parentName", out.parent_name));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("resourceGroups", out.resource_groups, DecodeResourceGroup));
  return r.Object("fairSharing", out.fair_sharing, DecodeFairSharing);
}

template <bool kAlpha>
Status DecodeCohort(MapReader& r, api::Cohort& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out, DecodeCohortSpec<kAlpha>));
  r.Ignore({"status"});
  return Status::Ok();
}

}  // namespace

Status DecodeStopPolicy(MapReader& r, StopPolicy& out) {
  return r.Enum<StopPolicy>("stopPolicy", out,
                            {{"None", StopPolicy::kNone},
                             {"Hold", StopPolicy::kHold},
                             {"HoldAndDrain", StopPolicy::kHoldAndDrain}});
}

Status DecodeResourceGroup(MapReader& r, api::ResourceGroup& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"coveredResources", "flavors"}));
  KUOTA_RETURN_IF_ERROR(r.StringList("coveredResources", out.covered_resources));
  return r.ObjectList("flavors", out.flavors, DecodeFlavorQuotas);
}

Status DecodeFairSharing(MapReader& r, api::FairSharing& out) {
  // weight is a resource.Quantity: "2", "0.5", 1, "500m".
  std::optional<api::Quantity> weight;
  KUOTA_RETURN_IF_ERROR(r.OptQuantity("weight", weight));
  if (weight.has_value()) {
    out.weight = static_cast<double>(weight->milli()) / 1000.0;
    out.weight_set = true;
  }
  return Status::Ok();
}

Status DecodeClusterQueue(MapReader& r, api::ClusterQueue& out) {
  return DecodeClusterQueueAs<false>(r, out);
}

Status DecodeClusterQueueV1beta2(MapReader& r, api::ClusterQueue& out) {
  return DecodeClusterQueueAs<true>(r, out);
}

Status DecodeCohortV1beta1(MapReader& r, api::Cohort& out) { return DecodeCohort<false>(r, out); }

Status DecodeCohortV1alpha1(MapReader& r, api::Cohort& out) { return DecodeCohort<true>(r, out); }

}  // namespace kuota::codec
