// TFJobSpec: the kubeflow.org/v1 TFJob integration (Kueue framework
// "kubeflow.org/tfjob"). Pod sets in Kueue's order: "chief", "master", "ps",
// "worker", "evaluator" (those present; count = replicas), all started at
// once. Validation is the training-operator webhook's (a container named
// "tensorflow" with an image in every template, at most one of Chief and
// Master) plus: replica types other than those five are rejected (the webhook
// accepts any key, but Kueue's pod sets, and so the quota, know only these),
// successPolicy is "" or "AllWorkers".
//
// Environment: TF_CONFIG, as the operator writes it, for a distributed job
// (more than one replica in all):
//   {"cluster": {"chief": [...], "ps": [...], "worker": [...]},
//    "task": {"type": "worker", "index": 1}, "environment": "cloud"}
// (the evaluator is not in the cluster). All pods share one machine, so every
// address is position.address and each replica gets its own port: the base
// port (the "tfjob-port" of the first replica type present, default 2222)
// plus the replica's ordinal across the job in Kueue's type order (chief 0,
// ps 0 -> +1, ps 1 -> +2, worker 0 -> +3, ...). The ports a job uses do not
// collide with each other; two jobs on one machine may.
//
// Success: the Chief (or Master) succeeded; without one, every Worker
// succeeded (successPolicy "AllWorkers"; the operator's default also accepts
// worker 0 alone, which per-pod-set counts cannot tell apart, so Kuota waits
// for all workers). The job-role=master label goes to the Chief/Master, or to
// worker 0 when there is neither. Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the TFJob kind says; serve it as KubeflowJobKind(TFJobSpec()).
const KubeflowKindSpec& TFJobSpec();

// The local port of replica `index` of `type` (see above) in TFJob `kind`.
int64_t TFReplicaPort(const KubeflowJobKind& kind, const Json& job, const std::string& type,
                      int64_t index);

}  // namespace kuota::jobs
