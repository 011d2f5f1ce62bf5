// Decoders of the small kinds: ResourceFlavor, LocalQueue,
// WorkloadPriorityClass, PriorityClass, AdmissionCheck and Namespace.
// v1beta2's AdmissionCheck has no spec.retryDelayMinutes.
#include "api/codec/decoders.h"

namespace kuota::codec {
namespace {

// AdmissionCheck spec.retryDelayMinutes CRD default.
constexpr int64_t kDefaultRetryDelayMinutes = 15;

Status DecodeResourceFlavorSpec(MapReader& r, api::ResourceFlavor& out) {
  KUOTA_RETURN_IF_ERROR(r.StringMap("nodeLabels", out.node_labels));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("nodeTaints", out.node_taints, DecodeTaint));
  KUOTA_RETURN_IF_ERROR(r.ObjectList("tolerations", out.tolerations, DecodeToleration));
  return r.String("topologyName", out.topology_name);
}

Status DecodeLocalQueueSpec(MapReader& r, api::LocalQueue& out) {
  KUOTA_RETURN_IF_ERROR(r.String("clusterQueue", out.cluster_queue));
  KUOTA_RETURN_IF_ERROR(DecodeStopPolicy(r, out.stop_policy));
  return r.Object("fairSharing", out, [](MapReader& f, api::LocalQueue& lq) {
    return f.OptQuantity("weight", lq.fair_sharing_weight);
  });
}

// status.fairSharing: only admissionFairSharingStatus is read (weightedShare
// is the cohort-level share, written by the controller).
// The rest of a LocalQueue's status is the controller's report: not checked
// for unknown fields (this reader is never finished).
Status DecodeLocalQueueStatus(MapReader& r, api::LocalQueue& out) {
  const YamlNode* status = r.Get("status");
  if (status == nullptr) return r.status();
  MapReader st(r.ctx(), *status, r.PathOf("status"));
  KUOTA_RETURN_IF_ERROR(st.status());
  return st.Object("fairSharing", out, [](MapReader& f, api::LocalQueue& lq) {
    f.Ignore({"weightedShare"});
    api::AdmissionFairSharingStatus afs;
    bool present = f.Has("admissionFairSharingStatus");
    KUOTA_RETURN_IF_ERROR(f.Object(
        "admissionFairSharingStatus", afs, [](MapReader& a, api::AdmissionFairSharingStatus& x) {
          KUOTA_RETURN_IF_ERROR(a.ResourceList("consumedResources", x.consumed_resources));
          return a.Time("lastUpdate", x.last_update);
        }));
    if (present) lq.admission_fair_sharing = std::move(afs);
    return Status::Ok();
  });
}

template <bool kV1beta2>
Status DecodeAdmissionCheckSpec(MapReader& r, api::AdmissionCheck& out) {
  KUOTA_RETURN_IF_ERROR(r.String("controllerName", out.controller_name));
  if constexpr (kV1beta2) {
    KUOTA_RETURN_IF_ERROR(
        r.Removed("retryDelayMinutes", "kueue.x-k8s.io/v1beta2 has no retryDelayMinutes"));
  } else {
    KUOTA_RETURN_IF_ERROR(r.OptInt64("retryDelayMinutes", out.retry_delay_minutes));
  }
  r.Ignore({"parameters"});
  return Status::Ok();
}

Status DecodeAdmissionCheckStatus(MapReader& r, api::AdmissionCheck& out) {
  return r.ObjectList("conditions", out.conditions, DecodeCondition);
}

Status DecodeNamespaceSpec(MapReader& r, int&) {
  r.Ignore({"finalizers"});
  return Status::Ok();
}

// A v1beta2 object reads as its v1beta1 form would after Kueue's conversion
// and the v1beta1 CRD default (unused by Kuota's scheduling).
template <bool kV1beta2>
Status DecodeAdmissionCheckAs(MapReader& r, api::AdmissionCheck& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out, DecodeAdmissionCheckSpec<kV1beta2>));
  if (!out.retry_delay_minutes.has_value()) out.retry_delay_minutes = kDefaultRetryDelayMinutes;
  return r.Object("status", out, DecodeAdmissionCheckStatus);
}

}  // namespace

Status DecodeResourceFlavor(MapReader& r, api::ResourceFlavor& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  return r.Object("spec", out, DecodeResourceFlavorSpec);
}

Status DecodeLocalQueue(MapReader& r, api::LocalQueue& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Object("spec", out, DecodeLocalQueueSpec));
  KUOTA_RETURN_IF_ERROR(DecodeLocalQueueStatus(r, out));
  return Status::Ok();
}

Status DecodeWorkloadPriorityClass(MapReader& r, api::WorkloadPriorityClass& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Require("value"));
  KUOTA_RETURN_IF_ERROR(r.Int32("value", out.value));
  return r.String("description", out.description);
}

Status DecodePriorityClass(MapReader& r, api::PriorityClass& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  KUOTA_RETURN_IF_ERROR(r.Require("value"));
  KUOTA_RETURN_IF_ERROR(r.Int32("value", out.value));
  KUOTA_RETURN_IF_ERROR(r.Bool("globalDefault", out.global_default));
  KUOTA_RETURN_IF_ERROR(r.String("description", out.description));
  return r.String("preemptionPolicy", out.preemption_policy);
}

Status DecodeAdmissionCheck(MapReader& r, api::AdmissionCheck& out) {
  return DecodeAdmissionCheckAs<false>(r, out);
}

Status DecodeAdmissionCheckV1beta2(MapReader& r, api::AdmissionCheck& out) {
  return DecodeAdmissionCheckAs<true>(r, out);
}

Status DecodeNamespace(MapReader& r, api::Namespace& out) {
  KUOTA_RETURN_IF_ERROR(r.Object("metadata", out.metadata, DecodeObjectMeta));
  int unused = 0;
  KUOTA_RETURN_IF_ERROR(r.Object("spec", unused, DecodeNamespaceSpec));
  r.Ignore({"status"});  // phase and conditions are the server's
  return Status::Ok();
}

}  // namespace kuota::codec
