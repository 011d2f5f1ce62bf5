// ProtobufBody: decodes the Kubernetes protobuf encoding ("k8s\0" +
// runtime.Unknown) that kubectl's typed clients send for `create namespace`,
// `create priorityclass`, `create role/clusterrole/rolebinding/
// clusterrolebinding` and `auth can-i`/`whoami` into JSON. Only the fields of
// those kinds are known; others are skipped. Pure; thread-safe.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/resource_info.h"

namespace kuota::server {

inline constexpr const char* kProtobufContentType = "application/vnd.kubernetes.protobuf";

// True when objects of `resource` can be decoded from protobuf.
bool DecodesProtobuf(const ResourceInfo& resource);

// Decodes `body`. Invalid when it is not a well-formed protobuf envelope or
// names another kind; Unsupported for kinds DecodesProtobuf rejects.
Result<nlohmann::json> DecodeProtobufObject(std::string_view body, const ResourceInfo& resource);

// Decodes `body` as `kind` of `api_version` (e.g. a SelfSubjectAccessReview,
// which has no stored resource). Unsupported for kinds not known.
Result<nlohmann::json> DecodeProtobufKind(std::string_view body, std::string_view api_version,
                                          std::string_view kind);

}  // namespace kuota::server
