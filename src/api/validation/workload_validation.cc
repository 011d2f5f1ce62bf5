// Workload: Kueue's workload webhook and CRD rules (pkg/webhooks/
// workload_webhook.go, apis/kueue/v1beta1/workload_types.go), plus the pod
// template checks that keep the engine's quota and flavor math well defined
// (non-negative requests, valid selector operators). The webhook's
// default-on feature gates of Kueue v0.20 are taken as on:
// WorkloadValidateResourcesAreNonNegative, WorkloadValidationForPodSetMetadata,
// AdmissionGatedBy, PartialAdmission, ElasticJobsViaWorkloadSlices and
// TASValidateWorkloadSliceSize (workload_topology_validation.cc).
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/validation/names.h"
#include "api/validation/validators.h"

namespace kuota::validation {
namespace {

constexpr size_t kMaxPodSets = 8;

// Kueue's constants.AdmissionGatedByAnnotation: a comma-separated list of
// domain-prefixed gate names, each at most 63 bytes (as Job's spec.managedBy).
constexpr std::string_view kAdmissionGatedByAnnotation = "kueue.x-k8s.io/admission-gated-by";
constexpr size_t kMaxAdmissionGateNameLength = 63;
// Kueue's workloadslicing.EnabledAnnotationKey/Value: an elastic job.
constexpr std::string_view kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";

// A pod set's resource list as Kueue's workload webhook sees it: names and
// non-negative amounts, and no `pods`, which Kueue reserves for itself.
void ValidatePodSetResources(const api::ResourceList& list, const std::string& path,
                             FieldErrors& errs) {
  ValidateResourceList(list, path, errs);
  if (list.count("pods") != 0) {
    errs.Invalid(Key(path, "pods"), "pods", "the key is reserved for internal kueue use");
  }
}

void ValidateContainers(const std::vector<api::Container>& containers, const std::string& path,
                        FieldErrors& errs) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const api::Container& c = containers[i];
    std::string cp = Index(path, i);
    if (c.name.empty()) errs.Required(Child(cp, "name"));
    ValidatePodSetResources(c.resources.requests, Child(cp, "resources.requests"), errs);
    ValidatePodSetResources(c.resources.limits, Child(cp, "resources.limits"), errs);
    for (size_t j = 0; j < c.env.size(); ++j) {
      if (c.env[j].name.empty()) errs.Required(Child(Index(Child(cp, "env"), j), "name"));
    }
    if (!c.restart_policy.empty() && c.restart_policy != "Always" &&
        c.restart_policy != "OnFailure" && c.restart_policy != "Never") {
      errs.NotSupported(Child(cp, "restartPolicy"), c.restart_policy,
                        {"Always", "OnFailure", "Never"});
    }
  }
}

