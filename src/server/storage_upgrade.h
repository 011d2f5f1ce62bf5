// The storage upgrade of kuotad's store (store::StoreOptions::upgrade):
// Kuota once stored Kueue's kinds (kueue.x-k8s.io) as v1beta1; it stores
// them as v1beta2 now, as Kueue v0.20 does. A row of a kueue.x-k8s.io
// resource whose object says apiVersion kueue.x-k8s.io/v1beta1 is converted
// to v1beta2 (api/conversion); every other row is current. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::server {

// The level UpgradeStoredObject brings a store to (StoreOptions::upgrade_level).
inline constexpr int64_t kStorageUpgradeLevel = 1;

// `object` in the form this build stores, or nullopt when it already is.
Result<std::optional<nlohmann::json>> UpgradeStoredObject(const std::string& resource,
                                                          const nlohmann::json& object);

}  // namespace kuota::server
