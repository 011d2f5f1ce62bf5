#include "server/api_server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>
#include <utility>

#include <sys/socket.h>

#include <sys/stat.h>
#include <sys/un.h>

#include <csignal>
#include <cstring>

#include <httplib.h>

#include "server/access_control.h"
#include "server/http_listener.h"
#include "server/pod_logs.h"
#include "server/request_target.h"
#include "server/resource_handlers.h"
#include "server/router.h"
#include "server/status_errors.h"
#include "server/visibility.h"

namespace kuota::server {
namespace {

// Converts the HTTP library's request into the server's own.
HttpRequest ToHttpRequest(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [key, value] : req.params) r.query.emplace(key, value);  // keeps the first
  r.accept = req.get_header_value("Accept");
  r.content_type = req.get_header_value("Content-Type");
  r.host = req.get_header_value("Host");
  r.authorization = req.get_header_value("Authorization");
  // Set by HttpListener on Unix-socket connections (and stripped from what
  // clients send), so it can be trusted.
  const std::string peer = req.get_header_value(kPeerUidHeader);
  if (!peer.empty()) r.peer_uid = std::stoll(peer);
  r.body = req.body;
  return r;
}

// A Status body for errors the HTTP library answers itself (413 for a body
// over the limit, 414 for a request line over httplib's, 400 for an
// unreadable request, which includes a header line over httplib's limit:
// httplib 0.11 has no 431).
ApiError LibraryError(int status, size_t max_body_bytes) {
  switch (status) {
    case 413:
      return TooLargeError(max_body_bytes);
    case 414: {
      ApiError e;
      e.code = 414;
      e.reason = "RequestURITooLong";
      e.message =
          "Request-URI Too Long: the request line (method, URI with its query, and "
          "HTTP version) must be at most " +
          std::to_string(CPPHTTPLIB_REQUEST_URI_MAX_LENGTH) + " bytes";
      return e;
    }
    case 404:
      return UnknownPathError();
    case 405:
      return MethodNotAllowedError();
    case 400:
      return BadRequestError("the request could not be read");
    default: {
      ApiError e = InternalError("HTTP " + std::to_string(status));
      e.code = status;
      return e;
    }
  }
}

// Counts the streamed replies (watches, pod logs) open at once, up to a limit.
class StreamSlots {
 public:
  explicit StreamSlots(int limit) : limit_(limit) {}

  // A slot, held until the last copy of the pointer is gone; null when all
  // are taken. Shared by the copies httplib makes of the stream's provider.
  std::shared_ptr<void> TryAcquire() {
    if (open_.fetch_add(1) >= limit_) {
      open_.fetch_sub(1);
      return nullptr;
    }
    return std::make_shared<Slot>(open_);
  }
  int limit() const { return limit_; }

