#include "jobs/ray_cluster.h"

#include <limits>

#include "jobs/job_fields.h"
#include "jobs/ray_common.h"

namespace kuota::jobs {
const KindInfo& RayClusterKind::Info() const {
  // The CRD's additionalPrinterColumns.
  static const KindInfo kInfo = CrdKindInfo(
      "ray.io", "v1", "RayCluster", "RayCluster",
      {.categories = {"all"},
       .columns = {
           ray::Column("desired workers", "integer", "/status/desiredWorkerReplicas", 0,
                       "Workers the cluster asks for"),
           ray::Column("available workers", "integer", "/status/availableWorkerReplicas", 0,
                       "Workers running"),
           ray::Column("cpus", "string", "/status/desiredCPU", 0, "Total desired CPUs"),
           ray::Column("memory", "string", "/status/desiredMemory", 0, "Total desired memory"),
           ray::Column("gpus", "string", "/status/desiredGPU", 0, "Total desired GPUs"),
           ray::Column("tpus", "string", "/status/desiredTPU", 1, "Total desired TPUs"),
           ray::Column("status", "string", "/status/state", 0, "The cluster's state"),
           ray::Column("age", "date", "/metadata/creationTimestamp", 0, ""),
           ray::Column("head pod IP", "string", "/status/head/podIP", 1, ""),
           ray::Column("head service IP", "string", "/status/head/serviceIP", 1, ""),
       }});
  return kInfo;
}

Status RayClusterKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_RETURN_IF_ERROR(ray::ValidateName(job, ray::kMaxRayClusterNameLength));
  const bool managed = !QueueName(job).empty();
  KUOTA_RETURN_IF_ERROR(
      ray::ValidateClusterSpec(job, ray::RayClusterSpecAt(), managed,
                               "a kueue managed job can use autoscaling only when the "
                               "ElasticJobsViaWorkloadSlices feature gate is on and the job is "
                               "an elastic job"));
  // Kueue's webhook (managed jobs only): the topology annotations and the
  // pod set groups.
  return managed ? ValidateTopology(job, true) : Status::Ok();
}

bool RayClusterKind::IsFinished(const Json& /*job*/, bool* /*succeeded*/) const {
  // Like Kueue: a RayCluster is never finished; it holds quota until deleted.
  return false;
}

bool RayClusterKind::PodsReady(const Json& job) const {
  return ray::ClusterPodsReady(job.value("status", Json::object()));
}

std::vector<PodSetDef> RayClusterKind::PodSets(const Json& job) const {
  return ray::ClusterPodSets(job, ray::RayClusterSpecAt());
}

std::string RayClusterKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  return ray::RayPodName(JobName(job), set, index);
}

void RayClusterKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  ray::CustomizeRayPod(job, ray::RayClusterSpecAt(), JobName(job), where, pod);
}

Json RayClusterKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json old = job.value("status", Json::object());
  Json st = ray::ClusterStatus(job, ray::RayClusterSpecAt(), JobName(job), PodSets(job), seen, old);
  if (ray::RecordedRestarts(job) == seen.restarts) return st;
  if (st == old) st["lastUpdateTime"] = seen.now;
  ray::RecordRestarts(st, seen.restarts);
  return st;
}

int64_t RayClusterKind::MaxRestarts(const Json& /*job*/) const {
  // KubeRay recreates Ray pods without limit.
  return std::numeric_limits<int64_t>::max();
}

GroupAction RayClusterKind::OnPodEvent(const Json& /*job*/, const PodSetDef& /*set*/,
                                       PodEvent /*event*/) const {
  // A Ray pod that ends, however it ends, is recreated by KubeRay.
  return GroupAction::kRestartPod;
}

bool RayClusterKind::Succeeded(const Json& /*job*/, const std::vector<PodSetDef>& /*sets*/,
                               const GroupObservation& /*seen*/) const {
  return false;
}

}  // namespace kuota::jobs
