// Validate(): dispatch by kind, and the validators of the small kinds
// (ResourceFlavor, LocalQueue, priority classes, AdmissionCheck, Namespace,
// Configuration).
#include "api/validation/validate.h"

#include <string>
#include <type_traits>
#include <variant>

#include "api/validation/names.h"
#include "api/validation/validators.h"

namespace kuota::validation {
namespace {

constexpr size_t kMaxNodeLabels = 8;
constexpr size_t kMaxNodeTaints = 8;
constexpr size_t kMaxFlavorTolerations = 8;
// scheduling.k8s.io: user-defined priority classes may not exceed 1e9.
constexpr int32_t kHighestUserDefinablePriority = 1'000'000'000;

Status NameStatus(std::string_view value, std::string_view field_path, bool label) {
  FieldErrors errs;
  if (value.empty()) {
    errs.Required(field_path);
  } else {
    std::string msg = label ? CheckDns1123Label(value) : CheckDns1123Subdomain(value);
    if (!msg.empty()) errs.Invalid(field_path, value, msg);
  }
  return errs.ToStatus();
}

}  // namespace

void ValidateResourceFlavor(const api::ResourceFlavor& rf, FieldErrors& errs) {
  ValidateObjectMeta(rf.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  if (rf.node_labels.size() > kMaxNodeLabels) {
    errs.TooMany("spec.nodeLabels", rf.node_labels.size(), kMaxNodeLabels);
  }
  ValidateLabels(rf.node_labels, "spec.nodeLabels", errs);
  if (rf.node_taints.size() > kMaxNodeTaints) {
    errs.TooMany("spec.nodeTaints", rf.node_taints.size(), kMaxNodeTaints);
  }
  ValidateTaints(rf.node_taints, "spec.nodeTaints", errs);
  if (rf.tolerations.size() > kMaxFlavorTolerations) {
    errs.TooMany("spec.tolerations", rf.tolerations.size(), kMaxFlavorTolerations);
  }
  ValidateTolerations(rf.tolerations, "spec.tolerations", errs);
  ValidateNameReference(rf.topology_name, "spec.topologyName", errs);
  if (!rf.topology_name.empty() && rf.node_labels.empty()) {
    // Kueue's CEL rule on ResourceFlavorSpec, as kube-apiserver reports it.
    errs.Invalid("spec", "object", "at least one nodeLabel is required when topology is set");
  }
}

void ValidateLocalQueue(const api::LocalQueue& lq, FieldErrors& errs) {
  // LocalQueue names are DNS subdomains (Kueue's LocalQueueName type and the
  // API server's rule for custom resources).
  ValidateObjectMeta(lq.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/true, errs);
  if (lq.cluster_queue.empty()) {
    errs.Required("spec.clusterQueue");
  } else {
    ValidateNameReference(lq.cluster_queue, "spec.clusterQueue", errs);
  }
}

void ValidateWorkloadPriorityClass(const api::WorkloadPriorityClass& wpc, FieldErrors& errs) {
  // value is an int32; the decoder rejects anything outside that range.
  ValidateObjectMeta(wpc.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
}

void ValidatePriorityClass(const api::PriorityClass& pc, FieldErrors& errs) {
  ValidateObjectMeta(pc.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  const std::string& name = pc.metadata.name;
  bool system = name == "system-node-critical" || name == "system-cluster-critical";
  if (!system && name.rfind("system-", 0) == 0) {
    errs.Forbidden("metadata.name", "priority class names with 'system-' prefix are reserved");
  }
  if (!system && pc.value > kHighestUserDefinablePriority) {
    errs.Forbidden("value", "maximum allowed value of a user defined priority is " +
                                std::to_string(kHighestUserDefinablePriority));
  }
  if (!pc.preemption_policy.empty() && pc.preemption_policy != "PreemptLowerPriority" &&
      pc.preemption_policy != "Never") {
    errs.NotSupported("preemptionPolicy", pc.preemption_policy, {"Never", "PreemptLowerPriority"});
  }
}

void ValidateAdmissionCheck(const api::AdmissionCheck& ac, FieldErrors& errs) {
  ValidateObjectMeta(ac.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/false, errs);
  if (ac.controller_name.empty()) errs.Required("spec.controllerName");
  if (ac.retry_delay_minutes.has_value() && *ac.retry_delay_minutes < 0) {
    errs.InvalidNumber("spec.retryDelayMinutes", *ac.retry_delay_minutes,
                       "must be greater than or equal to 0");
  }
  ValidateConditions(ac.conditions, "status.conditions", errs);
}

void ValidateNamespace(const api::Namespace& ns, FieldErrors& errs) {
  ValidateObjectMeta(ns.metadata, NameRule::kDns1123Label, /*namespaced=*/false, errs);
}

void ValidateConfiguration(const api::Configuration& config, FieldErrors& errs) {
  // pkg/config/validation.go: only these strategy lists are accepted.
  using S = api::FairSharingStrategy;
  const auto& strategies = config.fair_sharing.preemption_strategies;
  bool valid =
      strategies == std::vector<S>{S::kLessThanOrEqualToFinalShare} ||
      strategies == std::vector<S>{S::kLessThanInitialShare} ||
      strategies == std::vector<S>{S::kLessThanOrEqualToFinalShare, S::kLessThanInitialShare};
  if (!valid) {
    std::string shown;
    for (S s : strategies) {
      if (!shown.empty()) shown += ",";
      shown +=
          s == S::kLessThanInitialShare ? "LessThanInitialShare" : "LessThanOrEqualToFinalShare";
    }
    errs.NotSupported("fairSharing.preemptionStrategies", shown,
                      {"LessThanOrEqualToFinalShare", "LessThanInitialShare",
                       "LessThanOrEqualToFinalShare,LessThanInitialShare"});
  }
  const api::WaitForPodsReady& w = config.wait_for_pods_ready;
  if (!w.enable) return;  // Kueue ignores the rest of waitForPodsReady when disabled
  if (w.timeout.ms < 0) {
    errs.InvalidNumber("waitForPodsReady.timeout", w.timeout.ms,
                       "must be greater than or equal to 0");
  }
  if (w.recovery_timeout.has_value() && w.recovery_timeout->ms < 0) {
    errs.InvalidNumber("waitForPodsReady.recoveryTimeout", w.recovery_timeout->ms,
                       "must be greater than or equal to 0");
  }
  const api::RequeuingStrategy& r = w.requeuing_strategy;
  const std::string rp = "waitForPodsReady.requeuingStrategy";
  if (r.backoff_limit_count.has_value() && *r.backoff_limit_count < 0) {
    errs.InvalidNumber(Child(rp, "backoffLimitCount"), *r.backoff_limit_count,
                       "must be greater than or equal to 0");
  }
  if (r.backoff_base_seconds < 0) {
    errs.InvalidNumber(Child(rp, "backoffBaseSeconds"), r.backoff_base_seconds,
                       "must be greater than or equal to 0");
  }
  if (r.backoff_max_seconds < 0) {
    errs.InvalidNumber(Child(rp, "backoffMaxSeconds"), r.backoff_max_seconds,
                       "must be greater than or equal to 0");
  }
}

Status Validate(const api::Object& object, const ValidateOptions& options) {
  FieldErrors errs;
  errs.check_names = options.check_names;
  // v1beta2 objects (read by codec with v1beta2's field names) are named
  // by their own paths where the two versions differ.
  const bool v1beta2 = object.api_version == "kueue.x-k8s.io/v1beta2";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, api::ResourceFlavor>) {
          ValidateResourceFlavor(v, errs);
        } else if constexpr (std::is_same_v<T, api::ClusterQueue>) {
          const api::ClusterQueue* old_cq =
              options.old != nullptr ? std::get_if<api::ClusterQueue>(&options.old->value)
                                     : nullptr;
          ValidateClusterQueue(v, v1beta2 ? "spec.cohortName" : "spec.cohort", errs, old_cq);
        } else if constexpr (std::is_same_v<T, api::Cohort>) {
          bool alpha = object.api_version == "kueue.x-k8s.io/v1alpha1";
          ValidateCohort(v, alpha ? "spec.parent" : "spec.parentName", errs);
        } else if constexpr (std::is_same_v<T, api::LocalQueue>) {
          ValidateLocalQueue(v, errs);
        } else if constexpr (std::is_same_v<T, api::WorkloadPriorityClass>) {
          ValidateWorkloadPriorityClass(v, errs);
        } else if constexpr (std::is_same_v<T, api::PriorityClass>) {
          ValidatePriorityClass(v, errs);
        } else if constexpr (std::is_same_v<T, api::AdmissionCheck>) {
          ValidateAdmissionCheck(v, errs);
        } else if constexpr (std::is_same_v<T, api::Namespace>) {
          ValidateNamespace(v, errs);
        } else if constexpr (std::is_same_v<T, api::Workload>) {
          WorkloadRuleOptions wopts;
          wopts.allow_several_min_count_pod_sets = options.allow_several_min_count_pod_sets;
          if (options.old != nullptr) wopts.old = std::get_if<api::Workload>(&options.old->value);
          ValidateWorkload(v, v1beta2 ? "spec.priorityClassRef.name" : "spec.priorityClassName",
                           errs, wopts);
        } else if constexpr (std::is_same_v<T, api::Configuration>) {
          ValidateConfiguration(v, errs);
        } else if constexpr (std::is_same_v<T, api::Topology>) {
          ValidateTopology(v, errs);
        } else if constexpr (std::is_same_v<T, api::Node>) {
          ValidateNode(v, errs);
        } else if constexpr (std::is_same_v<T, api::Pod>) {
          ValidatePod(v, errs);
        } else {
          static_assert(!sizeof(T), "every api::ObjectValue alternative needs a validator");
        }
      },
      object.value);
  return errs.ToStatus();
}

Status ValidateDns1123Subdomain(std::string_view value, std::string_view field_path) {
  return NameStatus(value, field_path, /*label=*/false);
}

Status ValidateDns1123Label(std::string_view value, std::string_view field_path) {
  return NameStatus(value, field_path, /*label=*/true);
}

}  // namespace kuota::validation