 private:
  struct Slot {
    explicit Slot(std::atomic<int>& open) : open(open) {}
    ~Slot() { open.fetch_sub(1); }
    std::atomic<int>& open;
  };
  const int limit_;
  std::atomic<int> open_{0};
};

// 429 with Retry-After, as kube-apiserver's max-in-flight filter answers.
void TooManyStreams(int limit, httplib::Response& res) {
  ApiError e;
  e.code = 429;
  e.reason = "TooManyRequests";
  e.message = "Too many requests, please try again later: " + std::to_string(limit) +
              " watches and log streams are open, the most this server serves at once";
  nlohmann::json status = e.ToStatus();
  status["details"]["retryAfterSeconds"] = 1;
  res.status = 429;
  res.set_header("Retry-After", "1");
  res.set_content(status.dump(), "application/json");
}

ListenerOptions MakeListenerOptions(const ServerOptions& o) {
  using std::chrono::milliseconds;
  ListenerOptions l;
  l.threads = static_cast<size_t>(std::max(o.threads, 1));
  l.max_threads = static_cast<size_t>(std::max(o.max_threads, o.threads));
  l.read_timeout = milliseconds(o.read_timeout_ms);
  l.write_timeout = milliseconds(o.write_timeout_ms);
  l.request_read_timeout = milliseconds(o.request_read_timeout_ms);
  l.keep_alive_timeout = milliseconds(o.keep_alive_timeout_ms);
  return l;
}

// The health listener's: a thread always ready, a few for concurrent checks.
ListenerOptions HealthListenerOptions(const ServerOptions& o) {
  ListenerOptions l = MakeListenerOptions(o);
  l.threads = 1;
  l.max_threads = 4;
  return l;
}

// Binds `http` to address:port (0: any free port) with SO_REUSEADDR only
// (not httplib's SO_REUSEPORT: a second kuotad on the same port must fail to
// start) and a backlog of SOMAXCONN (httplib listens with 5: a burst of
// clients overflows it, and a connection whose request the kernel dropped
// can idle past the keep-alive timeout and be closed unanswered). Returns
// the bound port, or -1.
int Bind(httplib::Server& http, const std::string& address, int port) {
  int listen_fd = -1;
  http.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = sock;
  });
  int bound =
      port == 0 ? http.bind_to_any_port(address) : (http.bind_to_port(address, port) ? port : -1);
  http.set_socket_options([](socket_t) {});  // the one above refers to this frame
  if (bound > 0 && listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
  return bound > 0 ? bound : -1;
}

// Binds `http` to a Unix-domain socket at `path` that every local user may
// connect to (mode 0666: who they are is read from the connection). A
// socket file left by a kuotad that is gone is replaced; one a live server
// answers on is not.
Status BindUnix(httplib::Server& http, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return Status::Unavailable(path +
                                 " exists and is not a socket; remove it or choose "
                                 "another --socket");
    }
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    bool live =
        probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (probe >= 0) ::close(probe);
    if (live) return Status::Unavailable("another server is listening on " + path);
    ::unlink(path.c_str());
  }
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return Status::Invalid("socket path " + path + " is too long (the most is " +
                           std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes)");
  }
  http.set_address_family(AF_UNIX);
  if (!http.bind_to_port(path, 80)) return Status::Unavailable("cannot listen on " + path);
  if (::chmod(path.c_str(), 0666) != 0) {
    return Status::Unavailable("cannot make " + path + " reachable: " + std::strerror(errno));
  }
  return Status::Ok();
}

// Runs `http`'s accept loop on `thread`; returns once it accepts (stop()
// only takes effect from then on).
void Listen(HttpListener& http, std::thread& thread) {
  thread = std::thread([&http] { http.listen_after_bind(); });
  while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HandlerOptions MakeHandlerOptions(const ServerOptions& o, const CrdWebhookConversion* webhooks,
                                  const AdmissionWebhooks* admission) {
  HandlerOptions h;
  h.webhooks = webhooks;
  h.admission_webhooks = admission;
  h.default_watch_timeout_s = o.default_watch_timeout_s;
  h.watch_bookmark_interval_ms = o.watch_bookmark_interval_ms;
  h.watch_page_size = o.watch_page_size;
  h.future_resource_version_wait_ms = o.future_resource_version_wait_ms;
  return h;
}

}  // namespace

struct ApiServer::Impl {
  Impl(store::ObjectStore& store, AdmissionHook* hook, ServerOptions opts)
      : options(std::move(opts)),
        clock(options.clock != nullptr ? *options.clock : real_clock),
        webhooks(options.crd_conversion_webhooks ? std::make_unique<CrdWebhookConversion>(
                                                       store, *options.crd_conversion_webhooks)
                                                 : nullptr),
        admission_webhooks(options.admission_webhooks ? std::make_unique<AdmissionWebhooks>(
                                                            store, *options.admission_webhooks)
                                                      : nullptr),
        handlers(store, hook, clock,
                 MakeHandlerOptions(options, webhooks.get(), admission_webhooks.get())),
        aggregator(options.aggregation ? std::make_unique<Aggregator>(store, *options.aggregation)
                                       : nullptr),
        pod_logs(store, PodLogOptions{options.pod_log_dir}),
        visibility(options.pending_workloads),
        router(handlers, pod_logs, visibility, options.metrics),
        streams(std::max(options.max_long_requests, 1)),
        access(options.access),
        http(MakeListenerOptions(options)) {}

