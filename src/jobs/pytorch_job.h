// PyTorchJobSpec: the kubeflow.org/v1 PyTorchJob integration (Kueue framework
// "kubeflow.org/pytorchjob"). Pod sets "master" then "worker" (Kueue's order;
// count = replicas); the local runtime starts the workers once the master runs
// (as the operator's init container makes workers wait for the master's
// address). Validation is the training-operator webhook's: replica types
// Master and Worker only, Master.replicas exactly 1, Worker.replicas at least
// 1, a container named "pytorch" with an image in every template, elasticPolicy
// needs a Worker and forbids elasticPolicy.nProcPerNode beside nprocPerNode.
// One rule beyond the webhook (which accepts a Worker-only job): a job without
// a Master must have an elasticPolicy, since only then do its pods get a
// rendezvous address; otherwise it is rejected with
// `spec.pytorchReplicaSpecs.Master: Required value`.
//
// Environment (every container, as the operator sets it, with every address
// the pod's own position.address): PYTHONUNBUFFERED=1; with a Master:
// MASTER_ADDR, MASTER_PORT (the Master's "pytorchjob-port", default 23456),
// PET_MASTER_ADDR, PET_MASTER_PORT, WORLD_SIZE (total replicas x nprocPerNode
// when that is an integer), RANK and PET_NODE_RANK (master 0, worker i -> i+1);
// PET_NPROC_PER_NODE when nprocPerNode is set; PET_NNODES (total replicas,
// or "min:max" with an elastic policy); with an elasticPolicy also
// PET_RDZV_ENDPOINT (address:rdzvPort, default the Worker's port),
// PET_RDZV_BACKEND (default c10d), PET_MAX_RESTARTS, PET_RDZV_ID,
// PET_RDZV_CONF, PET_STANDALONE.
//
// Success: the Master succeeded, or every Worker when there is no Master.
// Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the PyTorchJob kind says; serve it as KubeflowJobKind(PyTorchJobSpec()).
const KubeflowKindSpec& PyTorchJobSpec();

}  // namespace kuota::jobs
