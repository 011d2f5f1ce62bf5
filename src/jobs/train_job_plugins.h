// TrainJob ML policy plugins: what Kubeflow Trainer v2's torch, MPI, JAX and
// XGBoost plugins do to the JobSet a TrainJob runs (EnforceMLPolicy) and the
// environment they reserve (their webhooks' Validate). Pods here all run on
// one machine, so the address every plugin names is the one the caller gives
// (127.0.0.1) where Trainer names a headless Service's pod. Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "jobs/job_kind.h"

namespace kuota::jobs {

// What the plugins read of a TrainJob and its runtime.
struct TrainerPolicyInput {
  std::string policy;                    // TrainingRuntimePolicy: "torch", "mpi", ...
  Json ml = Json::object();              // the runtime's spec.mlPolicy
  Json trainer = Json::object();         // the TrainJob's spec.trainer
  bool has_trainer = false;              // spec.trainer is set
  int64_t trainer_count = 1;             // the trainer step's nodes
  Json node_resources = Json::object();  // resourcesPerNode, else the runtime's
  std::string address = "127.0.0.1";     // where the pods reach each other
};

// The container named "node" of a JobSet replicated job (where Trainer puts
// the trainer), or null when it has none; never adds fields.
Json* TrainerNodeContainer(Json& rjob);

// The plugins' webhook checks of spec.trainer.env: torch's and MPI's
// reserved names ("spec.trainer.env: Invalid value: ...: must not have
// reserved envs, invalid envs configured: [PET_NNODES]") and XGBoost's
// ("spec.trainer.env[0]: Forbidden: DMLC_TASK_ID is reserved for the XGBoost
// runtime"). JAX reserves none.
Status CheckTrainerReservedEnv(const TrainerPolicyInput& in);

// The plugin's environment on `spec` (a JobSet spec, counts already set):
// torch's PET_* and JAX's JAX_* and XGBoost's DMLC_* on the trainer step's
// "node" container, MPI's OMPI_MCA_* on the launcher's "node" container with
// the hostfile's lines in MPI_HOSTFILE_CONTENT (as Kuota's MPIJob gives
// them; Trainer mounts a ConfigMap at /etc/mpi instead). Each plugin adds
// the trainer port (29500) to the container it configures.
void EnforceTrainerPolicy(Json& spec, const TrainerPolicyInput& in);

}  // namespace kuota::jobs
