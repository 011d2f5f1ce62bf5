#include "jobs/ray_service.h"

#include <limits>

#include "jobs/job_fields.h"
#include "jobs/ray_common.h"

namespace kuota::jobs {
namespace {

// Where a RayService holds its RayClusterSpec.
const ray::ClusterSpecAt& RayServiceClusterSpecAt() {
  static const ray::ClusterSpecAt kAt{Json::json_pointer("/spec/rayClusterConfig"),
                                      "spec.rayClusterConfig"};
  return kAt;
}

// KubeRay's condition saying the service has a cluster ready to serve.
constexpr const char* kRayServiceReady = "Ready";

bool RayServiceReadyTrue(const Json& status) {
  if (!status.is_object()) return false;
  auto cs = status.find("conditions");
  if (cs == status.end() || !cs->is_array()) return false;
  for (const Json& c : *cs) {
    if (c.is_object() && c.value("type", "") == kRayServiceReady) {
      return c.value("status", "") == "True";
    }
  }
  return false;
}

}  // namespace

const KindInfo& RayServiceKind::Info() const {
  // The CRD's additionalPrinterColumns.
  static const KindInfo kInfo =
      CrdKindInfo("ray.io", "v1", "RayService", "RayService",
                  {.categories = {"all"},
                   .columns = {
                       ray::Column("service status", "string", "/status/serviceStatus"),
                       ray::Column("num serve endpoints", "integer", "/status/numServeEndpoints"),
                       ray::Column("age", "date", "/metadata/creationTimestamp"),
                   }});
  return kInfo;
}

std::string RayServiceKind::ClusterName(const Json& job) { return JobName(job) + "-raycluster"; }

Status RayServiceKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_RETURN_IF_ERROR(ray::ValidateName(job, ray::kMaxRayClusterNameLength));
  KUOTA_ASSIGN_OR_RETURN(const Json* spec, ObjectField(job, "spec", ""));
  const bool managed = !QueueName(job).empty();
  // CRD schema.
  KUOTA_RETURN_IF_ERROR(StringField(*spec, "serveConfigV2", "spec").status());
  KUOTA_RETURN_IF_ERROR(IntField(*spec, "serviceUnhealthySecondThreshold", "spec", 0, 0).status());
  KUOTA_RETURN_IF_ERROR(
      IntField(*spec, "deploymentUnhealthySecondThreshold", "spec", 0, 0).status());
  KUOTA_RETURN_IF_ERROR(CheckBool(*spec, "excludeHeadPodFromServeSvc", "spec"));
  // KubeRay's webhook and, for a queued service, Kueue's (raycluster's
  // ValidateCreate on spec.rayClusterConfig: no autoscaling, at most 7
  // worker groups).
  KUOTA_RETURN_IF_ERROR(ray::ValidateClusterSpec(
      job, RayServiceClusterSpecAt(), managed,
      "a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices "
      "feature gate is on and the job is an elastic job"));
  // Kueue's webhook (managed jobs only): the topology annotations and the
  // pod set groups.
  return managed ? ValidateTopology(job, true) : Status::Ok();
}

bool RayServiceKind::IsFinished(const Json& /*job*/, bool* /*succeeded*/) const {
  // Like Kueue: a RayService is never finished; it serves until deleted.
  return false;
}

bool RayServiceKind::PodsReady(const Json& job) const {
  return RayServiceReadyTrue(job.value("status", Json::object()));
}

std::vector<PodSetDef> RayServiceKind::PodSets(const Json& job) const {
  return ray::ClusterPodSets(job, RayServiceClusterSpecAt());
}

Json::json_pointer RayServiceKind::SuspendPath() const {
  return Json::json_pointer("/spec/rayClusterConfig/suspend");
}

std::string RayServiceKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  return ray::RayPodName(ClusterName(job), set, index);
}

void RayServiceKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  ray::CustomizeRayPod(job, RayServiceClusterSpecAt(), ClusterName(job), where, pod);
  ray::SetLabel(pod, "ray.io/originated-from-crd", "RayService");
  ray::SetLabel(pod, "ray.io/originated-from-cr-name", JobName(job));
}

Json RayServiceKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json old_in = job.value("status", Json::object());
  const Json old = old_in.is_object() ? old_in : Json::object();
  Json st = old;
  Json conditions = old.value("conditions", Json::array());
  if (!conditions.is_array()) conditions = Json::array();
  if (seen.suspended) {
    // The cluster is gone: nothing serves.
    st.erase("activeServiceStatus");
    st.erase("pendingServiceStatus");
    st["numServeEndpoints"] = 0;
    st.erase("serviceStatus");
    SetCondition(conditions, MakeCondition(kRayServiceReady, "False", "Suspended",
                                           "The RayService is suspended", seen.now));
  } else {
    const Json old_active = old.value("activeServiceStatus", Json::object());
    Json active = old_active.is_object() ? old_active : Json::object();
    active["rayClusterName"] = ClusterName(job);
    active["rayClusterStatus"] =
        ray::ClusterStatus(job, RayServiceClusterSpecAt(), ClusterName(job), PodSets(job), seen,
                           active.value("rayClusterStatus", Json::object()));
    const bool ready = ray::ClusterPodsReady(active["rayClusterStatus"]);
    st["activeServiceStatus"] = active;
    // Every Ray pod is a serve endpoint once it runs, as KubeRay counts the
    // pods behind the serve Service (the head unless excluded).
    int64_t endpoints = 0;
    const std::vector<PodSetDef> sets = PodSets(job);
    const Json& spec = SpecOf(job);
    auto ex = spec.find("excludeHeadPodFromServeSvc");
    const bool exclude_head = ex != spec.end() && ex->is_boolean() && ex->get<bool>();
    for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
      if (exclude_head && sets[i].name == ray::kHeadPodSet) continue;
      endpoints += seen.sets[i].running;
    }
    st["numServeEndpoints"] = ready ? endpoints : 0;
    if (ready) {
      st["serviceStatus"] = "Running";
    } else {
      st.erase("serviceStatus");
    }
    SetCondition(conditions,
                 ready ? MakeCondition(kRayServiceReady, "True", "NonZeroServeEndpoints",
                                       "Number of serve endpoints is greater than 0", seen.now)
                       : MakeCondition(kRayServiceReady, "False", "Initializing",
                                       "The RayCluster is not ready yet", seen.now));
  }
  st["conditions"] = conditions;
  ray::RecordRestarts(st, seen.restarts);
  if (st == old) return old;
  st["lastUpdateTime"] = seen.now;
  return st;
}

int64_t RayServiceKind::MaxRestarts(const Json& /*job*/) const {
  // KubeRay recreates Ray pods without limit.
  return std::numeric_limits<int64_t>::max();
}

GroupAction RayServiceKind::OnPodEvent(const Json& /*job*/, const PodSetDef& /*set*/,
                                       PodEvent /*event*/) const {
  // A Ray pod that ends, however it ends, is recreated by KubeRay.
  return GroupAction::kRestartPod;
}

bool RayServiceKind::Succeeded(const Json& /*job*/, const std::vector<PodSetDef>& /*sets*/,
                               const GroupObservation& /*seen*/) const {
  return false;
}

}  // namespace kuota::jobs
