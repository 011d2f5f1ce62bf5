#include "kube/kube_client.h"

#include <httplib.h>

#include <fstream>

#include "server/client_credentials.h"
#include "server/reply_status.h"
#include "server/transport_error.h"

namespace kuota::kube {
void WatchCanceller::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  if (client_ != nullptr) client_->stop();
}

KubeClient::KubeClient(ClusterTarget target, ClientOptions options)
    : target_(std::move(target)),
      options_(std::move(options)),
      limiter_(options_.qps, options_.burst),
      token_(target_.token),
      token_read_(std::chrono::steady_clock::now()) {
  client_ = Connect(options_.request_timeout_seconds);
}

std::string KubeClient::Token() {
  std::lock_guard<std::mutex> lock(token_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (!target_.token_file.empty() && now - token_read_ >= std::chrono::minutes(1)) {
    token_read_ = now;
    std::ifstream in(target_.token_file);
    std::string fresh;
    if (in && std::getline(in, fresh) && !fresh.empty()) token_ = fresh;
  }
  return token_;
}

KubeClient::~KubeClient() = default;

std::unique_ptr<httplib::Client> KubeClient::Connect(int read_timeout_seconds) {
  auto client = std::make_unique<httplib::Client>(target_.url);
  // The token goes in each request's headers (it may be rotated).
  (void)server::UseCredentials(*client, target_.ca_pem, "");
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(read_timeout_seconds, 0);
  client->set_write_timeout(30, 0);
  client->set_keep_alive(true);
  return client;
}

Result<Json> KubeClient::Request(const std::string& method, const std::string& path,
                                 const Json* body, const std::string& content_type) {
  limiter_.Acquire();
  std::lock_guard<std::mutex> lock(mu_);
  if (!client_->is_valid()) return Status::Invalid("bad API server URL \"" + target_.url + "\"");
  httplib::Headers headers = {{"Accept", "application/json"}, {"User-Agent", options_.user_agent}};
  if (const std::string token = Token(); !token.empty()) {
    headers.emplace("Authorization", "Bearer " + token);
  }
  const std::string text = body != nullptr ? body->dump() : std::string();
  auto send = [&]() -> httplib::Result {
    if (method == "GET") return client_->Get(path, headers);
    if (method == "POST") return client_->Post(path, headers, text, content_type.c_str());
    if (method == "PUT") return client_->Put(path, headers, text, content_type.c_str());
    if (method == "PATCH") return client_->Patch(path, headers, text, content_type.c_str());
    return client_->Delete(path, headers, text, content_type.c_str());
  };
  if (method != "GET" && method != "POST" && method != "PUT" && method != "PATCH" &&
      method != "DELETE") {
    return Status::Internal("KubeClient: unknown method " + method);
  }
  httplib::Result res = send();
  // A kept-alive connection the server closed while idle (httplib 0.11 reuses
  // it unchecked) fails to send: the request never left, so send it once more
  // on a fresh connection; a GET also when the answer was lost.
  if (!res && (res.error() == httplib::Error::Write ||
               (method == "GET" && res.error() == httplib::Error::Read))) {
    client_ = Connect(options_.request_timeout_seconds);
    res = send();
  }
  if (!res) {
    return Status::Unavailable("cannot reach the API server at " + target_.url + " (" + method +
                               " " + path + "): " + server::TransportError(res.error()));
  }
  if (res->status < 200 || res->status >= 300) {
    return server::StatusFromReply(res->status, res->body);
  }
  Json parsed = Json::parse(res->body, nullptr, false);
  if (parsed.is_discarded()) {
    return Status::Internal("the API server at " + target_.url + " answered " + method + " " +
                            path + " with something that is not JSON");
  }
  return parsed;
}

Status KubeClient::Watch(const std::string& path,
                         const std::function<bool(std::string_view line)>& on_line,
                         WatchCanceller& canceller) {
  limiter_.Acquire();
  // The server ends a watch after its timeoutSeconds; a connection silent
  // for much longer than that is dead.
  std::unique_ptr<httplib::Client> client = Connect(15 * 60);
  {
    std::lock_guard<std::mutex> lock(canceller.mu_);
    if (canceller.cancelled()) return Status::Ok();
    canceller.client_ = client.get();
  }
  int status = 0;
  std::string pending, error_body;
  bool stopped = false;
  httplib::Headers headers = {{"Accept", "application/json"}, {"User-Agent", options_.user_agent}};
  if (const std::string token = Token(); !token.empty()) {
    headers.emplace("Authorization", "Bearer " + token);
  }
  auto res = client->Get(
      path.c_str(), headers,
      [&](const httplib::Response& response) {
        status = response.status;
        // A Cancel() before the connection existed had nothing to cut.
        return !canceller.cancelled();
      },
      [&](const char* data, size_t len) {
        if (status < 200 || status >= 300) {
          error_body.append(data, len);
          return true;
        }
        pending.append(data, len);
        size_t start = 0;
        for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
          std::string_view line(pending.data() + start, nl - start);
          if (line.empty()) continue;
          if (!on_line(line)) {
            stopped = true;
            return false;
          }
        }
        pending.erase(0, start);
        return !canceller.cancelled();
      });
  {
    std::lock_guard<std::mutex> lock(canceller.mu_);
    canceller.client_ = nullptr;
  }
  if (stopped || canceller.cancelled()) return Status::Ok();
  if (!pending.empty() && status >= 200 && status < 300) {
    // A last event without its newline (a server that closes right after).
    if (!on_line(pending)) return Status::Ok();
  }
  if (!res) {
    if (status >= 200 && status < 300) return Status::Ok();  // the stream ended
    return Status::Unavailable("cannot reach the API server at " + target_.url +
                               " (watch): " + server::TransportError(res.error()));
  }
  if (res->status < 200 || res->status >= 300) {
    return server::StatusFromReply(res->status, error_body.empty() ? res->body : error_body);
  }
  return Status::Ok();
}

}  // namespace kuota::kube