  void Serve(const httplib::Request& req, httplib::Response& res) {
    HttpReply reply;
    try {
      HttpRequest request = ToHttpRequest(req);
      std::optional<HttpReply> refused = access.Check(request);
      if (refused) {
        reply = std::move(*refused);
      } else if (aggregator && aggregator->Handles(request.path)) {
        reply = aggregator->Serve(request);
      } else {
        reply = router.Route(request);
        if (aggregator) aggregator->AmendDiscovery(request, reply);
      }
    } catch (const std::exception& e) {
      reply = InternalError(e.what()).ToReply();
    }
    if (reply.stream) {
      // A stream holds its connection's thread until it ends: cap them, so
      // the rest of the threads stay free for short requests.
      std::shared_ptr<void> slot = streams.TryAcquire();
      if (slot == nullptr) {
        TooManyStreams(streams.limit(), res);
        return;
      }
      res.status = reply.status;
      for (const auto& [name, value] : reply.headers) res.set_header(name.c_str(), value);
      res.set_chunked_content_provider(
          reply.content_type, [stream = std::move(reply.stream), slot = std::move(slot)](
                                  size_t /*offset*/, httplib::DataSink& sink) {
            stream([&sink](std::string_view chunk) {
              if (chunk.empty()) return sink.is_writable();  // a probe: is the client there?
              return sink.write(chunk.data(), chunk.size());
            });
            sink.done();
            return true;
          });
      return;
    }
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name.c_str(), value);
    res.set_content(std::move(reply.body), reply.content_type.c_str());
  }

  // The health listener's only route.
  static void ServeHealth(const httplib::Request& req, httplib::Response& res) {
    if (ParseRequestTarget(req.path).type != RequestTarget::Type::kHealth) {
      res.status = 404;
      res.set_content(UnknownPathError().ToStatus().dump(), "application/json");
      return;
    }
    res.set_content("ok", "text/plain");
  }

  const ServerOptions options;
  const RealClock real_clock;
  const Clock& clock;
  const std::unique_ptr<CrdWebhookConversion> webhooks;         // null: built-in conversion only
  const std::unique_ptr<AdmissionWebhooks> admission_webhooks;  // null: none called
  ResourceHandlers handlers;
  const std::unique_ptr<Aggregator> aggregator;  // null: no APIService is proxied
  PodLogs pod_logs;
  VisibilityApi visibility;
  Router router;
  StreamSlots streams;
  AccessControl access;
  HttpListener http;
  std::unique_ptr<HttpListener> unix_http;  // with options.unix_socket
  std::thread unix_listener;
  std::thread listener;
  std::unique_ptr<HttpListener> health;  // with options.health_port >= 0
  std::thread health_listener;
  int port = 0;
  int health_port = -1;
  bool started = false;
  bool stopped = false;
};

ApiServer::ApiServer(store::ObjectStore& store, AdmissionHook* hook, ServerOptions options)
    : impl_(std::make_unique<Impl>(store, hook, std::move(options))) {}

ApiServer::~ApiServer() { Stop(); }

