// Validation of Kueue objects with the rules Kueue's admission webhooks and
// CRD schemas enforce. Each failure names the field path and the value.
// Stateless functions; safe to call from any thread.
#pragma once

#include "api/object.h"
#include "base/status.h"

namespace kuota::validation {

// Validates one object on its own (no cross-object references). Returns the
// first error, or a single Invalid status listing all errors joined by "; ".
Status Validate(const api::Object& object);

// Names: DNS-1123 subdomain (ResourceFlavor, ClusterQueue, Cohort, Workload,
// priority classes) or label (Namespace, LocalQueue) as Kubernetes requires.
Status ValidateDns1123Subdomain(std::string_view value, std::string_view field_path);
Status ValidateDns1123Label(std::string_view value, std::string_view field_path);

}  // namespace kuota::validation
