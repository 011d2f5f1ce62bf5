// The decoders of each supported kind and of the Kubernetes types they share,
// one function per type, each reading one object through a MapReader: typed
// fields, Kueue's defaults, and the real fields Kuota accepts but does not
// model marked as ignored (anything else is an unknown field). The caller
// reports unknown fields. Kinds whose kueue.x-k8s.io/v1beta2 form differs
// from v1beta1 have a V1beta2 decoder that reads v1beta2's field names into
// the same api struct, as Kueue's conversion maps them
// (api/conversion); a v1beta1-only field is an unknown field naming its
// v1beta2 form. Internal to kuota_codec. Stateless functions.
#pragma once

#include "api/codec/map_reader.h"
#include "api/object.h"

namespace kuota::codec {

// Shared Kubernetes types (meta_decoder.cc).
Status DecodeObjectMeta(MapReader& r, api::ObjectMeta& out);
Status DecodeCondition(MapReader& r, api::Condition& out);
Status DecodeLabelSelector(MapReader& r, api::LabelSelector& out);
Status DecodeTaint(MapReader& r, api::Taint& out);
Status DecodeToleration(MapReader& r, api::Toleration& out);

// A pod template: metadata labels and annotations, and the PodSpec fields of
// api/pod_spec.h; every other real PodSpec/Container field is ignored
// (pod_template_decoder.cc).
Status DecodePodTemplateSpec(MapReader& r, api::PodTemplateSpec& out);
// A PodSpec alone (a Pod's spec); nodeName is ignored, the caller reads it.
Status DecodePodSpec(MapReader& r, api::PodSpec& out);

// A Workload's topology fields (topology_assignment_decoder.cc): a pod set's
// topologyRequest, and a pod set assignment's topologyAssignment as v1beta1
// lists it (levels, domains) or v1beta2 packs it (levels, slices), read into
// the same list of domains. v1beta2's podsetSliceRequiredTopologyConstraints
// is dropped, as Kueue's conversion to v1beta1 drops it.
Status DecodePodSetTopologyRequest(MapReader& r, api::PodSetTopologyRequest& out);
Status DecodePodSetTopologyRequestV1beta2(MapReader& r, api::PodSetTopologyRequest& out);
Status DecodeTopologyAssignment(MapReader& r, api::TopologyAssignment& out);
Status DecodeTopologyAssignmentV1beta2(MapReader& r, api::TopologyAssignment& out);

// Quota shared by ClusterQueue and Cohort (quota_decoder.cc).
Status DecodeResourceGroup(MapReader& r, api::ResourceGroup& out);
Status DecodeFairSharing(MapReader& r, api::FairSharing& out);
// The `stopPolicy` field of a ClusterQueue or LocalQueue spec.
Status DecodeStopPolicy(MapReader& r, api::StopPolicy& out);

// Kinds. `r` reads the whole document; apiVersion and kind are already read.
Status DecodeClusterQueue(MapReader& r, api::ClusterQueue& out);
Status DecodeClusterQueueV1beta2(MapReader& r, api::ClusterQueue& out);  // spec.cohortName
Status DecodeCohortV1beta1(MapReader& r, api::Cohort& out);              // spec.parentName
Status DecodeCohortV1alpha1(MapReader& r, api::Cohort& out);             // spec.parent
Status DecodeWorkload(MapReader& r, api::Workload& out);
Status DecodeWorkloadV1beta2(MapReader& r, api::Workload& out);  // spec.priorityClassRef
Status DecodeResourceFlavor(MapReader& r, api::ResourceFlavor& out);
Status DecodeLocalQueue(MapReader& r, api::LocalQueue& out);
Status DecodeWorkloadPriorityClass(MapReader& r, api::WorkloadPriorityClass& out);
Status DecodePriorityClass(MapReader& r, api::PriorityClass& out);
Status DecodeAdmissionCheck(MapReader& r, api::AdmissionCheck& out);
Status DecodeAdmissionCheckV1beta2(MapReader& r, api::AdmissionCheck& out);  // no retryDelayMinutes
Status DecodeNamespace(MapReader& r, api::Namespace& out);
Status DecodeConfiguration(MapReader& r, api::Configuration& out);
// Topology-aware scheduling's inputs (topology_decoder.cc): Topology (both
// kueue.x-k8s.io versions), and v1 Node and Pod with every real field of
// theirs accepted.
Status DecodeTopology(MapReader& r, api::Topology& out);
Status DecodeNode(MapReader& r, api::Node& out);
Status DecodePod(MapReader& r, api::Pod& out);
// config.kueue.x-k8s.io/v1beta2: a fairSharing or waitForPodsReady section
// turns its feature on (no `enable`).
Status DecodeConfigurationV1beta2(MapReader& r, api::Configuration& out);

}  // namespace kuota::codec
