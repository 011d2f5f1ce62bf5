// RayServiceKind: KubeRay's ray.io/v1 RayService as a Kueue integration
// ("ray.io/rayservice"): a RayCluster described by spec.rayClusterConfig that
// serves the Ray Serve applications of spec.serveConfigV2. Pod sets "head"
// then one per worker group, as for a RayCluster; Kueue suspends it through
// spec.rayClusterConfig.suspend. The status is the RayServiceStatuses KubeRay
// writes (serviceStatus, the Ready condition, activeServiceStatus with the
// cluster's name and status). A RayService never finishes: it serves until
// deleted, and a failed Ray pod is recreated. Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

class RayServiceKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  // Kueue's: the RayService's Ready condition is True.
  bool PodsReady(const Json& job) const override;

  std::vector<PodSetDef> PodSets(const Json& job) const override;
  // "/spec/rayClusterConfig/suspend".
  Json::json_pointer SuspendPath() const override;
  std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;

  // The name of the RayCluster KubeRay makes for the service:
  // "<service>-raycluster" (KubeRay adds a random suffix; ours is fixed).
  static std::string ClusterName(const Json& job);
};

}  // namespace kuota::jobs
