// KubeClient: the Kubernetes driver's HTTP(S) client for a kube-apiserver:
// JSON requests (GET, POST, PUT, PATCH, DELETE) under a client-side rate limit
// (RateLimiter), errors as Status values from the server's meta/v1 Status body
// (409 Conflict vs AlreadyExists, 410 Expired as Gone, ...), and streamed
// watches read line by line that another thread can cut short.
// Thread-safe: requests are serialized over one keep-alive connection; each
// watch opens a connection of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/cluster_target.h"
#include "kube/rate_limiter.h"

namespace httplib {
class Client;
}

namespace kuota::kube {

using Json = nlohmann::json;

struct ClientOptions {
  // Kueue's clientConnection: requests per second and burst (qps <= 0: none).
  double qps = 50;
  int burst = 100;
  std::string user_agent = "kuotad/0.1.0 (kubernetes-driver)";
  int request_timeout_seconds = 30;
};

// Ends an open watch from another thread (KubeClient::Watch).
class WatchCanceller {
 public:
  // Cuts the watch's connection now and each time it is called again.
  void Cancel();
  bool cancelled() const { return cancelled_; }

 private:
  friend class KubeClient;
  std::mutex mu_;
  httplib::Client* client_ = nullptr;  // the watch's connection while open (not owned)
  std::atomic<bool> cancelled_{false};
};

class KubeClient {
 public:
  KubeClient(ClusterTarget target, ClientOptions options);
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  const std::string& url() const { return target_.url; }

  // One request; `body` null for none. 2xx: the parsed JSON body (a Status
  // object for some DELETEs). Else the server's error as a Status; no answer
  // at all: Unavailable naming the server.
  Result<Json> Request(const std::string& method, const std::string& path, const Json* body,
                       const std::string& content_type = "application/json");

  // GET `path` as a watch stream: calls `on_line` with each complete line of
  // the body (one watch event's JSON) until the server ends the stream, the
  // callback returns false, or `canceller` is cancelled. Ok when the stream
  // ended or was stopped; the HTTP error otherwise.
  Status Watch(const std::string& path, const std::function<bool(std::string_view line)>& on_line,
               WatchCanceller& canceller);

 private:
  std::unique_ptr<httplib::Client> Connect(int read_timeout_seconds);
  // The bearer token to send now (re-read from target_.token_file each minute).
  std::string Token();

  const ClusterTarget target_;
  const ClientOptions options_;
  RateLimiter limiter_;
  std::mutex mu_;  // serializes Request over client_
  std::unique_ptr<httplib::Client> client_;
  std::mutex token_mu_;
  std::string token_;
  std::chrono::steady_clock::time_point token_read_{};
};

}  // namespace kuota::kube
