// XGBoostJobSpec: the kubeflow.org/v1 XGBoostJob integration (Kueue framework
// "kubeflow.org/xgboostjob"). Pod sets "master" then "worker" (Kueue's order;
// count = replicas), all started at once. Validation is the training-operator
// webhook's: replica types Master and Worker only, a Master with replicas
// exactly 1, a container named "xgboost" with an image in every template.
// restartPolicy defaults to Never.
//
// Environment (every container, as the operator's SetPodEnv writes it, with
// every address the pod's own position.address): MASTER_ADDR, MASTER_PORT
// (the Master's "xgboostjob-port", default 9999), WORLD_SIZE (total
// replicas), RANK (master 0, worker i -> i+1), PYTHONUNBUFFERED=1; with more
// than one replica also WORKER_PORT (the Worker's "xgboostjob-port", default
// 9999) and WORKER_ADDRS (one address per replica but the master,
// comma-separated; LightGBM reads these).
//
// Success: the Master succeeded. The Master gets job-role=master.
// Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the XGBoostJob kind says; serve it as KubeflowJobKind(XGBoostJobSpec()).
const KubeflowKindSpec& XGBoostJobSpec();

}  // namespace kuota::jobs
