// ApiServer: Kuota's Kubernetes-style REST API over an ObjectStore, close
// enough to kube-apiserver that the real kubectl works with only --server:
// discovery, OpenAPI, CRUD, selectors, patches, /status, watch, Tables and
// Status errors (the pieces live in router.h and resource_handlers.h).
// Thread-safe: requests are served on a pool of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "server/admission_hook.h"
#include "server/pending_workloads_source.h"
#include "server/resource_info.h"
#include "store/object_store.h"

namespace kuota::server {

using Json = nlohmann::json;

struct ServerOptions {
  std::string address = "127.0.0.1";  // loopback by default
  int port = 0;                       // 0: pick a free port; see ApiServer::port()
  size_t max_body_bytes = 3u << 20;   // kube-apiserver's limit is 3 MiB
  int threads = 16;                   // concurrent requests (watches hold one each)
  // Clock for Table ages ("5m"); null: the real clock. Must outlive the server.
  const Clock* clock = nullptr;
  // Watches without timeoutSeconds end after this long (kube: 30-60 minutes).
  int64_t default_watch_timeout_s = 1800;
  // With allowWatchBookmarks, a BOOKMARK event after this long without one.
  int64_t watch_bookmark_interval_ms = 60'000;
  // Pod logs, served at .../pods/NAME/log, are read from
  // <pod_log_dir>/<pod uid>/<container>.log. Empty: pod logs are unavailable.
  std::string pod_log_dir;
  // Kueue's visibility API (pending workloads in queue order) reads this;
  // null: that API answers 503. Must outlive the server; thread-safe.
  PendingWorkloadsSource* pending_workloads = nullptr;
};

class ApiServer {
 public:
  // `store` and `hook` (may be null) must outlive the server.
  ApiServer(store::ObjectStore& store, AdmissionHook* hook, ServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Creates the namespaces "default" and "kube-system" when missing (as a
  // cluster has them), binds and starts serving on background threads. Fails
  // when the store cannot be written or the address cannot be bound.
  Status Start();
  // The bound port (after Start).
  int port() const;
  // Stops accepting, ends open watches, joins the threads. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kuota::server
