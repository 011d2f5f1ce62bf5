// Objects served in one version and stored in another: a ResourceInfo with a
// storage_version (kueue.x-k8s.io/v1beta2 kinds, stored as v1beta1) has its
// objects converted on the way in and out (api/conversion). Every other
// resource passes through unchanged. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/resource_info.h"

namespace kuota::server {

// The stored object as the client of `r` sees it. An object that cannot be
// converted (never for what kuotad stores) is returned unchanged.
nlohmann::json ToServedVersion(const ResourceInfo& r, nlohmann::json stored);

// A client's object of `r` in the version it is stored in; Invalid, naming the
// field path, when it has no form there.
Result<nlohmann::json> ToStorageVersion(const ResourceInfo& r, nlohmann::json served);

}  // namespace kuota::server
