// Kueue's plain-Pod integration (framework "pod"): the labels, annotations
// and scheduling gate Kueue puts on the pods it manages, its pod webhook's
// defaulting and validation, a pod's role (which pod set it belongs to) and
// how an admitted pod is ungated with its flavor's node labels. A plain pod
// is both the job and its only pod; pod groups are in pod_group.h. Not a
// JobKind: the API serves Pods itself. Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "jobs/job_kind.h"

namespace kuota::jobs {

inline constexpr const char* kPodFramework = "pod";
inline constexpr const char* kAdmissionGate = "kueue.x-k8s.io/admission";
inline constexpr const char* kManagedLabel = "kueue.x-k8s.io/managed";
inline constexpr const char* kPodGroupNameLabel = "kueue.x-k8s.io/pod-group-name";
inline constexpr const char* kPodGroupTotalCountAnnotation = "kueue.x-k8s.io/pod-group-total-count";
inline constexpr const char* kRoleHashAnnotation = "kueue.x-k8s.io/role-hash";
inline constexpr const char* kRetriableInGroupAnnotation = "kueue.x-k8s.io/retriable-in-group";
inline constexpr const char* kIsGroupWorkloadAnnotation = "kueue.x-k8s.io/is-group-workload";
inline constexpr const char* kPodGroupFastAdmissionAnnotation =
    "kueue.x-k8s.io/pod-group-fast-admission";
inline constexpr const char* kPodGroupServingAnnotation = "kueue.x-k8s.io/pod-group-serving";
// Set on a pod template by the webhook of a kind whose pods Kueue manages as
// plain pods (deployment, statefulset, ...): the pod is managed even though
// a controller owns it.
inline constexpr const char* kPodSuspendingParentAnnotation =
    "kueue.x-k8s.io/pod-suspending-parent";

// Whether the pod integration may manage `pod` at all: it names a queue (the
// label) and no controller owns it (a Job's pods follow their Job instead),
// unless its parent's webhook marked it (kueue.x-k8s.io/pod-suspending-parent).
bool IsPodIntegrationCandidate(const Json& pod);
// Whether Kueue's webhook marked `pod` as managed (kueue.x-k8s.io/managed).
bool IsManagedPod(const Json& pod);

// Kueue's pod webhook on a managed pod: Ok, or Invalid naming the field
// ("metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: ...") when a
// group pod lacks a positive integer total count, or when its topology
// annotations are not as Kueue accepts them
// ("metadata.annotations[kueue.x-k8s.io/podset-slice-size]: ...").
Status ValidateManagedPod(const Json& pod);
// Kueue's pod webhook on create of a managed pod: the admission scheduling
// gate, the managed label, for a group pod its role hash annotation, and,
// when kueue.x-k8s.io/pod-group-pod-index-label names another label, that
// label's value copied into kueue.x-k8s.io/pod-group-pod-index.
void DefaultManagedPodOnCreate(Json& pod);

// The pod's group (label), or "" for a single pod.
std::string PodGroupName(const Json& pod);
// The group's size from the annotation; 0 when absent or not a positive integer.
int64_t PodGroupTotalCount(const Json& pod);
// The pod's role: a hash of the parts of its spec that decide how it is
// scheduled (containers, resources, selectors, tolerations, ...), without the
// scheduling gates and what admission injects. The annotation when present.
std::string PodRoleHash(const Json& pod);

std::string PodPhase(const Json& pod);
bool PodIsTerminal(const Json& pod);  // Succeeded or Failed
bool PodIsDeleting(const Json& pod);  // has metadata.deletionTimestamp
// Whether the admission gate is still on the pod.
bool PodIsGated(const Json& pod);

// The pod set template for `pod`: its labels and annotations (Kueue's own
// removed) and its spec without the admission gate.
Json PodSetTemplateOf(const Json& pod);
// The Workload's priority fields from the pod: the priority-class label
// (a WorkloadPriorityClass), else spec.priorityClassName.
void SetPodPriority(const Json& pod, Json& workload);

// The Workload pod set `name` of count 1 made from `pod`: its template
// (PodSetTemplateOf) and the topologyRequest its annotations ask for, with
// podIndexLabel kueue.x-k8s.io/pod-group-pod-index.
Result<Json> PodSetOfPod(const Json& pod, const std::string& name);

// The Workload of a single (ungrouped) pod: "pod-<name>-<hash>", one pod set
// "main" of count 1, owned by the pod.
Result<Json> BuildSinglePodWorkload(const Json& pod);

// The pod with the admission gate removed and the placement's node labels
// merged into spec.nodeSelector and its tolerations appended.
Json UngatePod(const Json& pod, const PodSetPlacement& placement);

}  // namespace kuota::jobs
