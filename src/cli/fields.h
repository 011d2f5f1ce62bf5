// Small accessors for fields of the JSON objects kuotad returns
// ("status.conditions[type=Admitted]"), which never throw and treat a missing
// or mistyped field as absent. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace kuota::cli {

// The value at `path` (object keys), or nullptr.
const nlohmann::json* Field(const nlohmann::json& object, std::initializer_list<const char*> path);
// The string at `path`, or `fallback`.
std::string Text(const nlohmann::json& object, std::initializer_list<const char*> path,
                 const std::string& fallback = "");
// The integer at `path`, or `fallback`.
int64_t Int(const nlohmann::json& object, std::initializer_list<const char*> path,
            int64_t fallback = 0);
// The entry of .status.conditions whose type is `type`, or nullptr.
const nlohmann::json* Condition(const nlohmann::json& object, const std::string& type);
// True when that condition's status is "True".
bool ConditionTrue(const nlohmann::json& object, const std::string& type);

}  // namespace kuota::cli
