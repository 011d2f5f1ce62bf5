// ConfigDataRules: what kube-apiserver does to a v1 ConfigMap or Secret on
// create and update before storing it — a Secret's stringData merged into
// data (base64) and its type defaulted to Opaque; key names
// ([-._a-zA-Z0-9]+, at most 253 characters, not "." or starting with ".."),
// string and base64 values, the 1 MiB total, the keys a Secret's type
// requires (kubernetes.io/tls: tls.crt and tls.key; dockerconfigjson: JSON in
// .dockerconfigjson; ...), a Secret's type never changing, and once
// immutable is true neither the data nor immutable changing. Errors are
// Invalid and name the field path ("data[a b]: Invalid value: ...").
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/resource_info.h"

namespace kuota::server {

// Kubernetes' limit on the bytes of a ConfigMap's or Secret's data.
inline constexpr size_t kMaxConfigDataBytes = 1024 * 1024;

// True for v1 ConfigMap and Secret, the kinds PrepareConfigData handles.
bool IsConfigDataKind(const ResourceInfo& resource);

// Normalizes `object` (a ConfigMap or Secret to store) and validates it;
// `old_object` is the stored object on update, nullptr on create.
Status PrepareConfigData(const ResourceInfo& resource, const nlohmann::json* old_object,
                         nlohmann::json& object);

}  // namespace kuota::server
