#include "perf/api_client.h"

#include <httplib.h>

#include <cctype>

#include <nlohmann/json.hpp>

#include "server/client_credentials.h"

namespace kuota::perf {
namespace {

ApiReply ToReply(const httplib::Result& res) {
  ApiReply r;
  if (!res) {
    r.error = httplib::to_string(res.error());
    return r;
  }
  r.status = res->status;
  r.body = res->body;
  return r;
}

}  // namespace

Result<ServerAddress> ParseServerUrl(const std::string& url) {
  auto bad = [&](const std::string& why) {
    return Status::Invalid("--server \"" + url + "\": " + why +
                           " (want http(s)://HOST:PORT, e.g. https://127.0.0.1:8080)");
  };
  const bool tls = url.rfind("https://", 0) == 0;
  const std::string scheme = tls ? "https://" : "http://";
  if (url.rfind(scheme, 0) != 0) return bad("not an http:// or https:// URL");
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('/') != std::string::npos) return bad("a path is not supported");
  ServerAddress a;
  a.tls = tls;
  if (tls) a.port = 443;
  size_t colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
  if (host.empty()) return bad("no host");
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') {
      return bad("bad host name");
    }
  }
  if (colon != std::string::npos) {
    const std::string port = rest.substr(colon + 1);
    if (port.empty() || port.size() > 5) return bad("bad port");
    int p = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return bad("bad port");
      p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535) return bad("port out of range");
    a.port = p;
  }
  a.host = host;
  a.url = scheme + host + ":" + std::to_string(a.port);
  return a;
}

std::string DescribeReply(const ApiReply& reply) {
  if (reply.status == 0) return reply.error.empty() ? "no response" : reply.error;
  std::string out = "HTTP " + std::to_string(reply.status);
  nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  if (!body.is_discarded() && body.is_object() && body.value("kind", "") == "Status") {
    const std::string reason = body.value("reason", "");
    if (!reason.empty()) out += " " + reason;
    out += ": " + body.value("message", "");
  } else if (!reply.body.empty()) {
    out += ": " + reply.body.substr(0, 300);
  }
  return out;
}

ApiClient::ApiClient(const ServerAddress& server, std::atomic<int64_t>* requests)
    : cli_(std::make_unique<httplib::Client>(server.url)), requests_(requests) {
  // A CA without a certificate fails the handshake ("certificate verify failed").
  (void)server::UseCredentials(*cli_, server.tls ? server.ca_pem : std::string(), server.token);
  cli_->set_keep_alive(true);
  cli_->set_tcp_nodelay(true);
  cli_->set_connection_timeout(5, 0);
  cli_->set_read_timeout(60, 0);
  cli_->set_write_timeout(30, 0);
}

ApiClient::~ApiClient() = default;

ApiReply ApiClient::Get(const std::string& path) {
  if (requests_) ++*requests_;
  return ToReply(cli_->Get(path));
}

ApiReply ApiClient::Post(const std::string& path, const std::string& json) {
  if (requests_) ++*requests_;
  return ToReply(cli_->Post(path, json, "application/json"));
}

ApiReply ApiClient::MergePatch(const std::string& path, const std::string& json) {
  if (requests_) ++*requests_;
  return ToReply(cli_->Patch(path, json, "application/merge-patch+json"));
}

ApiReply ApiClient::Stream(const std::string& path,
                           const std::function<bool(const char*, size_t)>& on_data) {
  if (requests_) ++*requests_;
  cli_->set_read_timeout(3600, 0);  // a watch may stay quiet for long
  httplib::Result res =
      cli_->Get(path, [&](const char* data, size_t n) { return on_data(data, n); });
  cli_->set_read_timeout(60, 0);
  return ToReply(res);
}

void ApiClient::Stop() { cli_->stop(); }

}  // namespace kuota::perf
