// Admission of Kueue's ProvisioningRequestConfig (kueue.x-k8s.io, both
// versions have the same fields; kept in v1beta2): the CRD's defaults
// (retryStrategy 3 / 60 s / 1800 s) and rules (provisioningClassName
// required, a DNS subdomain of at most 253 bytes; at most 100 parameters of
// at most 255 bytes; at most 100 unique managedResources; podSetUpdates
// nodeSelector at most 8 entries with a label key and a detail name;
// podSetMergePolicy one of two; int32 retry fields), with the field paths
// and messages kube-apiserver gives for them. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// Fills the CRD defaults of a ProvisioningRequestConfig in place.
void DefaultProvisioningRequestConfig(nlohmann::json& object);

// Invalid naming every field that breaks the CRD's rules; Ok otherwise.
Status ValidateProvisioningRequestConfig(const nlohmann::json& object);

}  // namespace kuota::control