void ValidateNodeSelectorRequirements(const std::vector<api::NodeSelectorRequirement>& reqs,
                                      const std::string& path, bool fields, FieldErrors& errs) {
  for (size_t i = 0; i < reqs.size(); ++i) {
    const api::NodeSelectorRequirement& r = reqs[i];
    std::string rp = Index(path, i);
    std::string vp = Child(rp, "values");
    if (fields) {
      // Node field selectors: only metadata.name with In/NotIn and one value.
      if (r.key != "metadata.name") {
        errs.NotSupported(Child(rp, "key"), r.key, {"metadata.name"});
      }
      if (r.op != "In" && r.op != "NotIn") {
        errs.NotSupported(Child(rp, "operator"), r.op, {"In", "NotIn"});
      } else if (r.values.size() != 1) {
        errs.Required(vp,
                      "must be only one value when `operator` is 'In' or 'NotIn' for node "
                      "field selector");
      }
      continue;
    }
    if (r.op == "In" || r.op == "NotIn") {
      if (r.values.empty()) {
        errs.Required(vp, "must be specified when `operator` is 'In' or 'NotIn'");
      }
    } else if (r.op == "Exists" || r.op == "DoesNotExist") {
      if (!r.values.empty()) {
        errs.Forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
    } else if (r.op == "Gt" || r.op == "Lt") {
      if (r.values.size() != 1) {
        errs.Required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'");
      }
    } else {
      errs.Invalid(Child(rp, "operator"), r.op, "not a valid selector operator");
    }
    std::string msg = CheckQualifiedName(r.key);
    if (!msg.empty()) errs.Invalid(Child(rp, "key"), r.key, msg);
  }
}

void ValidatePodSpec(const api::PodSpec& spec, const std::string& path, FieldErrors& errs) {
  if (spec.containers.empty()) errs.Required(Child(path, "containers"));
  ValidateContainers(spec.init_containers, Child(path, "initContainers"), errs);
  ValidateContainers(spec.containers, Child(path, "containers"), errs);
  if (spec.resources.has_value()) {
    ValidatePodSetResources(spec.resources->requests, Child(path, "resources.requests"), errs);
    ValidatePodSetResources(spec.resources->limits, Child(path, "resources.limits"), errs);
  }
  ValidateResourceList(spec.overhead, Child(path, "overhead"), errs);
  ValidateTolerations(spec.tolerations, Child(path, "tolerations"), errs);
  if (spec.node_affinity.required_terms.has_value()) {
    std::string tp = Child(path,
                           "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                           "nodeSelectorTerms");
    const auto& terms = *spec.node_affinity.required_terms;
    if (terms.empty()) errs.Required(tp, "must have at least one node selector term");
    for (size_t i = 0; i < terms.size(); ++i) {
      std::string p = Index(tp, i);
      ValidateNodeSelectorRequirements(terms[i].match_expressions, Child(p, "matchExpressions"),
                                       /*fields=*/false, errs);
      ValidateNodeSelectorRequirements(terms[i].match_fields, Child(p, "matchFields"),
                                       /*fields=*/true, errs);
    }
  }
  if (!spec.restart_policy.empty() && spec.restart_policy != "Always" &&
      spec.restart_policy != "OnFailure" && spec.restart_policy != "Never") {
    errs.NotSupported(Child(path, "restartPolicy"), spec.restart_policy,
                      {"Always", "OnFailure", "Never"});
  }
  ValidateNameReference(spec.priority_class_name, Child(path, "priorityClassName"), errs);
  if (spec.termination_grace_period_seconds.has_value() &&
      *spec.termination_grace_period_seconds < 0) {
    errs.InvalidNumber(Child(path, "terminationGracePeriodSeconds"),
                       *spec.termination_grace_period_seconds,
                       "must be greater than or equal to 0");
  }
  if (spec.active_deadline_seconds.has_value() && *spec.active_deadline_seconds < 1) {
    errs.InvalidNumber(Child(path, "activeDeadlineSeconds"), *spec.active_deadline_seconds,
                       "must be greater than or equal to 1");
  }
}

// Kueue's resources.ResourceValue: CPU in milli-units, everything else in
// whole units rounded up.
int64_t ResourceValue(const std::string& name, api::Quantity q) {
  return name == "cpu" ? q.milli() : q.units_ceil();
}

void ValidateAdmission(const api::Workload& wl, FieldErrors& errs) {
  const api::Admission& admission = *wl.status.admission;
  const std::string path = "status.admission";
  if (admission.cluster_queue.empty()) errs.Required(Child(path, "clusterQueue"));
  ValidateNameReference(admission.cluster_queue, Child(path, "clusterQueue"), errs);
  std::set<std::string_view> names;
  for (const auto& ps : wl.spec.pod_sets) names.insert(ps.name);
  const std::string ap = Child(path, "podSetAssignments");
  if (admission.pod_set_assignments.size() > kMaxPodSets) {
    errs.TooMany(ap, admission.pod_set_assignments.size(), kMaxPodSets);
  }
  // Kueue's webhook checks names and usage only while quota is reserved.
  const bool reserved = api::IsConditionTrue(wl.status.conditions, api::kQuotaReserved);
  if (reserved && admission.pod_set_assignments.size() != wl.spec.pod_sets.size()) {
    // A CEL rule on the Workload's root: kube-apiserver names no field.
    errs.Invalid("<nil>", "object",
                 "podSetAssignments must have the same number of podSets as the spec");
  }
  for (size_t i = 0; i < admission.pod_set_assignments.size(); ++i) {
    const api::PodSetAssignment& psa = admission.pod_set_assignments[i];
    std::string p = Index(ap, i);
    if (reserved && names.count(psa.name) == 0) errs.NotFound(Child(p, "name"), psa.name);
    for (const auto& [resource, flavor] : psa.flavors) {
      ValidateNameReference(flavor, Key(Child(p, "flavors"), resource), errs);
    }
    if (psa.topology_assignment.has_value()) {
      ValidateTopologyAssignment(*psa.topology_assignment, Child(p, "topologyAssignment"), errs);
    }
    std::string up = Child(p, "resourceUsage");
    ValidateResourceList(psa.resource_usage, up, errs);
    if (psa.count.has_value()) {
      int32_t count = *psa.count;
      if (count < 0) {
        errs.InvalidNumber(Child(p, "count"), count, "must be greater than or equal to 0");
      } else if (count > 0 && reserved) {
        for (const auto& [resource, q] : psa.resource_usage) {
          if (ResourceValue(resource, q) % count != 0) {
            errs.Invalid(Key(up, resource), q.ToString(),
                         "is not a multiple of " + std::to_string(count));
          }
        }
      }
    }
  }
}

bool IsElasticJob(const api::Workload& wl) {
  auto it = wl.metadata.annotations.find(std::string(kElasticJobAnnotation));
  return it != wl.metadata.annotations.end() && it->second == "true";
}

bool ReservesQuotaWithoutAdmission(const api::Workload& wl) {
  return api::IsConditionTrue(wl.status.conditions, api::kQuotaReserved) &&
         !wl.status.admission.has_value();
}

// Kueue's isPreexistingStaleCount: an elastic job's reclaimable count the
// update leaves as it was may stay above its scaled-down pod set.
bool IsPreexistingStaleCount(const api::Workload& wl, const api::Workload* old,
                             const api::ReclaimablePod& rp) {
  if (old == nullptr || !IsElasticJob(wl)) return false;
  for (const api::ReclaimablePod& before : old->status.reclaimable_pods) {
    if (before.name == rp.name && before.count == rp.count) return true;
  }
  return false;
}

void ValidateWorkloadStatus(const api::Workload& wl, const api::Workload* old, FieldErrors& errs) {
  const api::WorkloadStatus& status = wl.status;
  if (status.admission.has_value()) {
    ValidateAdmission(wl, errs);
  } else if (ReservesQuotaWithoutAdmission(wl) &&
             (old == nullptr || !ReservesQuotaWithoutAdmission(*old))) {
    // One already like this may be updated (to converge, or to be deleted).
    errs.Required("status.admission", "must be set while the QuotaReserved condition is true");
  }
  ValidateConditions(status.conditions, "status.conditions", errs);
  std::map<std::string_view, int32_t> counts;
  std::vector<std::string> names;
  for (const auto& ps : wl.spec.pod_sets) {
    counts.emplace(ps.name, ps.count);
    names.push_back(ps.name);
  }
  for (const api::ReclaimablePod& rp : status.reclaimable_pods) {
    std::string p = Key("status.reclaimablePods", rp.name);
    auto it = counts.find(rp.name);
    if (it == counts.end()) {
      errs.NotSupported(Child(p, "name"), rp.name, names);
    } else if (rp.count > it->second && !IsPreexistingStaleCount(wl, old, rp)) {
      errs.InvalidNumber(Child(p, "count"), rp.count,
                         "should be less or equal to " + std::to_string(it->second));
    }
    if (rp.count < 0) {
      errs.InvalidNumber(Child(p, "count"), rp.count, "must be greater than or equal to 0");
    }
  }
  for (size_t i = 0; i < status.admission_checks.size(); ++i) {
    const api::AdmissionCheckState& acs = status.admission_checks[i];
    std::string p = Index("status.admissionChecks", i);
    if (acs.name.empty()) errs.Required(Child(p, "name"));
    if (acs.state != "Pending" && acs.state != "Ready" && acs.state != "Retry" &&
        acs.state != "Rejected") {
      errs.NotSupported(Child(p, "state"), acs.state, {"Pending", "Ready", "Retry", "Rejected"});
    }
  }
  if (status.requeue_state.has_value() && status.requeue_state->count.has_value() &&
      *status.requeue_state->count < 0) {
    errs.InvalidNumber("status.requeueState.count", *status.requeue_state->count,
                       "must be greater than or equal to 0");
  }
}

// Go's strings.TrimSpace for the ASCII white space a gate list may carry.
std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// apimachinery's IsDomainPrefixedPath: `host/path`, host a DNS subdomain and
// path made of URL path characters.
void ValidateDomainPrefixedPath(std::string_view value, const std::string& path,
                                FieldErrors& errs) {
  size_t slash = value.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size()) {
    errs.Invalid(path, value, "must be a domain-prefixed path (such as \"acme.io/foo\")");
    return;
  }
  std::string_view host = value.substr(0, slash);
  std::string msg = CheckDns1123Subdomain(host);
  if (!msg.empty()) errs.Invalid(path, host, msg);
  std::string_view rest = value.substr(slash + 1);
  constexpr std::string_view kPathPunctuation = "/-._~%!$&'()*+,;=:";
  for (char ch : rest) {
    bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
              kPathPunctuation.find(ch) != std::string_view::npos;
    if (!ok) {
      errs.Invalid(path, rest,
                   "Invalid path (regex used for validation is "
                   "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
      return;
    }
  }
}

// Kueue's admission-gated-by annotation, when present and not blank: a
// comma-separated list of distinct, non-empty domain-prefixed gate names.
void ValidateAdmissionGatedBy(const api::ObjectMeta& meta, FieldErrors& errs) {
  auto it = meta.annotations.find(std::string(kAdmissionGatedByAnnotation));
  if (it == meta.annotations.end()) return;
  const std::string& value = it->second;
  if (TrimSpace(value).empty()) return;
  const std::string path = Key("metadata.annotations", kAdmissionGatedByAnnotation);
  std::set<std::string_view> seen;
  std::string_view rest = value;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view gate = TrimSpace(rest.substr(0, comma));
    if (gate.empty()) {
      errs.Invalid(path, value, "cannot contain empty gate names");
    } else if (!seen.insert(gate).second) {
      errs.Invalid(path, value, "duplicate gate name: " + std::string(gate));
    } else {
      ValidateDomainPrefixedPath(gate, path, errs);
      if (gate.size() > kMaxAdmissionGateNameLength) {
        errs.TooLong(path, kMaxAdmissionGateNameLength);
      }
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
}

}  // namespace

void ValidateWorkload(const api::Workload& wl, std::string_view priority_class_path,
                      FieldErrors& errs, const WorkloadRuleOptions& options) {
  ValidateObjectMeta(wl.metadata, NameRule::kDns1123Subdomain, /*namespaced=*/true, errs);
  const api::WorkloadSpec& spec = wl.spec;
  errs.CheckCount("spec.podSets", spec.pod_sets.size(), kMaxPodSets);
  std::set<std::string_view> names;
  int64_t min_count_pod_sets = 0;
  for (size_t i = 0; i < spec.pod_sets.size(); ++i) {
    const api::PodSet& ps = spec.pod_sets[i];
    std::string p = Index("spec.podSets", i);
    std::string msg = CheckDns1123Label(ps.name);
    if (!msg.empty()) errs.Invalid(Child(p, "name"), ps.name, msg);
    if (!names.insert(ps.name).second) errs.Duplicate(Child(p, "name"), ps.name);
    if (ps.count < 0) {
      errs.InvalidNumber(Child(p, "count"), ps.count, "must be greater than or equal to 0");
    }
    if (ps.min_count.has_value()) {
      ++min_count_pod_sets;
      if (*ps.min_count < 1 || *ps.min_count > ps.count) {
        errs.InvalidNumber(Child(p, "minCount"), *ps.min_count,
                           "minCount should be positive and less or equal to count");
      }
    }
    std::string tp = Child(p, "template");
    ValidateLabels(ps.template_.labels, Child(tp, "metadata.labels"), errs);
    ValidateAnnotations(ps.template_.annotations, Child(tp, "metadata.annotations"), errs);
    ValidatePodSpec(ps.template_.spec, Child(tp, "spec"), errs);
    if (ps.topology_request.has_value()) {
      ValidatePodSetTopologyRequest(*ps.topology_request, Child(p, "topologyRequest"), errs);
    }
  }
  if (min_count_pod_sets > 1 && !options.allow_several_min_count_pod_sets) {
    errs.InvalidNumber("spec.podSets", min_count_pod_sets, "at most one podSet can use minCount");
  }
  // Partial admission is never allowed in an elastic job (workload slices).
  if (min_count_pod_sets > 0) {
    auto elastic = wl.metadata.annotations.find(std::string(kElasticJobAnnotation));
    if (elastic != wl.metadata.annotations.end() && elastic->second == "true") {
      errs.InvalidNumber("spec.podSets", min_count_pod_sets,
                         "partial admission and elastic job cannot be used together");
    }
  }
  ValidateNameReference(spec.queue_name, "spec.queueName", errs);
  ValidateNameReference(spec.priority_class_name, priority_class_path, errs);
  if (!spec.priority_class_source.empty() &&
      spec.priority_class_source != api::kWorkloadPriorityClassSource &&
      spec.priority_class_source != api::kPodPriorityClassSource) {
    errs.NotSupported("spec.priorityClassSource", spec.priority_class_source,
                      {api::kWorkloadPriorityClassSource, api::kPodPriorityClassSource, ""});
  }
  if (spec.maximum_execution_time_seconds.has_value() && *spec.maximum_execution_time_seconds < 1) {
    errs.InvalidNumber("spec.maximumExecutionTimeSeconds", *spec.maximum_execution_time_seconds,
                       "must be greater than or equal to 1");
  }
  ValidateWorkloadStatus(wl, options.old, errs);
  ValidateAdmissionGatedBy(wl.metadata, errs);
}

}  // namespace kuota::validation
