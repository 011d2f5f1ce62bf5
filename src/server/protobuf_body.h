// ProtobufBody: decodes the Kubernetes protobuf encoding ("k8s\0" +
// runtime.Unknown) that kubectl's typed clients send (`create namespace`,
// `create secret`, `create configmap`, `create job`, `create priorityclass`,
// `create role/clusterrole/rolebinding/clusterrolebinding`, `debug`,
// `auth can-i`/`whoami`, and the DeleteOptions of a typed delete) into the
// JSON object the same request would have sent as JSON: each message read
// through the table server/protobuf_schema generates from Kubernetes'
// definitions, zero values that JSON would leave out left out, fields the
// table does not know skipped. Pure; thread-safe.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/resource_info.h"

namespace kuota::server {

inline constexpr const char* kProtobufContentType = "application/vnd.kubernetes.protobuf";

// True when objects of `resource` can be decoded from protobuf.
bool DecodesProtobuf(const ResourceInfo& resource);

// Decodes `body`. Invalid, naming the field, when it is not a well-formed
// protobuf envelope or names another kind; Unsupported for kinds
// DecodesProtobuf rejects.
Result<nlohmann::json> DecodeProtobufObject(std::string_view body, const ResourceInfo& resource);

// Decodes `body` as `kind` of `api_version` (e.g. a SelfSubjectAccessReview,
// which has no stored resource). Unsupported for kinds not known.
Result<nlohmann::json> DecodeProtobufKind(std::string_view body, std::string_view api_version,
                                          std::string_view kind);

// Decodes the meta/v1 DeleteOptions body of a delete (its envelope may name
// any group's version, as client-go writes it).
Result<nlohmann::json> DecodeProtobufDeleteOptions(std::string_view body);

}  // namespace kuota::server
