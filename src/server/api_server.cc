#include "server/api_server.h"

#include <chrono>
#include <exception>
#include <memory>
#include <thread>
#include <utility>

#include <sys/socket.h>

#include <httplib.h>

#include "server/pod_logs.h"
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
  r.body = req.body;
  return r;
}

// A Status body for errors the HTTP library answers itself (413 for a body
// over the limit, 400 for an unreadable request).
ApiError LibraryError(int status, size_t max_body_bytes) {
  switch (status) {
    case 413:
      return TooLargeError(max_body_bytes);
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

}  // namespace

struct ApiServer::Impl {
  Impl(store::ObjectStore& store, AdmissionHook* hook, ServerOptions opts)
      : options(std::move(opts)),
        clock(options.clock != nullptr ? *options.clock : real_clock),
        handlers(store, hook, clock,
                 HandlerOptions{options.default_watch_timeout_s,
                                options.watch_bookmark_interval_ms, 5'000}),
        pod_logs(store, PodLogOptions{options.pod_log_dir}),
        visibility(options.pending_workloads),
        router(handlers, pod_logs, visibility) {}

  void Serve(const httplib::Request& req, httplib::Response& res) {
    HttpReply reply;
    try {
      reply = router.Route(ToHttpRequest(req));
    } catch (const std::exception& e) {
      reply = InternalError(e.what()).ToReply();
    }
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name.c_str(), value);
    if (reply.stream) {
      res.set_chunked_content_provider(
          reply.content_type,
          [stream = std::move(reply.stream)](size_t /*offset*/, httplib::DataSink& sink) {
            stream([&sink](std::string_view chunk) {
              if (chunk.empty()) return sink.is_writable();  // a probe: is the client there?
              return sink.write(chunk.data(), chunk.size());
            });
            sink.done();
            return true;
          });
      return;
    }
    res.set_content(std::move(reply.body), reply.content_type.c_str());
  }

  const ServerOptions options;
  const RealClock real_clock;
  const Clock& clock;
  ResourceHandlers handlers;
  PodLogs pod_logs;
  VisibilityApi visibility;
  Router router;
  httplib::Server http;
  std::thread listener;
  int port = 0;
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
    KUOTA_RETURN_IF_ERROR(s.handlers.EnsureNamespace(ns).WithContext("creating namespace " +
                                                                     std::string(ns)));
  }
  const size_t threads = static_cast<size_t>(s.options.threads > 0 ? s.options.threads : 1);
  // httplib takes ownership of the queue it is handed.
  s.http.new_task_queue = [threads] {
    return std::make_unique<httplib::ThreadPool>(threads).release();
  };
  s.http.set_payload_max_length(s.options.max_body_bytes);
  s.http.set_keep_alive_max_count(1000);
  // Headers and body go out in separate writes: without TCP_NODELAY the body
  // waits for the client's delayed ACK (~40 ms per request).
  s.http.set_tcp_nodelay(true);
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

  // httplib listens with a backlog of 5: a burst of clients connecting at
  // once overflows the accept queue, and a connection whose request the
  // kernel dropped can then idle past the keep-alive timeout and be closed
  // unanswered. Remember the socket so its backlog can be raised after bind.
  // Only SO_REUSEADDR, not httplib's default SO_REUSEPORT: a second kuotad on
  // the same port must fail to start.
  int listen_fd = -1;
  s.http.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = sock;
  });
  if (s.options.port == 0) {
    s.port = s.http.bind_to_any_port(s.options.address);
  } else {
    s.port = s.http.bind_to_port(s.options.address, s.options.port) ? s.options.port : -1;
  }
  if (s.port <= 0) {
    return Status::Unavailable("cannot listen on " + s.options.address + ":" +
                               std::to_string(s.options.port));
  }
  if (listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
  s.started = true;
  s.listener = std::thread([&s] { s.http.listen_after_bind(); });
  // stop() only takes effect once the accept loop runs: wait for it.
  while (!s.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::Ok();
}

int ApiServer::port() const { return impl_->port; }

void ApiServer::Stop() {
  Impl& s = *impl_;
  if (!s.started || s.stopped) return;
  s.stopped = true;
  s.handlers.StopWatches();
  s.pod_logs.Stop();
  s.http.stop();
  if (s.listener.joinable()) s.listener.join();
}

}  // namespace kuota::server
