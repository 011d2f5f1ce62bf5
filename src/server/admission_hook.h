// AdmissionHook: the callback the API server runs on every write before it
// reaches the store — Kueue's webhooks and Kubernetes' admission (defaulting,
// validation). Implementations must be thread-safe: the server calls it from
// its request threads concurrently.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/resource_info.h"

namespace kuota::server {

// Called on every write before it reaches the store (Kueue's webhooks and
// Kubernetes' admission): may mutate `object` (defaulting; e.g. suspend a
// queued Job) and may reject with a Status whose message names the field path
// (Invalid -> 422). `old_object` is null on create. On delete, `object` is the
// stored object (and `old_object` points to it too). Must be thread-safe.
class AdmissionHook {
 public:
  enum class Operation { kCreate, kUpdate, kDelete };
  virtual ~AdmissionHook() = default;
  virtual Status Admit(const ResourceInfo& resource, Operation op,
                       const nlohmann::json* old_object, nlohmann::json* object) = 0;
};

}  // namespace kuota::server
