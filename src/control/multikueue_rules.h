// Admission of Kueue's MultiKueueCluster and MultiKueueConfig, in their
// stored (v1beta2) form: the CRDs' defaults (kubeConfig.locationType Secret)
// and rules (required fields, lengths, enums, exactly one cluster source,
// 1 to 20 unique clusters), with the field paths and messages kube-apiserver
// gives for them. Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// True for "MultiKueueCluster" and "MultiKueueConfig".
bool IsMultiKueueKind(const std::string& kind);

// Fills the CRD defaults of `object` (of `kind`) in place.
void DefaultMultiKueueObject(const std::string& kind, nlohmann::json& object);

// Invalid naming the first field that breaks the CRD's rules; Ok otherwise.
Status ValidateMultiKueueObject(const std::string& kind, const nlohmann::json& object);

}  // namespace kuota::control
