// HttpRequest and HttpReply: the server's own view of one HTTP exchange, so
// routing and handlers are plain functions over values and only api_server.cc
// knows the HTTP library. Plain value types; a reply's stream function runs on
// the thread serving the request.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/user_info.h"

namespace kuota::server {

struct HttpRequest {
  std::string method;                        // "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string path;                          // URL-decoded path without the query
  std::map<std::string, std::string> query;  // first value of each parameter
  std::string accept;                        // the Accept header, "" when absent
  std::string content_type;                  // the Content-Type header, "" when absent
  std::string host;                          // the Host header
  std::string authorization;                 // the Authorization header, "" when absent
  int64_t peer_uid = -1;                     // the peer's uid on a Unix-domain socket; -1 over TCP
  std::string body;
  // Who is asking, as authenticated (an admin when kuotad runs without
  // authentication).
  auth::UserInfo user;

  // The query parameter `key`, or "" when absent.
  const std::string& Query(const std::string& key) const {
    static const std::string kEmpty;
    auto it = query.find(key);
    return it == query.end() ? kEmpty : it->second;
  }
  bool HasQuery(const std::string& key) const { return query.count(key) > 0; }
};

// Writes one chunk of a streamed reply; returns false once the client is gone.
// An empty chunk writes nothing and only reports whether the client is there.
using ChunkWriter = std::function<bool(std::string_view chunk)>;

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for streamed replies (watches): called once after the headers are
  // sent, writes chunks until the stream ends; `body` is then unused.
  std::function<void(const ChunkWriter& write)> stream;
};

}  // namespace kuota::server
