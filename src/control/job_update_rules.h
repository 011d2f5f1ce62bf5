// Kueue's rules on an update of a job or plain pod it manages (jobframework's
// ValidateJobOnUpdate, which the pod webhook runs too): the queue name does
// not change while the job runs (is not suspended; a pod: not gated), and a
// WorkloadPriorityClass label is not added to a running job nor removed from
// any; a pod's group name never changes. One implementation for kuotad's API
// and the Kubernetes mode's validating webhooks. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "jobs/job_kind.h"

namespace kuota::control {

// Ok, or Invalid naming the label as Kueue does
// ("metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field
// is immutable").
Status ValidateJobUpdate(const jobs::JobKind& kind, const nlohmann::json& old_job,
                         const nlohmann::json& new_job);
// The same rules for a plain pod (suspended while it holds Kueue's admission
// gate), and its kueue.x-k8s.io/pod-group-name label immutable once set.
Status ValidateManagedPodUpdate(const nlohmann::json& old_pod, const nlohmann::json& new_pod);

}  // namespace kuota::control
