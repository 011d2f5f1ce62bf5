// Kueue's rule on a managed job's queue name (jobframework's
// ValidateJobOnCreate, also checked on update): the kueue.x-k8s.io/queue-name
// label names a LocalQueue, so it must be a DNS-1123 subdomain. One
// implementation for kuotad's API and the Kubernetes mode's validating
// webhooks. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// Ok, or Invalid as Kueue words it ("metadata.labels[kueue.x-k8s.io/queue-name]:
// Invalid value: \"Q\": a lowercase RFC 1123 subdomain must consist of ...").
Status ValidateJobQueueNameLabel(const nlohmann::json& job);

}  // namespace kuota::control
