// TrainJobKind: Kubeflow Trainer v2's trainer.kubeflow.org/v1alpha1 TrainJob
// (Kueue's "trainer.kubeflow.org/trainjob" integration). Its pods come from
// the TrainingRuntime (namespaced) or ClusterTrainingRuntime its
// spec.runtimeRef names: the controller copies that runtime into the job
// once (PendingReference/WithReference: the kuota.dev/training-runtime
// annotation, as Trainer snapshots it into a ConfigMap), and the job then
// runs the JobSet BuildTrainJobSet makes of the two (train_job_runtime.h).
// A TrainJob whose runtime does not exist is accepted and waits, with an
// Event and an Invalid condition saying why.
//
// Workload: as Kueue builds it, one pod set per replicated job of that
// JobSet, named after it, count = replicas x parallelism, JobSet's pod
// index labels; Kueue's own runtime patch is left out (the job as
// submitted). Start and stop as Kueue's: suspend is spec.suspend, and the
// flavors' nodeSelector, tolerations and podSetUpdates go into the runtime
// patch of manager kueue.x-k8s.io/manager (added on create, as Kueue's
// webhook does), which Stop empties: the runtime's templates are never
// written, so nothing else needs restoring.
//
// Pods, names, labels, restarts and success are JobSet's (jobset.h) over
// that JobSet; the status is Trainer's (none before the runtime is found,
// and no Invalid condition after): jobsStatus per replicated job and
// metav1 conditions Suspended (Suspended / Resumed), Complete and Failed
// (JobSet's reasons), plus Kuota's restarts.
//
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

// The runtime a TrainJob was resolved against, as a JSON object
// {apiVersion, kind, metadata: {name}, spec}.
inline constexpr const char* kTrainingRuntimeAnnotation = "kuota.dev/training-runtime";

class TrainJobKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  // Trainer's CRD schema and webhook.
  Status Validate(const Json& job) const override;
  // The CRD's transition rules: runtimeRef, initializer, trainer,
  // activeDeadlineSeconds and managedBy are immutable (a runtime patch's
  // manager is its list key, so never compared).
  Status ValidateUpdate(const Json& old_job, const Json& job) const override;
  // The CRD's defaults: runtimeRef apiGroup and kind.
  void Default(Json& job) const override;
  // Suspended, with Kueue's (empty) runtime patch.
  void DefaultOnCreate(Json& job) const override;
  std::optional<ReferencedObject> PendingReference(const Json& job) const override;
  // trainingruntimes and clustertrainingruntimes.
  std::vector<std::string> ReferencedResources() const override;
  Result<Json> WithReference(const Json& job, const Json& runtime) const override;
  // The job with its JobSet at "jobSet" (spec), or nullopt before its
  // runtime is copied in.
  std::optional<Json> Expand(const Json& job) const override;
  Result<Json> BuildWorkload(const Json& job) const override;
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  Json Stop(const Json& job) const override;
  // Of an expanded job (Expand); empty otherwise.
  std::vector<PodSetDef> PodSets(const Json& job) const override;
  std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  bool PodsReady(const Json& job) const override;
};

}  // namespace kuota::jobs
