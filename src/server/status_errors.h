// ApiError: an error as kube-apiserver reports it (HTTP code, reason, message
// and details), rendered as a meta/v1 Status body; constructors produce the
// messages kube-apiserver writes, so kubectl prints what users expect.
// Plain value type; the functions are pure and thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/http_types.h"
#include "server/resource_info.h"

namespace kuota::server {

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "Invalid", "Conflict", ...
  std::string message;  // what kubectl prints after "Error from server (Reason): "
  // details; empty strings are left out of the Status body.
  std::string name;
  std::string group;
  std::string kind;
  // details.causes: [{"reason","message","field"}], from which kubectl prints
  // Invalid errors ("The ClusterQueue "x" is invalid: spec.y: ...").
  nlohmann::json causes = nlohmann::json::array();

  // The meta/v1 Status object: {"kind":"Status","status":"Failure",...}.
  nlohmann::json ToStatus() const;
  // A JSON reply carrying ToStatus() with `code`.
  HttpReply ToReply() const;
};

// `clusterqueues.kueue.x-k8s.io "x" not found` (404 NotFound).
ApiError NotFoundError(const ResourceInfo& resource, const std::string& name);
// `namespaces "x" not found`, for a namespaced create into a missing namespace.
ApiError NamespaceNotFoundError(const std::string& ns);
// 404 for a path that names no served resource.
ApiError UnknownPathError();
// `... "x" already exists` (409 AlreadyExists).
ApiError AlreadyExistsError(const ResourceInfo& resource, const std::string& name);
// `Operation cannot be fulfilled on <resource> "x": <detail>` (409 Conflict).
ApiError ConflictError(const ResourceInfo& resource, const std::string& name,
                       const std::string& detail);
// `<Kind>.<group> "x" is invalid: <field errors>` (422 Invalid).
ApiError InvalidError(const ResourceInfo& resource, const std::string& name,
                      const std::string& field_errors);
ApiError BadRequestError(const std::string& message);  // 400 BadRequest
ApiError ForbiddenError(const ResourceInfo& resource, const std::string& name,
                        const std::string& message);             // 403 Forbidden
ApiError MethodNotAllowedError();                                // 405 MethodNotAllowed
ApiError UnsupportedMediaTypeError(const std::string& message);  // 415 UnsupportedMediaType
ApiError ExpiredError(const std::string& message);               // 410 Expired
ApiError TooLargeError(size_t limit_bytes);                      // 413 RequestEntityTooLarge
ApiError InternalError(const std::string& message);              // 500 InternalError

// Maps a Status from the store or the admission hook about object `name` of
// `resource` to the error kube-apiserver would give (NotFound, Conflict,
// Invalid, ...; a full disk is 507 InsufficientStorage; other I/O failures are
// 500 InternalError).
ApiError FromStatus(const Status& status, const ResourceInfo& resource, const std::string& name);

}  // namespace kuota::server
