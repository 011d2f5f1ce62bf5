// Conversion of Kueue objects between kueue.x-k8s.io/v1beta1 and v1beta2, and
// of the manager Configuration between config.kueue.x-k8s.io/v1beta1 and
// v1beta2, the way Kueue's conversion (apis/*/v1beta1/*_conversion.go) maps
// them: renamed fields move, fields one version lacks are dropped. Works on
// the JSON form of an object (what kuotad stores and serves). Pure functions;
// thread-safe.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::conversion {

inline constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
inline constexpr std::string_view kConfigGroup = "config.kueue.x-k8s.io";
inline constexpr std::string_view kV1beta1 = "v1beta1";
inline constexpr std::string_view kV1beta2 = "v1beta2";

// True for the kinds of kueue.x-k8s.io that both versions serve.
bool IsConvertibleKind(std::string_view kind);

// Converts `object` (its apiVersion says from which version) to
// `group/to_version` of its group (kueue.x-k8s.io or config.kueue.x-k8s.io).
// An object already in `to_version` is returned unchanged. Invalid, naming the
// field path, when the object cannot be expressed in the other version (e.g.
// a v1beta2 priorityClassRef of an unknown kind) or is not a convertible kind.
Result<nlohmann::json> Convert(const nlohmann::json& object, std::string_view to_version);

}  // namespace kuota::conversion
