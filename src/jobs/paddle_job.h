// PaddleJobSpec: the kubeflow.org/v1 PaddleJob integration (Kueue framework
// "kubeflow.org/paddlejob"). Pod sets "master" then "worker" (Kueue's order;
// count = replicas), all started at once (the operator has no init container:
// paddle's launcher waits for its master itself). Validation is the
// training-operator webhook's: replica types Master and Worker only, a
// container named "paddle" with an image in every template (its message
// quotes the name); elasticPolicy's fields have their types. restartPolicy
// defaults to OnFailure.
//
// Environment (every container, as the operator's setPodEnv writes it, with
// every address the pod's own position.address): PYTHONUNBUFFERED=1,
// PADDLE_JOB_ID (the job's name), PADDLE_NNODES (total replicas),
// PADDLE_MASTER (host:port of the rendezvous pod: master 0 when there is a
// Master, "PS mode", else worker 0, "collective mode"; the port is that type's
// container port "master", default 36543). The rendezvous pod also gets
// POD_IP_DUMMY (its own address; the operator gives it status.podIP and
// PADDLE_MASTER "$(POD_IP_DUMMY):port", which reads the same here). In PS mode
// Masters get PADDLE_SERVER_NUM=1 and Workers PADDLE_TRAINER_NUM=1.
//
// Success: the Master succeeded; without one, every Worker succeeded. The
// Master gets job-role=master. Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the PaddleJob kind says; serve it as KubeflowJobKind(PaddleJobSpec()).
const KubeflowKindSpec& PaddleJobSpec();

}  // namespace kuota::jobs
