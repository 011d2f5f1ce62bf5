// ApiClient: one keep-alive HTTP/1.1 connection (cpp-httplib) to kuotad's
// Kubernetes-style API, speaking JSON: create, get, merge-patch and streamed
// GETs for watches. Transport failures and HTTP errors come back as values.
// Not thread-safe, except Stop(), which may be called from any thread to end a
// stream in progress; give each thread its own client.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"

namespace httplib {
class Client;
}

namespace kuota::perf {

struct ServerAddress {
  std::string host;
  int port = 80;
  std::string url;  // normalized: http://host:port or https://host:port
  bool tls = false;
  std::string ca_pem;  // with tls: the CA the server's certificate is signed by
  std::string token;   // bearer token sent with every request; empty: none
};

// Accepts http://HOST[:PORT][/] and https://...; anything else is an
// Invalid error that quotes the text.
Result<ServerAddress> ParseServerUrl(const std::string& url);

struct ApiReply {
  int status = 0;  // 0: no HTTP response (see error)
  std::string body;
  std::string error;  // transport failure, when status is 0
  bool ok() const { return status >= 200 && status < 300; }
};

// "HTTP 409 AlreadyExists: clusterqueues \"x\" already exists", or the
// transport failure ("Connection refused").
std::string DescribeReply(const ApiReply& reply);

class ApiClient {
 public:
  // `requests`, when set, counts every request sent (shared between clients).
  ApiClient(const ServerAddress& server, std::atomic<int64_t>* requests = nullptr);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  ApiReply Get(const std::string& path);
  ApiReply Post(const std::string& path, const std::string& json);
  ApiReply MergePatch(const std::string& path, const std::string& json);
  // A GET whose body is handed to `on_data` chunk by chunk as it arrives; ends
  // when the server ends it, `on_data` returns false, or Stop() is called.
  ApiReply Stream(const std::string& path, const std::function<bool(const char*, size_t)>& on_data);
  // Aborts the request in progress (thread-safe).
  void Stop();

 private:
  std::unique_ptr<httplib::Client> cli_;
  std::atomic<int64_t>* requests_;
};

}  // namespace kuota::perf
