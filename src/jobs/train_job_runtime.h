// The JobSet a Kubeflow Trainer v2 TrainJob runs, built from its training
// runtime as Trainer's runtime framework builds it (and as Kueue's trainjob
// integration asks Trainer for it to make the Workload's pod sets): the
// runtime's spec.template with the TrainJob's spec.runtimePatches merged in
// (replicated jobs by name; their Job and pod metadata, nodeSelector,
// tolerations, scheduling gates, containers' env), each replicated job's
// parallelism and completions set to its count (its parallelism, or the
// mlPolicy's numNodes for the trainer step, or the TrainJob's
// trainer.numNodes), resourcesPerNode merged into the trainer's "node"
// container, and the TrainJob's trainer image, command, args and env applied
// to it, with its ML policy plugin's environment (train_job_plugins.h). The trainer step is the replicated job labelled
// trainer.kubeflow.org/trainjob-ancestor-step: trainer, as Trainer finds it.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "jobs/job_kind.h"

namespace kuota::jobs {

inline constexpr const char* kTrainerGroup = "trainer.kubeflow.org";
inline constexpr const char* kTrainJobAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
// The manager name of the runtime patch Kueue owns (its flavors' placement).
inline constexpr const char* kKueueRuntimePatchManager = "kueue.x-k8s.io/manager";
// Trainer's constants.ContainerTrainerPort: PET_MASTER_PORT.
inline constexpr int kTrainerMasterPort = 29500;

// What to leave out of the build.
struct TrainJobBuildOptions {
  // Leave out Kueue's own runtime patch: the job as submitted, without the
  // flavors' placement (the Workload describes that job).
  bool without_kueue_patch = false;
  // PET_MASTER_ADDR: Trainer gives "<job>-node-0-0.<job>" (a Service name);
  // every pod runs on this machine here.
  std::string master_address = "127.0.0.1";
};

// The JobSet spec (jobset.x-k8s.io/v1alpha2 JobSetSpec) that `train_job`
// runs from `runtime` (a TrainingRuntime or ClusterTrainingRuntime as
// stored). Invalid when the runtime has no replicated jobs, or when the
// TrainJob sets an environment variable its runtime's plugin reserves
// (CheckTrainerReservedEnv).
Result<Json> BuildTrainJobSet(const Json& train_job, const Json& runtime,
                              const TrainJobBuildOptions& options = {});

// The mlPolicy family of a runtime: "torch", "mpi", "jax", "xgboost",
// "flux", or "" (plain ML).
std::string TrainingRuntimePolicy(const Json& runtime);

}  // namespace kuota::jobs
