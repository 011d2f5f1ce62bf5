// Small accessors for fields of the JSON objects kuotad returns
// ("status.conditions[type=Admitted]"), which never throw and treat a missing
// or mistyped field as absent. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "server/json_fields.h"

namespace kuota::cli {

// The commands' short names for server/json_fields.h, which does the work.

// The value at `path` (object keys), or nullptr.
inline const nlohmann::json* Field(const nlohmann::json& object,
                                   std::initializer_list<const char*> path) {
  return server::FindField(object, path);
}
// The string at `path`, or `fallback`.
inline std::string Text(const nlohmann::json& object, std::initializer_list<const char*> path,
                        const std::string& fallback = "") {
  return server::StringField(object, path, fallback);
}
// The integer at `path`, or `fallback`.
inline int64_t Int(const nlohmann::json& object, std::initializer_list<const char*> path,
                   int64_t fallback = 0) {
  return server::IntField(object, path, fallback);
}
// The entry of .status.conditions whose type is `type`, or nullptr.
inline const nlohmann::json* Condition(const nlohmann::json& object, const std::string& type) {
  return server::FindCondition(object, {"status", "conditions"}, type);
}
// True when that condition's status is "True".
inline bool ConditionTrue(const nlohmann::json& object, const std::string& type) {
  return server::ConditionIsTrue(object, type);
}

}  // namespace kuota::cli
