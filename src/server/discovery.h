// Discovery: the documents kubectl reads to learn what the server serves —
// /api (APIVersions), /apis (APIGroupList), /apis/{group} (APIGroup),
// /api/v1 and /apis/{group}/{version} (APIResourceList), aggregated discovery
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) and /version — built from
// ServedResources(), plus pods/log and Kueue's visibility group (visibility.h).
// Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kuota::server {

// The gitVersion /version reports.
inline constexpr const char* kServerGitVersion = "v1.32.0-kuota";

// /api; `server_address` is the host:port clients reached (may be "").
nlohmann::json ApiVersionsDocument(const std::string& server_address);
// /apis
nlohmann::json ApiGroupListDocument();
// /apis/{group}; null when the group is not served.
nlohmann::json ApiGroupDocument(const std::string& group);
// /api/v1 (group "") or /apis/{group}/{version}; null when not served.
nlohmann::json ApiResourceListDocument(const std::string& group, const std::string& version);
// Aggregated discovery for /api (`core` true) or /apis.
nlohmann::json AggregatedDiscoveryDocument(bool core);
// /version
nlohmann::json VersionDocument();

}  // namespace kuota::server
