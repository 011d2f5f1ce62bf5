// RayJobKind: KubeRay's ray.io/v1 RayJob as a Kueue integration
// ("ray.io/rayjob"): a RayCluster made for one job plus, in K8sJobMode, the
// submitter pod that runs the entrypoint against it. Pod sets "head", one per
// worker group, and "submitter", started in that order; the status is the
// RayJobStatus KubeRay writes (jobStatus, jobDeploymentStatus,
// rayClusterName, start/end times, the cluster's status). The job completes
// when the submitter succeeds and fails when it fails past the submitter's
// backoffLimit. Stateless; thread-safe.
#pragma once

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

class RayJobKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  // Kueue's defaulting, and the submitter pod template KubeRay (and Kueue's
  // Workload) use when the job names none.
  void Default(Json& job) const override;
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

  // The name of the RayCluster KubeRay makes for the job: "<job>-raycluster"
  // (KubeRay adds a random suffix; ours is fixed).
  static std::string ClusterName(const Json& job);
  // The Ray job's submission id: spec.jobId, else "<job>-<5 characters of
  // the uid>".
  static std::string JobId(const Json& job);
};

}  // namespace kuota::jobs
