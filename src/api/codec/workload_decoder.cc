// Decoder of Workload: pod sets with their templates, queue and priority,
// and the status that scenario files may set (admission, conditions,
// admission check states, requeue state, reclaimable pods). v1beta2 names
// the priority class by spec.priorityClassRef {group, kind, name} where
// v1beta1 has spec.priorityClassName and spec.priorityClassSource; a pod set
// assignment's topologyAssignment is v1beta1's domain list or v1beta2's
// slices (topology_assignment_decoder.cc).
#include "api/codec/decoders.h"

#include "api/priority_class.h"
#include "api/validation/field_errors.h"

namespace kuota::codec {
namespace {

template <bool kV1beta2>
Status DecodePodSet(MapReader& r, api::PodSet& out) {
  out.name = "main";  // CRD default
  out.count = 1;      // CRD default
  KUOTA_RETURN_IF_ERROR(r.Require("template"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.Object("template", out.template_, DecodePodTemplateSpec));
  KUOTA_RETURN_IF_ERROR(r.Int32("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("minCount", out.min_count));
  return r.OptObject("topologyRequest", out.topology_request,
                     kV1beta2 ? DecodePodSetTopologyRequestV1beta2 : DecodePodSetTopologyRequest);
}

// spec.priorityClassRef: kueue.x-k8s.io/WorkloadPriorityClass or
// scheduling.k8s.io/PriorityClass, read into v1beta1's name and source.
Status DecodePriorityClassRef(MapReader& r, api::WorkloadSpec& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"group", "kind", "name"}));
  enum class Group { kKueue, kScheduling } group = Group::kKueue;
  KUOTA_RETURN_IF_ERROR(r.Enum<Group>(
      "group", group,
      {{"kueue.x-k8s.io", Group::kKueue}, {"scheduling.k8s.io", Group::kScheduling}}));
  const char* want_kind = group == Group::kKueue ? "WorkloadPriorityClass" : "PriorityClass";
  std::string kind;
  KUOTA_RETURN_IF_ERROR(r.String("kind", kind));
  if (r.Has("kind") && kind != want_kind) {
    const char* group_name = group == Group::kKueue ? "kueue.x-k8s.io" : "scheduling.k8s.io";
    return r.ctx().Fail(*r.Get("kind"), r.PathOf("kind"),
                        "unsupported value " + validation::QuoteValue(kind) + "; group " +
                            group_name + " supports only " + validation::QuoteValue(want_kind));
  }
  KUOTA_RETURN_IF_ERROR(r.String("name", out.priority_class_name));
  if (r.Has("name")) {
    out.priority_class_source =
        group == Group::kKueue ? api::kWorkloadPriorityClassSource : api::kPodPriorityClassSource;
  }
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeWorkloadSpec(MapReader& r, api::WorkloadSpec& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("podSets"));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("podSets", out.pod_sets, DecodePodSet<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.String("queueName", out.queue_name));
  if constexpr (kV1beta2) {
    for (std::string_view key : {"priorityClassName", "priorityClassSource"}) {
      KUOTA_RETURN_IF_ERROR(
          r.Removed(key, "kueue.x-k8s.io/v1beta2 names the class in spec.priorityClassRef"));
    }
    KUOTA_RETURN_IF_ERROR(r.Object("priorityClassRef", out, DecodePriorityClassRef));
    KUOTA_RETURN_IF_ERROR(r.OptInt32("priority", out.priority));
  } else {
    KUOTA_RETURN_IF_ERROR(r.String("priorityClassName", out.priority_class_name));
    KUOTA_RETURN_IF_ERROR(r.OptInt32("priority", out.priority));
    KUOTA_RETURN_IF_ERROR(r.String("priorityClassSource", out.priority_class_source));
  }
  KUOTA_RETURN_IF_ERROR(r.Bool("active", out.active));
  return r.OptInt32("maximumExecutionTimeSeconds", out.maximum_execution_time_seconds);
}

template <bool kV1beta2>
Status DecodePodSetAssignment(MapReader& r, api::PodSetAssignment& out) {
  out.name = "main";  // CRD default
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.StringMap("flavors", out.flavors));
  KUOTA_RETURN_IF_ERROR(r.ResourceList("resourceUsage", out.resource_usage));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("count", out.count));
  KUOTA_RETURN_IF_ERROR(
      r.OptObject("topologyAssignment", out.topology_assignment,
                  kV1beta2 ? DecodeTopologyAssignmentV1beta2 : DecodeTopologyAssignment));
  r.Ignore({"delayedTopologyRequest"});
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeAdmission(MapReader& r, api::Admission& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("clusterQueue"));
  KUOTA_RETURN_IF_ERROR(r.String("clusterQueue", out.cluster_queue));
  return r.ObjectList("podSetAssignments", out.pod_set_assignments,
                      DecodePodSetAssignment<kV1beta2>);
}

