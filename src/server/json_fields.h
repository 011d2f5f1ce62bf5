// Small accessors for fields of Kubernetes JSON objects ("metadata.name",
// "status.conditions[type=Admitted].status") that never throw and treat a
// missing or mistyped field as absent. Pure functions; thread-safe.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace kuota::server {

// The value at `path` (object keys), or nullptr when any step is absent or
// not an object.
const nlohmann::json* FindField(const nlohmann::json& object,
                                std::initializer_list<const char*> path);

// The value at `path`, or a null value when FindField finds none.
const nlohmann::json& FieldValue(const nlohmann::json& object,
                                 std::initializer_list<const char*> path);

// The string at `path`, or `fallback` when absent or not a string.
std::string StringField(const nlohmann::json& object, std::initializer_list<const char*> path,
                        const std::string& fallback = "");

// The integer at `path`, or `fallback` when absent or not a number.
int64_t IntField(const nlohmann::json& object, std::initializer_list<const char*> path,
                 int64_t fallback = 0);

// The entry of the condition list at `path` whose "type" is `type`, or nullptr.
const nlohmann::json* FindCondition(const nlohmann::json& object,
                                    std::initializer_list<const char*> path,
                                    const std::string& type);

// True when the condition `type` in .status.conditions has status "True".
bool ConditionIsTrue(const nlohmann::json& object, const std::string& type);

// Removes every null-valued member of every object inside `object` (as
// kube-apiserver's decoding into typed objects drops them), so that no reader
// meets a null where it expects a string, number or list. Nulls inside arrays
// stay (validation refuses them where it matters). Iterative.
void PruneNullMembers(nlohmann::json& object);

}  // namespace kuota::server
