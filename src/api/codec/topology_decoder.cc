// Decoders of the inputs of topology-aware scheduling: Topology
// (kueue.x-k8s.io v1beta1 and v1beta2, the same fields), and core/v1 Node and
// Pod. Nodes and pods are what `kubectl get node/pod -o yaml` prints, so every
// field of the real types is accepted; those topology-aware scheduling does
// not read are ignored.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

Status DecodeTopologyLevel(MapReader& r, std::string& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("nodeLabel"));
  return r.String("nodeLabel", out);
}

Status DecodeTopologySpec(MapReader& r, api::Topology& out) {
  return r.ObjectList("levels", out.levels, DecodeTopologyLevel);
}

Status DecodeNodeSpec(MapReader& r, api::Node& out) {
  KUOTA_RETURN_IF_ERROR(r.Bool("unschedulable", out.unschedulable));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("taints", out.taints, DecodeTaint));
  r.Ignore(
      {"podCIDR", "podCIDRs", "providerID", "configSource", "externalID", "podPreemptionPolicy"});
  return Status::Ok();
}

// core/v1 NodeCondition: only a Ready condition saying False matters.
struct NodeCondition {
  std::string type;
  std::string status;
};

Status DecodeNodeCondition(MapReader& r, NodeCondition& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"type", "status"}));
  KUOTA_RETURN_IF_ERROR(r.String("type", out.type));
  KUOTA_RETURN_IF_ERROR(r.String("status", out.status));
  r.Ignore({"lastHeartbeatTime", "lastTransitionTime", "reason", "message"});
  return Status::Ok();
}

Status DecodeNodeStatus(MapReader& r, api::Node& out) {
  KUOTA_RETURN_IF_ERROR(r.ResourceList("allocatable", out.allocatable));
  std::vector<NodeCondition> conditions;
  KUOTA_RETURN_IF_ERROR(r.ObjectList("conditions", conditions, DecodeNodeCondition));
  for (const NodeCondition& c : conditions) {
    if (c.type == "Ready" && c.status == "False") out.ready = false;
  }
  r.Ignore({"capacity", "phase", "addresses", "daemonEndpoints", "nodeInfo", "images",
            "volumesInUse", "volumesAttached", "config", "runtimeHandlers", "features",
            "declaredFeatures"});
  return Status::Ok();
}

Status DecodePodObjectSpec(MapReader& r, api::Pod& out) {
  KUOTA_RETURN_IF_ERROR(r.String("nodeName", out.node_name));
  return DecodePodSpec(r, out.spec);
}

Status DecodePodStatus(MapReader& r, api::Pod& out) {
  KUOTA_RETURN_IF_ERROR(r.String("phase", out.phase));
  r.Ignore({"observedGeneration",
            "conditions",
            "message",
            "reason",
            "nominatedNodeName",
            "hostIP",
            "hostIPs",
            "podIP",
            "podIPs",
            "startTime",
            "initContainerStatuses",
            "containerStatuses",
            "qosClass",
            "ephemeralContainerStatuses",
            "resize",
            "resourceClaimStatuses",
            "extendedResourceClaimStatus",
            "allocatedResources",
            "resources",
            "nodeAllocatableResourceClaimStatuses",
            "volumeHealth"});
  return Status::Ok();
}

}  // namespace

Status DecodeTopology(MapReader& r, api::Topology& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  return r.Object("spec", out, DecodeTopologySpec);
}

Status DecodeNode(MapReader& r, api::Node& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out, DecodeNodeSpec));
  return r.Object("status", out, DecodeNodeStatus);
}

Status DecodePod(MapReader& r, api::Pod& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out, DecodePodObjectSpec));
  return r.Object("status", out, DecodePodStatus);
}

}  // namespace kuota::codec
