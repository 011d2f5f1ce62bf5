// Decoder of Workload: pod sets with their templates, queue and priority,
// and the status that scenario files may set (admission, conditions,
// admission check states, requeue state, reclaimable pods).
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

Status DecodePodSet(MapReader& r, api::PodSet& out) {
  out.name = "main";  // CRD default
  out.count = 1;      // CRD default
  KUOTA_RETURN_IF_ERROR(r.Require("template"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.Object("template", out.template_, DecodePodTemplateSpec));
  KUOTA_RETURN_IF_ERROR(r.Int32("count", out.count));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("minCount", out.min_count));
  r.Ignore({"topologyRequest"});
  return Status::Ok();
}

Status DecodeWorkloadSpec(MapReader& r, api::WorkloadSpec& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("podSets"));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("podSets", out.pod_sets, DecodePodSet));
  KUOTA_RETURN_IF_ERROR(r.String("queueName", out.queue_name));
  KUOTA_RETURN_IF_ERROR(r.String("priorityClassName", out.priority_class_name));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("priority", out.priority));
  KUOTA_RETURN_IF_ERROR(r.String("priorityClassSource", out.priority_class_source));
  KUOTA_RETURN_IF_ERROR(r.Bool("active", out.active));
  return r.OptInt32("maximumExecutionTimeSeconds", out.maximum_execution_time_seconds);
}

Status DecodePodSetAssignment(MapReader& r, api::PodSetAssignment& out) {
  out.name = "main";  // CRD default
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.StringMap("flavors", out.flavors));
  KUOTA_RETURN_IF_ERROR(r.ResourceList("resourceUsage", out.resource_usage));
  KUOTA_RETURN_IF_ERROR(r.OptInt32("count", out.count));
  r.Ignore({"topologyAssignment", "delayedTopologyRequest"});
  return Status::Ok();
}

Status DecodeAdmission(MapReader& r, api::Admission& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("clusterQueue"));
  KUOTA_RETURN_IF_ERROR(r.String("clusterQueue", out.cluster_queue));
  return r.ObjectList("podSetAssignments", out.pod_set_assignments, DecodePodSetAssignment);
}

Status DecodeAdmissionCheckState(MapReader& r, api::AdmissionCheckState& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.Require("state"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  KUOTA_RETURN_IF_ERROR(r.String("state", out.state));
  KUOTA_RETURN_IF_ERROR(r.Time("lastTransitionTime", out.last_transition_time));
  KUOTA_RETURN_IF_ERROR(r.String("message", out.message));
  r.Ignore({"podSetUpdates", "retryCount", "requeueAfterSeconds"});
  return Status::Ok();
}

Status DecodeRequeueState(MapReader& r, api::RequeueState& out) {
  KUOTA_RETURN_IF_ERROR(r.OptInt32("count", out.count));
  return r.Time("requeueAt", out.requeue_at);
}

Status DecodeReclaimablePod(MapReader& r, api::ReclaimablePod& out) {
  KUOTA_RETURN_IF_ERROR(r.Require("name"));
  KUOTA_RETURN_IF_ERROR(r.Require("count"));
  KUOTA_RETURN_IF_ERROR(r.String("name", out.name));
  return r.Int32("count", out.count);
}

Status DecodeWorkloadStatus(MapReader& r, api::WorkloadStatus& out) {
  KUOTA_RETURN_IF_ERROR(r.OptObject("admission", out.admission, DecodeAdmission));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("conditions", out.conditions, DecodeCondition));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("admissionChecks", out.admission_checks, DecodeAdmissionCheckState));
  KUOTA_RETURN_IF_ERROR(r.OptObject("requeueState", out.requeue_state, DecodeRequeueState));
  KUOTA_RETURN_IF_ERROR(
      r.ObjectList("reclaimablePods", out.reclaimable_pods, DecodeReclaimablePod));
  r.Ignore({"resourceRequests", "accumulatedPastExexcutionTimeSeconds", "schedulingStats",
            "nominatedClusterNames", "clusterName", "unhealthyNodes"});
  return Status::Ok();
}

}  // namespace

Status DecodeWorkload(MapReader& r, api::Workload& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Require("spec"));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out.spec, DecodeWorkloadSpec));
  return r.Object("status", out.status, DecodeWorkloadStatus);
}

}  // namespace kuota::codec
