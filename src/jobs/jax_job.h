// JAXJobSpec: the kubeflow.org/v1 JAXJob integration (Kueue framework
// "kubeflow.org/jaxjob"). One pod set, "worker" (Kueue's order; count =
// replicas), all started at once. Validation is the training-operator
// webhook's: replica type Worker only, a container named "jax" with an image
// in every template; restartPolicy defaults to Never.
//
// Environment (every container, as the operator's setPodEnv writes it, with
// every address the pod's own position.address): PYTHONUNBUFFERED=1,
// COORDINATOR_ADDRESS (worker 0's host), COORDINATOR_PORT (worker 0's
// "jaxjob-port", default 6666), NUM_PROCESSES (total replicas) and
// PROCESS_ID (the worker's index): what jax.distributed.initialize takes.
//
// Success: every Worker succeeded. Worker 0 gets job-role=master.
// Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the JAXJob kind says; serve it as KubeflowJobKind(JAXJobSpec()).
const KubeflowKindSpec& JAXJobSpec();

}  // namespace kuota::jobs
