// Topology requests: Kueue's topology-aware scheduling annotations on a pod
// template (kueue.x-k8s.io/podset-required-topology and the others below)
// read into the `topologyRequest` of the Workload pod set the template
// makes, with the label that numbers the kind's pods (jobframework's
// tas.go), and Kueue's webhook checks of those annotations with its field
// paths and messages (tas_validation.go). Shared by every job kind. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/status.h"

namespace kuota::jobs {

// The pod set annotations Kueue reads (apis/kueue topology_types.go).
inline constexpr const char* kPodSetRequiredTopologyAnnotation =
    "kueue.x-k8s.io/podset-required-topology";
inline constexpr const char* kPodSetPreferredTopologyAnnotation =
    "kueue.x-k8s.io/podset-preferred-topology";
inline constexpr const char* kPodSetUnconstrainedTopologyAnnotation =
    "kueue.x-k8s.io/podset-unconstrained-topology";
inline constexpr const char* kPodSetSliceRequiredTopologyAnnotation =
    "kueue.x-k8s.io/podset-slice-required-topology";
inline constexpr const char* kPodSetSliceSizeAnnotation = "kueue.x-k8s.io/podset-slice-size";
// TASMultiLayerTopology (beta, on by default): a JSON array of up to three
// {topology, size} slice layers. Checked as Kueue checks it; a v1beta1
// Workload has no field for it (Kueue's conversion drops it too).
inline constexpr const char* kPodSetSliceRequiredTopologyConstraintsAnnotation =
    "kueue.x-k8s.io/podset-slice-required-topology-constraints";
inline constexpr const char* kPodSetGroupNameAnnotation = "kueue.x-k8s.io/podset-group-name";

// The labels that number a kind's pods (Kueue's podIndexLabel per
// integration).
inline constexpr const char* kJobCompletionIndexLabel = "batch.kubernetes.io/job-completion-index";
inline constexpr const char* kJobSetJobIndexLabel = "jobset.sigs.k8s.io/job-index";
inline constexpr const char* kPodGroupPodIndexLabel = "kueue.x-k8s.io/pod-group-pod-index";
// On a group pod, the name of another of its labels whose value is its index;
// Kueue's pod webhook copies that value into kPodGroupPodIndexLabel.
inline constexpr const char* kPodGroupPodIndexLabelAnnotation =
    "kueue.x-k8s.io/pod-group-pod-index-label";

// How a pod set's pods are numbered, for its topologyRequest.
// Default member initializers: GCC's -Wmissing-field-initializers accepts a
// designated initializer that names only some of them.
struct PodSetIndexLabels {
  std::string pod_index_label{};        // "" when the kind's pods carry none
  std::string sub_group_index_label{};  // the replicated group's index (JobSet's job-index)
  std::optional<int64_t> sub_group_count{};
};

// The topologyRequest of a pod set whose template has metadata `meta` (null
// or an object), as Kueue's PodSetTopologyRequest builder makes it: null
// when the template asks for nothing and the kind numbers no pods; Invalid
// when an annotation does not parse (ValidateTopologyAnnotations refuses
// those first).
Result<nlohmann::json> BuildTopologyRequest(const nlohmann::json& meta,
                                            const PodSetIndexLabels& labels);

// Kueue's ValidateTASPodSetRequest on the template metadata `meta` at
// `meta_path` ("spec.template.metadata"): Ok, or the first of Kueue's errors
// naming "<meta_path>.annotations[<annotation>]".
Status ValidateTopologyAnnotations(const nlohmann::json& meta, const std::string& meta_path);

// Kueue's ValidateSliceSizeAnnotationUpperBound: a slice (or the first slice
// layer) may not hold more pods than the pod set's `count`.
Status ValidateSliceSizeUpperBound(const nlohmann::json& meta, const std::string& meta_path,
                                   int64_t count);

// One pod set, for the checks of pod set groups.
struct TopologyPodSet {
  std::string name;
  int64_t count = 0;
  nlohmann::json topology_request;  // BuildTopologyRequest's result
  std::string
      annotations_path;  // "spec.replicatedJobs[0].template.spec.template.metadata.annotations"
};

// Kueue's ValidatePodSetGroupingTopology: pod sets naming the same
// kueue.x-k8s.io/podset-group-name come in pairs, one of them with a single
// pod, both with the same required or preferred topology.
Status ValidatePodSetGroups(const std::vector<TopologyPodSet>& sets);

}  // namespace kuota::jobs
