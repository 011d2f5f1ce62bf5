// The per-kind validators behind Validate(), and the checks shared by the
// pieces several kinds embed (metadata, label selectors, taints, tolerations,
// resource lists). Each appends Kubernetes-style field errors to `errs`.
// Internal to kuota_validation. Stateless functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "api/validation/field_errors.h"

namespace kuota::validation {

enum class NameRule { kDns1123Subdomain, kDns1123Label };

// metadata.name (or generateName), namespace, labels, annotations,
// finalizers and ownerReferences. `namespaced` kinds may carry a namespace.
void ValidateObjectMeta(const api::ObjectMeta& meta, NameRule rule, bool namespaced,
                        FieldErrors& errs);
void ValidateLabels(const api::Labels& labels, std::string_view path, FieldErrors& errs);
// apimachinery's ValidateAnnotations: keys are qualified names (case aside),
// and keys plus values total at most 256 KiB.
void ValidateAnnotations(const api::Labels& annotations, std::string_view path, FieldErrors& errs);
void ValidateLabelSelector(const api::LabelSelector& selector, std::string_view path,
                           FieldErrors& errs);
void ValidateTaints(const std::vector<api::Taint>& taints, std::string_view path,
                    FieldErrors& errs);
void ValidateTolerations(const std::vector<api::Toleration>& tolerations, std::string_view path,
                         FieldErrors& errs);
// Resource names are qualified names; amounts must not be negative.
void ValidateResourceList(const api::ResourceList& list, std::string_view path, FieldErrors& errs);
// `must be greater than or equal to 0` when q is negative.
void ValidateNonNegative(api::Quantity q, std::string_view path, FieldErrors& errs);
// A reference to another object by name (a DNS subdomain), when set.
void ValidateNameReference(std::string_view name, std::string_view path, FieldErrors& errs);
void ValidateConditions(const std::vector<api::Condition>& conditions, std::string_view path,
                        FieldErrors& errs);

void ValidateResourceFlavor(const api::ResourceFlavor& rf, FieldErrors& errs);
// `cohort_path` is "spec.cohort" (v1beta1) or "spec.cohortName" (v1beta2).
// `old`: the stored ClusterQueue on update (see ValidateOptions::old).
void ValidateClusterQueue(const api::ClusterQueue& cq, std::string_view cohort_path,
                          FieldErrors& errs, const api::ClusterQueue* old = nullptr);
// `parent_path` is "spec.parentName" (v1beta1) or "spec.parent" (v1alpha1).
void ValidateCohort(const api::Cohort& cohort, std::string_view parent_path, FieldErrors& errs);
void ValidateLocalQueue(const api::LocalQueue& lq, FieldErrors& errs);
// `priority_class_path` is "spec.priorityClassName" (v1beta1) or
// "spec.priorityClassRef.name" (v1beta2). The options' meaning is
// ValidateOptions'.
struct WorkloadRuleOptions {
  bool allow_several_min_count_pod_sets = false;
  const api::Workload* old = nullptr;  // the stored Workload on update
};
void ValidateWorkload(const api::Workload& wl, std::string_view priority_class_path,
                      FieldErrors& errs, const WorkloadRuleOptions& options = {});
void ValidateWorkloadPriorityClass(const api::WorkloadPriorityClass& wpc, FieldErrors& errs);
void ValidatePriorityClass(const api::PriorityClass& pc, FieldErrors& errs);
void ValidateAdmissionCheck(const api::AdmissionCheck& ac, FieldErrors& errs);
void ValidateNamespace(const api::Namespace& ns, FieldErrors& errs);
void ValidateConfiguration(const api::Configuration& config, FieldErrors& errs);
void ValidateTopology(const api::Topology& topology, FieldErrors& errs);
// A Workload's topology fields at `path` (workload_topology_validation.cc).
void ValidatePodSetTopologyRequest(const api::PodSetTopologyRequest& request,
                                   const std::string& path, FieldErrors& errs);
void ValidateTopologyAssignment(const api::TopologyAssignment& assignment, const std::string& path,
                                FieldErrors& errs);
void ValidateNode(const api::Node& node, FieldErrors& errs);
void ValidatePod(const api::Pod& pod, FieldErrors& errs);

}  // namespace kuota::validation
