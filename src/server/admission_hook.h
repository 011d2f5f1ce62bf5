// AdmissionHook: the callback the API server runs on every write before it
// reaches the store — Kueue's webhooks and Kubernetes' admission (defaulting,
// validation). Implementations must be thread-safe: the server calls it from
// its request threads concurrently.
#pragma once

#include <string>
#include <vector>

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
  // Kubernetes' admission warnings for a create or update that Admit
  // accepted, `object` as it will be stored: each is sent as a
  // `Warning: 299 - "text"` header, which kubectl prints as "Warning: text".
  // None by default. Must be thread-safe.
  virtual std::vector<std::string> Warnings(const ResourceInfo& /*resource*/,
                                            const nlohmann::json& /*object*/) {
    return {};
  }
};

}  // namespace kuota::server
