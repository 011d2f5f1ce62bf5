// Validate(): dispatch by kind, and the validators of the small kinds
// (ResourceFlavor, LocalQueue, priority classes, AdmissionCheck, Namespace,
// Configuration).
#include "api/validation/validate.h"

#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

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

bool IsFlavorTaintEffect(const std::string& effect) {
  return effect == "NoSchedule" || effect == "PreferNoSchedule" || effect == "NoExecute";
}

// A ResourceFlavor's nodeTaints as Kueue checks them: the CRD (key and
// effect required, a CEL rule on the effects of the list), then the webhook's
// validateNodeTaints (key and value syntax, one taint per key and effect).
void ValidateFlavorTaints(const std::vector<api::Taint>& taints, FieldErrors& errs) {
  const std::string path = "spec.nodeTaints";
  bool bad_effect = false;
  for (size_t i = 0; i < taints.size(); ++i) {
    if (taints[i].effect.empty()) {
      errs.Required(Child(Index(path, i), "effect"));
    } else if (!IsFlavorTaintEffect(taints[i].effect)) {
      bad_effect = true;
    }
  }
  if (bad_effect) {
    errs.Invalid(path, "array",
                 "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
  }
  std::set<std::pair<std::string_view, std::string_view>> seen;  // (effect, key)
  for (size_t i = 0; i < taints.size(); ++i) {
    const api::Taint& t = taints[i];
    const std::string tp = Index(path, i);
    std::string msg = CheckQualifiedName(t.key);
    if (!msg.empty()) errs.Invalid(Child(tp, "key"), t.key, msg);
    msg = CheckLabelValue(t.value);
    if (!msg.empty()) errs.Invalid(Child(tp, "value"), t.value, msg);
    if (!seen.emplace(t.effect, t.key).second) {
      errs.Duplicate(tp, t.key + ":" + t.effect, "taints must be unique by key and effect pair");
    }
  }
}

// A ResourceFlavor's tolerations as Kueue checks them: the CRD's CEL rules on
// the list (one error per rule, at spec.tolerations), then the webhook's
// validateTolerations (a key is a label name).
void ValidateFlavorTolerations(const std::vector<api::Toleration>& tolerations, FieldErrors& errs) {
  const std::string path = "spec.tolerations";
  bool keyless = false, seconds = false, op = false, exists_value = false, effect = false;
  for (const api::Toleration& t : tolerations) {
    keyless |= t.key.empty() && t.op != "Exists";
    seconds |= t.toleration_seconds.has_value() && t.effect != "NoExecute";
    op |= !t.op.empty() && t.op != "Equal" && t.op != "Exists";
    exists_value |= t.op == "Exists" && !t.value.empty();
    effect |= !t.effect.empty() && !IsFlavorTaintEffect(t.effect);
  }
  if (keyless) {
    errs.Invalid(path, "array",
                 "operator must be Exists when 'key' is empty, which means 'match all values and "
                 "all keys'");
  }
  if (seconds) {
    errs.Invalid(path, "array", "effect must be 'NoExecute' when 'tolerationSeconds' is set");
  }
  if (op) errs.Invalid(path, "array", "supported toleration values: 'Equal'(default), 'Exists'");
  if (exists_value) {
    errs.Invalid(path, "array", "a value must be empty when 'operator' is 'Exists'");
  }
  if (effect) {
    errs.Invalid(path, "array",
                 "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
  }
  for (size_t i = 0; i < tolerations.size(); ++i) {
    if (tolerations[i].key.empty()) continue;
    std::string msg = CheckQualifiedName(tolerations[i].key);
    if (!msg.empty()) errs.Invalid(Child(Index(path, i), "key"), tolerations[i].key, msg);
  }
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
  ValidateFlavorTaints(rf.node_taints, errs);
  if (rf.tolerations.size() > kMaxFlavorTolerations) {
    errs.TooMany("spec.tolerations", rf.tolerations.size(), kMaxFlavorTolerations);
  }
  ValidateFlavorTolerations(rf.tolerations, errs);
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
