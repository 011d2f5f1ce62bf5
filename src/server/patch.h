// Patch: applies a PATCH request body to the stored object according to its
// Content-Type — JSON patch (RFC 6902), JSON merge patch (RFC 7386),
// strategic merge patch (built-in kinds only, as kube-apiserver) and, as an
// approximation of server-side apply, apply patches (merged like a JSON merge
// patch). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/resource_info.h"
#include "server/status_errors.h"

namespace kuota::server {

enum class PatchType { kJsonPatch, kMergePatch, kStrategicMergePatch, kApplyPatch };

// The patch type named by a Content-Type header; nullopt for anything else.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// Strategic merge patch is served for built-in kinds, not for Kueue's (as
// kube-apiserver serves it for built-ins but not for custom resources).
bool SupportsStrategicMergePatch(const ResourceInfo& resource);

// The 415 error for a patch type `resource` does not accept, listing the ones it does.
ApiError UnsupportedPatchError(const ResourceInfo& resource);

// Applies `body` (a patch of `type`) to `current`. On failure returns nullopt
// and sets `*error`: 400 BadRequest for a malformed patch, 422 Invalid when a
// JSON patch operation cannot be applied.
std::optional<nlohmann::json> ApplyPatch(PatchType type, const nlohmann::json& current,
                                         std::string_view body, ApiError* error);

}  // namespace kuota::server
