// ApiServer: Kuota's Kubernetes-style REST API over an ObjectStore, close
// enough to kube-apiserver that the real kubectl works with only --server:
// discovery, OpenAPI, CRUD, selectors, patches, /status, watch, Tables and
// Status errors (the pieces live in router.h and resource_handlers.h).
// Thread-safe: each connection is served on a thread of its own from a pool
// that grows on demand up to a cap (see ServerOptions and http_listener.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "metrics/registry.h"
#include "server/access_control.h"
#include "server/admission_hook.h"
#include "server/aggregator.h"
#include "server/crd_webhook_conversion.h"
#include "server/pending_workloads_source.h"
#include "server/resource_info.h"
#include "server/webhook_client.h"
#include "store/object_store.h"

namespace kuota::server {

using Json = nlohmann::json;

struct ServerOptions {
  std::string address = "127.0.0.1";  // loopback by default
  int port = 0;                       // 0: pick a free port; see ApiServer::port()
  size_t max_body_bytes = 3u << 20;   // kube-apiserver's limit is 3 MiB
  // Every open connection (an idle keep-alive one, a watch, a client still
  // sending its request) is served by a thread of its own, started on
  // demand: `threads` stay ready, at most `max_threads` run at once (more
  // connections wait for one to end), and extra threads idle for 10 s end.
  int threads = 16;
  int max_threads = 512;
  // Watches and pod log streams open at once; more are answered 429
  // TooManyRequests. Below max_threads, so that at least
  // max_threads - max_long_requests threads remain for short requests.
  int max_long_requests = 384;
  // A client silent this long in the middle of its request is dropped; a
  // reply (or watch event) it does not read for this long is abandoned.
  int64_t read_timeout_ms = 5'000;
  int64_t write_timeout_ms = 5'000;
  // A request's line, headers and body must all arrive within this long of
  // its first byte, however slowly they trickle in.
  int64_t request_read_timeout_ms = 30'000;
  // Idle keep-alive connections are closed after this long.
  int64_t keep_alive_timeout_ms = 5'000;
  // >= 0: also answer /healthz, /readyz and /livez on this port (0: any free
  // port; see ApiServer::health_port) of `address`, on a listener with
  // threads of its own that serves nothing else, so a health check is
  // answered even when the API's threads are all taken. -1: no such listener.
  int health_port = -1;
  // Clock for Table ages ("5m"); null: the real clock. Must outlive the server.
  const Clock* clock = nullptr;
  // Watches without timeoutSeconds end after this long (kube: 30-60 minutes).
  int64_t default_watch_timeout_s = 1800;
  // With allowWatchBookmarks, a BOOKMARK event after this long without one.
  int64_t watch_bookmark_interval_ms = 60'000;
  // A watch's initial state is read from the store and sent this many
  // objects at a time, so a watch holds one page, not the whole collection.
  int64_t watch_page_size = 500;
  // A watch from a resourceVersion the store has not reached waits this long
  // for it, then ends with kube's 504 "Too large resource version" error.
  int64_t future_resource_version_wait_ms = 3'000;
  // Pod logs, served at .../pods/NAME/log, are read from
  // <pod_log_dir>/<pod uid>/<container>.log. Empty: pod logs are unavailable.
  std::string pod_log_dir;
  // TLS: with both set, the API is served over TLS with this certificate.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Non-empty: the API is also served on a Unix-domain socket here (mode
  // 0666), where a request's identity is its peer's uid; POST
  // /kuota/v1/login is answered only there.
  std::string unix_socket;
  // Authentication and authorization (see access_control.h); the default
  // serves every request as an admin.
  AccessOptions access;
  // Kueue's visibility API (pending workloads in queue order) reads this;
  // null: that API answers 503. Must outlive the server; thread-safe.
  PendingWorkloadsSource* pending_workloads = nullptr;
  // /metrics (Prometheus text, or OpenMetrics when asked) renders this; null:
  // 404. Authenticated like the API (RBAC nonResourceURLs "/metrics").
  const metrics::Registry* metrics = nullptr;
  // Set (kuotad --serve-only): a kind whose applied CRD says
  // spec.conversion.strategy Webhook is converted by calling that webhook,
  // as kube-apiserver does (crd_webhook_conversion.h); unset: kuotad's
  // built-in conversion always.
  std::optional<CrdWebhookOptions> crd_conversion_webhooks;
  // Set (kuotad --serve-only): APIServices are proxied to their Services as
  // kube-apiserver's aggregator does (aggregator.h); unset: none are.
  std::optional<AggregatorOptions> aggregation;
  // Set (kuotad --serve-only): every write calls the admission webhooks that
  // stored Mutating/ValidatingWebhookConfigurations register, as
  // kube-apiserver does (admission_webhooks.h); unset: none are called.
  std::optional<WebhookCallOptions> admission_webhooks;
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
  // The health listener's bound port (after Start); -1 without one.
  int health_port() const;
  // Stops accepting, ends open watches, closes idle connections and those
  // still sending a request, gives requests being answered up to 2 s, joins
  // the threads. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kuota::server
