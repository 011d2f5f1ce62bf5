// Kueue's CRD transition rules (CEL on oldSelf) for topology-aware
// scheduling's kinds, checked on an update as kube-apiserver checks them: a
// ResourceFlavor's spec.topologyName, once set, never changes; a Topology's
// spec.levels change only when kubernetes.io/hostname is the lowest level
// both before and after (v1beta2's rule, Kueue's stored version; v1beta1's
// CRD has them immutable). Both objects in their stored (v1beta1) form.
// Pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// OK for other kinds.
Status ValidateTasUpdate(const std::string& kind, const nlohmann::json& old_object,
                         const nlohmann::json& object);

}  // namespace kuota::control
