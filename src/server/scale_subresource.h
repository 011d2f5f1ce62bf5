// ScaleSubresource: the autoscaling/v1 Scale kube-apiserver serves at
// .../{name}/scale for a kind that declares ScalePaths (Deployment,
// StatefulSet, and any kind that adds them): the Scale read from an object,
// and a written Scale's replicas put back into it. `kubectl scale` and
// HorizontalPodAutoscalers use it. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/resource_info.h"

namespace kuota::server {

// The Scale of `object` (a stored object of `r`, which has ScalePaths):
// metadata (name, namespace, uid, resourceVersion, creationTimestamp),
// spec.replicas (0 when unset: the kind's defaulting sets it), status.replicas
// and status.selector.
Result<nlohmann::json> ScaleOf(const ResourceInfo& r, const nlohmann::json& object);

// `object` with the replicas of `scale` (a Scale a client wrote) at its
// spec replicas path. Invalid, naming the field, when the Scale is not one:
// "spec.replicas: Invalid value: -1: must be greater than or equal to 0";
// Conflict when its metadata.resourceVersion is set and not the object's.
Result<nlohmann::json> ApplyScale(const ResourceInfo& r, const nlohmann::json& object,
                                  const nlohmann::json& scale);

// The value at a dotted path (".spec.replicas") of `object`, or nullptr.
const nlohmann::json* AtDottedPath(const nlohmann::json& object, const std::string& path);

// metav1.FormatLabelSelector of a LabelSelector object: "a=b,c in (x,y)";
// "" for an empty or absent selector.
std::string FormatSelector(const nlohmann::json& selector);

}  // namespace kuota::server
