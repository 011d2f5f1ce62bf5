// MetaString: a string field of a stored object's metadata (name, namespace,
// uid, resourceVersion, deletionTimestamp), "" when absent or not a string;
// LabelString: one of its labels.
// Shared by kuotad's loops. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "server/json_fields.h"

namespace kuota::control {

inline std::string MetaString(const nlohmann::json& object, const char* field) {
  return server::StringField(object, {"metadata", field});
}

// The value of label `key`, "" when absent.
inline std::string LabelString(const nlohmann::json& object, const char* key) {
  return server::StringField(object, {"metadata", "labels", key});
}

}  // namespace kuota::control
