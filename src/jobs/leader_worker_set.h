// LeaderWorkerSetKind: the leaderworkerset.x-k8s.io/v1 LeaderWorkerSet as
// Kueue's integration "leaderworkerset.x-k8s.io/leaderworkerset": a serving
// workload of `spec.replicas` groups, each one leader and `size - 1` workers.
// As in Kueue, every group is one prebuilt Workload ("leader" and "worker"
// pod sets, or one "main" set without a leader template) admitted all or
// nothing, and the group's pods are a Kueue pod group: the LWS webhook marks
// the templates (kueue.x-k8s.io/pod-suspending-parent, pod-group-serving),
// the pods are created gated, and Kueue's LWS controller labels them with
// their group's Workload (DefaultGroupPod). The object itself is never
// suspended: admission ungates the group's pods and eviction deletes them.
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "jobs/job_kind.h"

namespace kuota::jobs {

// LWS's labels and annotations (leaderworkerset_types.go).
inline constexpr const char* kLwsNameLabel = "leaderworkerset.sigs.k8s.io/name";
inline constexpr const char* kLwsGroupIndexLabel = "leaderworkerset.sigs.k8s.io/group-index";
inline constexpr const char* kLwsWorkerIndexLabel = "leaderworkerset.sigs.k8s.io/worker-index";
inline constexpr const char* kLwsGroupKeyLabel = "leaderworkerset.sigs.k8s.io/group-key";
inline constexpr const char* kLwsRevisionLabel =
    "leaderworkerset.sigs.k8s.io/template-revision-hash";
inline constexpr const char* kLwsSizeAnnotation = "leaderworkerset.sigs.k8s.io/size";
inline constexpr const char* kLwsLeaderNameAnnotation = "leaderworkerset.sigs.k8s.io/leader-name";
// Kueue's framework name of the integration, and the value of
// kueue.x-k8s.io/pod-suspending-parent on the pods it suspends.
inline constexpr const char* kLeaderWorkerSetFramework = "leaderworkerset.x-k8s.io/leaderworkerset";

class LeaderWorkerSetKind final : public JobKind {
 public:
  const KindInfo& Info() const override;
  // LWS's webhook and CRD, then Kueue's (replicas within 0..1,000,000, the
  // topology annotations of both templates and their pod set groups).
  Status Validate(const Json& job) const override;
  // LWS's update rules (subGroupSize, subdomainPolicy) and Kueue's: the
  // queue name is fixed once a group is ready, and a queued LWS keeps its
  // templates' pod specs (but for what Kueue lets a pod group change) and
  // its group size.
  Status ValidateUpdate(const Json& old_job, const Json& job) const override;
  // LWS's defaulting webhook (restartPolicy, rolloutStrategy,
  // networkConfig) and the CRD's defaults (replicas, size, startupPolicy).
  void Default(Json& job) const override;
  // Kueue's webhook on a queued LWS: both templates get the queue name and
  // priority class labels and the pod-suspending-parent and
  // pod-group-serving annotations (and, with a leader, the workers
  // kueue.x-k8s.io/pod-index-offset "1" unless grouped).
  void DefaultOnCreate(Json& job) const override;
  // Kueue's LWS webhook defaults on update as on create, so a replaced set
  // keeps its templates' marks (its pods would otherwise start ungated).
  void DefaultOnUpdate(Json& job) const override { DefaultOnCreate(job); }
  // The Workload of group 0 (every group's is alike but for its name).
  Result<Json> BuildWorkload(const Json& job) const override;
  // Never: Kueue stops an LWS by deleting its groups' pods.
  bool IsSuspended(const Json& job) const override;
  // The job unchanged: its pods are started and stopped instead.
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  Json Stop(const Json& job) const override;
  // Never: it serves until deleted.
  bool IsFinished(const Json& job, bool* succeeded) const override;
  // Every group is ready (status.readyReplicas == spec.replicas).
  bool PodsReady(const Json& job) const override;
  std::string PodSetTemplateField(const Json& job, size_t index) const override;

  // spec.replicas (default 1) and spec.leaderWorkerTemplate.size (default 1).
  static int64_t Replicas(const Json& job);
  static int64_t Size(const Json& job);
  static bool HasLeaderTemplate(const Json& job);
  // The Workload of group `index`, as Kueue's LWS controller makes it:
  // "leaderworkerset-<lws>-<index>-<hash>", owned by the LWS, labelled with
  // its uid, pod sets "leader" (1) and "worker" (size - 1), or "main"
  // (size) without a leader template; the templates without LWS's own
  // labels and annotations (but its name), with topology requests whose
  // worker pod index label is leaderworkerset.sigs.k8s.io/worker-index.
  Result<Json> GroupWorkload(const Json& job, int64_t index) const;
  // The name GroupWorkload gives group `index`; on a MultiKueue worker's
  // copy of a set it is the manager's name, so the copies of the manager's
  // group Workloads are the ones its pods join.
  static std::string GroupWorkloadName(const Json& job, int64_t index);
  // Kueue's GetOwnerUID: the manager's uid (the multikueue-origin-uid
  // annotation) on a MultiKueue worker's copy, else the set's own.
  static std::string OwnerUid(const Json& job);
  // Whether `job` is a MultiKueue worker's copy (it has the
  // kueue.x-k8s.io/multikueue-origin label): Kueue's LWS controller makes
  // no Workloads for it, the manager copies its own.
  static bool IsMultiKueueCopy(const Json& job);
  // Kueue's LWS controller on one of the LWS's pods (its setDefault): the
  // managed label, the group's Workload as the pod's group name and
  // prebuilt workload, the group's size as the total count, and the pod
  // set as role hash ("leader", "worker" or "main"). nullopt when there is
  // nothing to do (already labelled, no group index yet, ended or being
  // deleted).
  static std::optional<Json> DefaultGroupPod(const Json& job, const Json& pod);
  // Whether Kueue's LWS webhook suspended `pod`'s parent
  // (kueue.x-k8s.io/pod-suspending-parent names this integration).
  static bool SuspendedByLeaderWorkerSet(const Json& pod);
};

}  // namespace kuota::jobs
