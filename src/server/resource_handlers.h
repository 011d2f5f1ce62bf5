// ResourceHandlers: the REST verbs on served resources as kube-apiserver
// implements them: get, list, watch, create, update, patch (the /status
// subresource kept apart from the main resource; /scale as an autoscaling/v1
// Scale), delete and deletecollection.
// Every write runs the AdmissionHook first. Thread-safe: one instance serves
// all request threads.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "server/admission_hook.h"
#include "server/admission_webhooks.h"
#include "server/crd_webhook_conversion.h"
#include "server/http_types.h"
#include "server/namespace_cache.h"
#include "server/request_target.h"
#include "server/status_errors.h"
#include "store/mutex.h"
#include "store/object_store.h"

namespace kuota::server {

struct HandlerOptions {
  int64_t default_watch_timeout_s = 1800;       // watches without timeoutSeconds
  int64_t watch_bookmark_interval_ms = 60'000;  // with allowWatchBookmarks
  int64_t watch_heartbeat_ms = 5'000;           // idle watches write "\n" to notice gone clients
  int64_t watch_page_size = 500;                // objects of a watch's initial state read at once
  // How long a watch from a resourceVersion the store has not reached waits.
  int64_t future_resource_version_wait_ms = 3'000;
  // Conversion webhooks of applied CRDs (kuotad --serve-only); null: kuotad's
  // built-in conversion always. Must outlive the handlers.
  const CrdWebhookConversion* webhooks = nullptr;
  // Registered admission webhooks called on every write (kuotad --serve-only);
  // null: none. Must outlive the handlers.
  const AdmissionWebhooks* admission_webhooks = nullptr;
};

class ResourceHandlers {
 public:
  // `store`, `hook` (nullable) and `clock` must outlive the handlers.
  ResourceHandlers(store::ObjectStore& store, AdmissionHook* hook, const Clock& clock,
                   HandlerOptions options);
  ResourceHandlers(const ResourceHandlers&) = delete;
  ResourceHandlers& operator=(const ResourceHandlers&) = delete;

  // Serves `request`, whose path parsed to `target` (a kResource target).
  HttpReply Handle(const HttpRequest& request, const RequestTarget& target);

  // Creates the Namespace `name` unless it exists.
  Status EnsureNamespace(const std::string& name);

  // Ends open watches and makes new ones fail (server shutdown).
  void StopWatches();

 private:
  using Json = nlohmann::json;

  HttpReply Get(const HttpRequest& request, const RequestTarget& target);
  HttpReply List(const HttpRequest& request, const RequestTarget& target);
  HttpReply Watch(const HttpRequest& request, const RequestTarget& target);
  HttpReply Create(const HttpRequest& request, const RequestTarget& target);
  HttpReply Update(const HttpRequest& request, const RequestTarget& target);
  HttpReply Patch(const HttpRequest& request, const RequestTarget& target);
  HttpReply Delete(const HttpRequest& request, const RequestTarget& target);
  HttpReply DeleteCollection(const HttpRequest& request, const RequestTarget& target);
  // GET, PUT and PATCH of the scale subresource (scale_handlers.cc).
  HttpReply Scale(const HttpRequest& request, const RequestTarget& target);

  // Create with an already decoded object (POST, and apply patches of absent objects).
  HttpReply CreateObject(const HttpRequest& request, const RequestTarget& target, Json object);
  // The request a write admits, as the admission webhooks are told of it.
  struct WriteRequest {
    const HttpRequest& request;
    std::string subresource;
    bool dry_run = false;
    // Where the admission webhooks' warnings go (null: dropped).
    std::vector<std::string>* warnings = nullptr;
  };
  // Runs the mutating admission webhooks, the admission hook, then the
  // validating admission webhooks; the error (if any) names `name`.
  std::optional<ApiError> Admit(const ResourceInfo& resource, AdmissionHook::Operation op,
                                const Json* old_object, Json* object, const std::string& name,
                                const WriteRequest& write);
  // The admission hook and kube-apiserver's built-in rules alone.
  std::optional<ApiError> AdmitBuiltIn(const ResourceInfo& resource, AdmissionHook::Operation op,
                                       const Json* old_object, Json* object,
                                       const std::string& name);
  // Adds `webhook_warnings`, then the hook's warnings for `object`, to
  // `reply` as Warning headers.
  HttpReply WithWarnings(const ResourceInfo& resource, const Json& object, HttpReply reply,
                         const std::vector<std::string>& webhook_warnings = {});
  // Deletes every namespaced object in namespace `ns` (a Namespace's deletion).
  std::optional<ApiError> DeleteNamespaceContents(const std::string& ns);
  // A reply with `object` (or a one-row Table when the client asked for one).
  HttpReply ObjectReply(const HttpRequest& request, const ResourceInfo& resource, int status,
                        const Json& object) const;
  // The same for a write's answer: served as stored, its text is the body.
  HttpReply ObjectReply(const HttpRequest& request, const ResourceInfo& resource, int status,
                        const store::WatchEvent& written) const;

  bool RegisterWatcher(store::Watcher* watcher);
  void UnregisterWatcher(store::Watcher* watcher);
  // Waits (up to future_resource_version_wait_ms) for the store to reach
  // `rv`; returns the store's resourceVersion, which is below `rv` when it
  // did not.
  int64_t WaitForResourceVersion(int64_t rv);

  store::ObjectStore& store_;
  NamespaceCache namespaces_;  // for creates: does their namespace exist
  AdmissionHook* const hook_;
  const Clock& clock_;
  const HandlerOptions options_;

  store::Mutex mu_;
  std::set<store::Watcher*> watchers_ GUARDED_BY(mu_);  // open watches, not owned
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace kuota::server