Status DecodePodSetUpdate(MapReader& r, api::PodSetUpdate& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.StringMap("labels", out.labels));
  KUOTA_RETURN_IF_ERROR(r.StringMap("annotations", out.annotations));
  KUOTA_RETURN_IF_ERROR(r.StringMap("nodeSelector", out.node_selector));
  return r.ObjectList("tolerations", out.tolerations, DecodeToleration);
}

Status DecodeAdmissionCheckState(MapReader& r, api::AdmissionCheckState& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "state"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("state", out.state));
  KUOTA_RETURN_IF_ERROR(r.Time("lastTransitionTime", out.last_transition_time));
  KUOTA_RETURN_IF_ERROR(r.String("message", out.message));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("podSetUpdates", out.pod_set_updates, DecodePodSetUpdate));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("retryCount", out.retry_count));
  return r.OptInt32("requeueAfterSeconds", out.requeue_after_seconds);
}

Status DecodeRequeueState(MapReader& r, api::RequeueState& out) {
  KUOTA_RETURN_IF_ERROR(r.OptInt32("count", out.count));
  return r.Time("requeueAt", out.requeue_at);
}

Status DecodeReclaimablePod(MapReader& r, api::ReclaimablePod& out) {
  KUOTA_RETURN_IF_ERROR(r.Require({"name", "count"}));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  return r.Int32("count", out.count);
}

template <bool kV1beta2>
Status DecodeWorkloadStatus(MapReader& r, api::WorkloadStatus& out) {
  KUOTA_RETURN_IF_ERROR(r.OptObject("admission", out.admission, DecodeAdmission<kV1beta2>));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("conditions", out.conditions, DecodeCondition));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("admissionChecks", out.admission_checks, DecodeAdmissionCheckState));
  KUOTA_RETURN_IF_ERROR(r.OptObject("requeueState", out.requeue_state, DecodeRequeueState));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("reclaimablePods", out.reclaimable_pods, DecodeReclaimablePod));
  // v1beta1 misspells accumulatedPastExecutionTimeSeconds; v1beta2 fixed it.
  r.Ignore(
      {kV1beta2 ? "accumulatedPastExecutionTimeSeconds" : "accumulatedPastExexcutionTimeSeconds"});
  r.Ignore({"resourceRequests", "schedulingStats", "nominatedClusterNames", "clusterName",
            "unhealthyNodes"});
  return Status::Ok();
}

template <bool kV1beta2>
Status DecodeWorkloadAs(MapReader& r, api::Workload& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Require("spec"));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out.spec, DecodeWorkloadSpec<kV1beta2>));
  return r.Object("status", out.status, DecodeWorkloadStatus<kV1beta2>);
}

}  // namespace

Status DecodeWorkload(MapReader& r, api::Workload& out) { return DecodeWorkloadAs<false>(r, out); }

Status DecodeWorkloadV1beta2(MapReader& r, api::Workload& out) {
  return DecodeWorkloadAs<true>(r, out);
}

}  // namespace kuota::codec
