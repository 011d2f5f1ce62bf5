// Kueue's rules on an update of a job it manages (jobframework's
// ValidateJobOnUpdate): the queue name does not change while the job runs
// (is not suspended), and a WorkloadPriorityClass label is not added to a
// running job nor removed from any. One implementation for kuotad's API and
// the Kubernetes mode's validating webhooks. Pure; thread-safe.
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

}  // namespace kuota::control
