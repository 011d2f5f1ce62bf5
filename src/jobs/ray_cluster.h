// RayClusterKind: KubeRay's ray.io/v1 RayCluster as a Kueue integration
// ("ray.io/raycluster"). Pod sets "head" then one per worker group; the head
// starts before the workers; pods get KubeRay's ray.io labels and Ray
// environment; the status is the RayClusterStatus KubeRay writes (state
// ready/suspended, desired workers and resources, conditions). A RayCluster
// never finishes: it holds its quota until deleted, and a failed Ray pod is
// recreated. Stateless; thread-safe.
#pragma once

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

class RayClusterKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  bool PodsReady(const Json& job) const override;

  std::vector<PodSetDef> PodSets(const Json& job) const override;
  std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
};

}  // namespace kuota::jobs
