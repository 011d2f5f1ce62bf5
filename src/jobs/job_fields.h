// Job fields: reading and checking the fields of a job object as stored, with
// errors that name the field path the way kube's validation does
// ("spec.tasks[0].replicas: Invalid value: -1: must be greater than or equal
// to 0"). Shared by every job kind's adapter. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/status.h"

namespace kuota::jobs {

// "Required value" for `path`.
Status Required(const std::string& path);
// "Invalid value: <value>: <why>" for `path`.
Status InvalidValue(const std::string& path, const nlohmann::json& value, const std::string& why);

// The integer at obj[key], `fallback` when absent or null; Invalid naming
// `path`.key when it is not an integer or is below `min`.
Result<int64_t> IntField(const nlohmann::json& obj, const char* key, const std::string& path,
                         int64_t fallback, int64_t min = 0);
// The string at obj[key], `fallback` when absent or null; Invalid when not a
// string.
Result<std::string> StringField(const nlohmann::json& obj, const char* key, const std::string& path,
                                const std::string& fallback = "");
// The object at obj[key]; Required when absent, Invalid when not an object.
Result<const nlohmann::json*> ObjectField(const nlohmann::json& obj, const char* key,
                                          const std::string& path);
// Invalid naming `path`.key when obj[key] is present, not null and not a
// boolean.
Status CheckBool(const nlohmann::json& obj, const char* key, const std::string& path);

// A pod template as kube validates one inside a workload controller's spec:
// an object with a spec whose containers are non-empty and whose fields have
// the types the pod runner reads (path: "spec.tasks[0].template").
Status CheckPodTemplate(const nlohmann::json& tmpl, const std::string& path);

// The job's metadata.name, or "".
std::string JobName(const nlohmann::json& job);

// metadata.<field> ("namespace", "uid", ...) when a string, else "".
std::string MetaStr(const nlohmann::json& obj, const char* field);
// metadata.<map>[key] for map "labels" or "annotations" when a string, else "".
std::string MetaMapValue(const nlohmann::json& obj, const char* map, const char* key);

// Lenient readers for objects already validated (or being reported on): the
// member `key` of `obj` when it has that type, else the fallback / an empty
// value. Never throw.
const nlohmann::json& EmptyObject();
const nlohmann::json& EmptyArray();
const nlohmann::json& ObjAt(const nlohmann::json& obj, const char* key);
const nlohmann::json& ArrAt(const nlohmann::json& obj, const char* key);
// The job's spec object (an empty object when absent).
const nlohmann::json& SpecOf(const nlohmann::json& job);
std::string StrAt(const nlohmann::json& obj, const char* key);
int64_t IntAt(const nlohmann::json& obj, const char* key, int64_t fallback);
bool Contains(const std::vector<std::string>& list, const std::string& value);

// `s` as a JSON string literal, as kube quotes values in messages.
std::string Quoted(const std::string& s);
// "path: Unsupported value: \"v\": supported values: \"a\", \"b\"".
Status NotSupportedValue(const std::string& path, const std::string& value,
                         const std::vector<std::string>& supported);
// The longest DNS-1123 label kube accepts: the bound on a name that becomes
// a label value or a pod's hostname.
inline constexpr size_t kMaxLabelLength = 63;
// Kube's IsDNS1123Label (at most 63 characters): "" when valid, else its message.
std::string CheckDns1123(const std::string& value);
// Kube's IsQualifiedName, the syntax of a label key ("[prefix/]name": a
// DNS-1123 subdomain prefix, a name part of at most 63 characters): "" when
// valid, else its first message (api/validation's CheckQualifiedName, which
// jobs does not link: the module graph in src/CMakeLists.txt).
std::string CheckQualifiedName(const std::string& value);

// Appends NAME=VALUE pairs to every container's (and init container's) env.
void AppendEnv(nlohmann::json& pod, const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace kuota::jobs
