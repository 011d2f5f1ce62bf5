// Kueue's rules on a managed job's labels at creation (jobframework's
// ValidateJobOnCreate): the kueue.x-k8s.io/queue-name label names a
// LocalQueue, so it must be a DNS-1123 subdomain (also checked on update);
// kueue.x-k8s.io/max-exec-time-seconds must be a positive integer; the
// elastic-job annotation only on kinds that support it. One
// implementation for kuotad's API and the Kubernetes mode's validating
// webhooks. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "jobs/job_kind.h"

namespace kuota::control {

// Ok, or Invalid as Kueue words it ("metadata.labels[kueue.x-k8s.io/queue-name]:
// Invalid value: \"Q\": a lowercase RFC 1123 subdomain must consist of ...").
Status ValidateJobQueueNameLabel(const nlohmann::json& job);

// The label Kueue copies into the Workload's spec.maximumExecutionTimeSeconds.
using jobs::kMaxExecTimeSecondsLabel;

// Ok without the label; else Invalid as Kueue words it, Go's strconv.Atoi
// error for a value that is not an integer
// ("metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value:
// \"ten\": strconv.Atoi: parsing \"ten\": invalid syntax") and "Invalid
// value: 0: should be greater than 0" for one that is not positive.
Status ValidateJobMaxExecTimeLabel(const nlohmann::json& job);

// Kueue's ValidateElasticJobAnnotation: kueue.x-k8s.io/elastic-job: "true"
// only on a kind that scales through workload slices (batch/v1 Job; ray.io/v1
// RayCluster, RayJob, RayService); else Invalid as Kueue words it
// ("metadata.annotations[kueue.x-k8s.io/elastic-job]: Forbidden: elastic job
// is not supported for \"kubeflow.org/v1, Kind=PyTorchJob\"").
Status ValidateElasticJobAnnotation(const jobs::JobKind& kind, const nlohmann::json& job);

}  // namespace kuota::control