Status ApiServer::Start() {
  Impl& s = *impl_;
  if (s.started) return Status::Internal("ApiServer::Start called twice");
  for (const char* ns : {"default", "kube-system"}) {
    KUOTA_RETURN_IF_ERROR(
        s.handlers.EnsureNamespace(ns).WithContext("creating namespace " + std::string(ns)));
  }
  if (s.aggregator) KUOTA_RETURN_IF_ERROR(s.aggregator->Start().WithContext("the API aggregator"));
  s.http.set_payload_max_length(s.options.max_body_bytes);
  const size_t max_body = s.options.max_body_bytes;
  s.http.set_error_handler([max_body](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      res.set_content(LibraryError(res.status, max_body).ToStatus().dump(), "application/json");
    }
  });
  s.http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown exception";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        ApiError e = InternalError(what);
        res.status = e.code;
        res.set_content(e.ToStatus().dump(), "application/json");
      });
  auto serve = [&s](const httplib::Request& req, httplib::Response& res) { s.Serve(req, res); };
  const std::string all = ".*";
  s.http.Get(all, serve);
  s.http.Post(all, serve);
  s.http.Put(all, serve);
  s.http.Patch(all, serve);
  s.http.Delete(all, serve);
  s.http.Options(all, serve);

  if (!s.options.tls_cert_file.empty()) {
    KUOTA_RETURN_IF_ERROR(s.http.EnableTls(s.options.tls_cert_file, s.options.tls_key_file));
    // A TLS write to a client that hung up must fail, not raise SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
  }
  s.port = Bind(s.http, s.options.address, s.options.port);
  if (s.port <= 0) {
    return Status::Unavailable("cannot listen on " + s.options.address + ":" +
                               std::to_string(s.options.port));
  }
  {
    std::string host = s.options.address;
    if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    s.access.set_server_url((s.options.tls_cert_file.empty() ? "http://" : "https://") + host +
                            ":" + std::to_string(s.port));
  }
  if (!s.options.unix_socket.empty()) {
    s.unix_http = std::make_unique<HttpListener>(MakeListenerOptions(s.options));
    s.unix_http->set_payload_max_length(s.options.max_body_bytes);
    s.unix_http->set_error_handler([max_body](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        res.set_content(LibraryError(res.status, max_body).ToStatus().dump(), "application/json");
      }
    });
    s.unix_http->Get(all, serve);
    s.unix_http->Post(all, serve);
    s.unix_http->Put(all, serve);
    s.unix_http->Patch(all, serve);
    s.unix_http->Delete(all, serve);
    s.unix_http->Options(all, serve);
    KUOTA_RETURN_IF_ERROR(BindUnix(*s.unix_http, s.options.unix_socket));
  }
  if (s.options.health_port >= 0) {
    s.health = std::make_unique<HttpListener>(HealthListenerOptions(s.options));
    s.health->set_payload_max_length(4096);
    s.health->Get(all, &Impl::ServeHealth);
    s.health->set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty()) {
        res.set_content(LibraryError(res.status, 4096).ToStatus().dump(), "application/json");
      }
    });
    s.health_port = Bind(*s.health, s.options.address, s.options.health_port);
    if (s.health_port <= 0) {
      return Status::Unavailable("cannot listen for health checks on " + s.options.address + ":" +
                                 std::to_string(s.options.health_port));
    }
  }
  s.started = true;
  Listen(s.http, s.listener);
  if (s.unix_http) Listen(*s.unix_http, s.unix_listener);
  if (s.health) Listen(*s.health, s.health_listener);
  return Status::Ok();
}

int ApiServer::port() const { return impl_->port; }

int ApiServer::health_port() const { return impl_->health_port; }

void ApiServer::Stop() {
  Impl& s = *impl_;
  if (!s.started || s.stopped) return;
  s.stopped = true;
  s.handlers.StopWatches();
  s.pod_logs.Stop();
  s.http.stop();
  // Clients idle on keep-alive or still sending a request would otherwise
  // hold their threads (and this call) until they time out; the watches just
  // stopped get a moment to write their last chunk.
  s.http.CloseConnections(std::chrono::seconds(2));
  if (s.listener.joinable()) s.listener.join();
  if (s.unix_http) {
    s.unix_http->stop();
    s.unix_http->CloseConnections(std::chrono::seconds(1));
    if (s.unix_listener.joinable()) s.unix_listener.join();
    ::unlink(s.options.unix_socket.c_str());
  }
  if (s.health) {
    s.health->stop();
    s.health->CloseConnections(std::chrono::seconds(1));
    if (s.health_listener.joinable()) s.health_listener.join();
  }
}

}  // namespace kuota::server
