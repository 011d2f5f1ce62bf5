// OpenAPI: the v3 index and per-group-version documents and a JSON v2
// document. Schemas are permissive, but operations and schemas carry
// x-kubernetes-group-version-kind and PATCH declares fieldValidation, so
// kubectl leaves validation to the server. Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace kuota::server {

// /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}
// from the served group-versions' documents as sent ("group/version" -> dumped
// OpenApiV3Document), whose hashes the URLs carry.
nlohmann::json OpenApiV3Index(const std::map<std::string, std::string>& documents);
// /openapi/v3/api/v1 (group "") or /openapi/v3/apis/{group}/{version}; null when not served.
nlohmann::json OpenApiV3Document(const std::string& group, const std::string& version);
// /openapi/v2 as JSON (Swagger 2.0).
nlohmann::json OpenApiV2Document();

}  // namespace kuota::server
