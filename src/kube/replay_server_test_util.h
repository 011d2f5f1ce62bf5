// ReplayServer (tests only): a kube-apiserver stand-in on 127.0.0.1 (an
// ephemeral port) that answers with recorded exchanges from
// src/kube/testdata/ (see the README there) and records every request that
// arrived — method, path, query, body and headers (Authorization,
// User-Agent, ...) — so that tests assert on what Kuota sent as well as on
// what it made of the answers. Watch replies are streamed chunked, one
// chunk per line (or every N bytes), optionally with a pause before each
// chunk and an idle hold after the last, then end (last chunk) or are cut
// (the connection closed mid-body). Server-side behaviour that needs state
// (a Lease other candidates write) is served by a Handler instead.
// Header-only; thread-safe: handlers run on the server's threads.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/cluster_target.h"

namespace kuota::kube::testing {

// Key order as written in the recording (kube-apiserver's order), so that
// the bytes served are the recorded ones.
using OrderedJson = nlohmann::ordered_json;

// src/kube/testdata, or $KUOTA_KUBE_TESTDATA when set.
inline std::string TestdataDir() {
  if (const char* env = std::getenv("KUOTA_KUBE_TESTDATA"); env != nullptr && *env != '\0') {
    return env;
  }
  return (std::filesystem::path(__FILE__).parent_path() / "testdata").string();
}

inline std::string ReadTestdata(const std::string& file) {
  const std::string path = TestdataDir() + "/" + file;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("replay: cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What the server answers to one request.
struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type
  std::string body;
  // Streamed (chunked transfer, as a watch): `body` in chunks of one line
  // each (chunk_bytes 0) or of chunk_bytes bytes, each written after `pause`;
  // then the stream stays open and idle for `hold` (or until the server
  // closes), then ends with the last chunk, or with `drop` is cut instead.
  bool stream = false;
  size_t chunk_bytes = 0;
  std::chrono::milliseconds pause{0};
  std::chrono::milliseconds hold{0};
  bool drop = false;

  // A JSON body, followed by a newline as kube-apiserver's encoder writes it.
  static Reply Json(int status, const nlohmann::json& body) {
    Reply r;
    r.status = status;
    r.body = body.dump() + "\n";
    return r;
  }
  // A meta/v1 Status error body.
  static Reply KubeStatus(int code, const std::string& reason, const std::string& message) {
    OrderedJson s = {
        {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", OrderedJson::object()},
        {"status", "Failure"}, {"message", message}, {"reason", reason},
        {"code", code}};
    Reply r;
    r.status = code;
    r.body = s.dump() + "\n";
    return r;
  }
  // A watch stream that sends nothing and stays open for `hold`.
  static Reply IdleStream(std::chrono::milliseconds hold) {
    Reply r;
    r.stream = true;
    r.hold = hold;
    return r;
  }

  std::vector<std::string> Chunks() const {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < body.size()) {
      size_t end;
      if (chunk_bytes > 0) {
        end = std::min(body.size(), start + chunk_bytes);
      } else {
        const size_t nl = body.find('\n', start);
        end = nl == std::string::npos ? body.size() : nl + 1;
      }
      out.push_back(body.substr(start, end - start));
      start = end;
    }
    return out;
  }
};

// One recorded request/response pair (testdata/NAME.json).
struct Exchange {
  std::string name;
  std::string method;
  std::string path;                          // without the query
  std::map<std::string, std::string> query;  // parameters a request must carry to match
  Reply reply;
};

inline bool EqualsIgnoreCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Loads testdata/NAME.json (NAME with or without ".json").
inline Exchange LoadExchange(const std::string& name) {
  const bool has_ext = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
  const std::string file = has_ext ? name : name + ".json";
  OrderedJson doc = OrderedJson::parse(ReadTestdata(file));
  Exchange e;
  e.name = name;
  const OrderedJson& rq = doc.at("request");
  e.method = rq.at("method").get<std::string>();
  e.path = rq.at("path").get<std::string>();
  if (rq.contains("query")) {
    for (const auto& [k, v] : rq["query"].items()) e.query[k] = v.get<std::string>();
  }
  const OrderedJson& rs = doc.at("response");
  e.reply.status = rs.at("status").get<int>();
  if (rs.contains("headers")) {
    for (const auto& [k, v] : rs["headers"].items()) {
      if (EqualsIgnoreCase(k, "Content-Type")) {
        e.reply.content_type = v.get<std::string>();
      } else {
        e.reply.headers.emplace_back(k, v.get<std::string>());
      }
    }
  }
  if (rs.contains("body_file")) {
    e.reply.body = ReadTestdata(rs["body_file"].get<std::string>());
  } else if (rs.contains("body")) {
    e.reply.body = rs["body"].dump() + "\n";
  }
  if (rs.contains("stream")) {
    const OrderedJson& st = rs["stream"];
    e.reply.stream = true;
    const std::string chunk = st.value("chunk", "line");
    if (chunk.rfind("bytes:", 0) == 0) e.reply.chunk_bytes = std::stoul(chunk.substr(6));
    e.reply.drop = st.value("end", "finish") == "drop";
  }
  return e;
}

// The parsed body of a recorded JSON reply (testdata/NAME.json's body).
inline nlohmann::json RecordedBody(const std::string& name) {
  return nlohmann::json::parse(LoadExchange(name).reply.body);
}

// What one request that reached the server carried.
struct RecordedRequest {
  std::string method;
  std::string path;                                // decoded, without the query
  std::string target;                              // as sent: path and query, percent-encoded
  std::string query;                               // the raw query after '?'
  std::multimap<std::string, std::string> params;  // decoded
  httplib::Headers headers;
  std::string body;
  std::chrono::steady_clock::time_point at;

  std::string Header(const std::string& key) const {
    auto it = headers.find(key);  // httplib::Headers compares keys without case
    return it == headers.end() ? "" : it->second;
  }
  bool HasParam(const std::string& key) const { return params.count(key) > 0; }
  std::string Param(const std::string& key) const {
    auto it = params.find(key);
    return it == params.end() ? "" : it->second;
  }
  bool IsWatch() const { return Param("watch") == "1" || Param("watch") == "true"; }
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

class ReplayServer {
 public:
  using Handler = std::function<Reply(const RecordedRequest&)>;

  ReplayServer() {
    // Room for several watch streams held open at once.
    server_.new_task_queue = [] { return new httplib::ThreadPool(16); };
    server_.set_keep_alive_timeout(1);
    auto serve = [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); };
    server_.Get(".*", serve);
    server_.Post(".*", serve);
    server_.Put(".*", serve);
    server_.Patch(".*", serve);
    server_.Delete(".*", serve);
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("replay: cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs would not end it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!server_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~ReplayServer() { Close(); }
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Answers the next `times` requests that match `exchange` (method, path,
  // its query parameters; a watch only to a watch) with its reply; times < 0:
  // every one. Routes are tried in the order added.
  void Add(Exchange exchange, int times = 1) {
    std::lock_guard<std::mutex> lock(mu_);
    Route r;
    r.method = std::move(exchange.method);
    r.path = std::move(exchange.path);
    r.query = std::move(exchange.query);
    r.reply = std::move(exchange.reply);
    r.remaining = times;
    routes_.push_back(std::move(r));
  }
  void Add(const std::string& name, int times = 1) { Add(LoadExchange(name), times); }
  // Answers every request for METHOD PATH (and, for GET, a watch only when
  // `watch`) with what `handler` returns.
  void Handle(std::string method, std::string path, Handler handler, bool watch = false) {
    std::lock_guard<std::mutex> lock(mu_);
    Route r;
    r.method = std::move(method);
    r.path = std::move(path);
    if (watch) r.query["watch"] = "1";
    r.handler = std::move(handler);
    r.remaining = -1;
    routes_.push_back(std::move(r));
  }

  std::vector<RecordedRequest> Requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // Those for METHOD (empty: any) and PATH (empty: any).
  std::vector<RecordedRequest> Requests(const std::string& method, const std::string& path) const {
    std::vector<RecordedRequest> out;
    for (const RecordedRequest& r : Requests()) {
      if ((method.empty() || r.method == method) && (path.empty() || r.path == path)) {
        out.push_back(r);
      }
    }
    return out;
  }
  // Requests no route answered ("METHOD TARGET"); they got a 404 Status.
  std::vector<std::string> Unmatched() const {
    std::lock_guard<std::mutex> lock(mu_);
    return unmatched_;
  }
  // Waits until `done(requests so far)` holds; false on timeout.
  bool WaitFor(const std::function<bool(const std::vector<RecordedRequest>&)>& done,
               std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return done(requests_); });
  }
  // Waits until `n` requests for METHOD PATH (watches only when `watch`) arrived.
  bool WaitForRequests(const std::string& method, const std::string& path, size_t n,
                       std::chrono::milliseconds timeout, bool watch = false) {
    return WaitFor(
        [&](const std::vector<RecordedRequest>& all) {
          size_t count = 0;
          for (const RecordedRequest& r : all) {
            if (r.method == method && r.path == path && (!watch || r.IsWatch())) ++count;
          }
          return count >= n;
        },
        timeout);
  }

  // Ends held streams (cutting them) and stops serving. Idempotent.
  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }

 private:
  struct Route {
    std::string method, path;
    std::map<std::string, std::string> query;
    Reply reply;
    Handler handler;
    int remaining = 1;
  };

  static bool Matches(const Route& route, const RecordedRequest& req) {
    if (route.method != req.method || route.path != req.path) return false;
    if ((route.query.count("watch") > 0) != req.IsWatch()) return false;
    for (const auto& [k, v] : route.query) {
      if (k == "watch") continue;
      if (req.Param(k) != v) return false;
    }
    return true;
  }

  void Serve(const httplib::Request& req, httplib::Response& res) {
    RecordedRequest r;
    r.method = req.method;
    r.path = req.path;
    r.target = req.target;
    const size_t q = req.target.find('?');
    if (q != std::string::npos) r.query = req.target.substr(q + 1);
    for (const auto& [k, v] : req.params) r.params.emplace(k, v);
    r.headers = req.headers;
    r.body = req.body;
    r.at = std::chrono::steady_clock::now();
    Reply reply;
    Handler handler;
    bool found = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(r);
      for (Route& route : routes_) {
        if (route.remaining == 0 || !Matches(route, r)) continue;
        if (route.remaining > 0) --route.remaining;
        if (route.handler) {
          handler = route.handler;
        } else {
          reply = route.reply;
        }
        found = true;
        break;
      }
      if (!found) unmatched_.push_back(r.method + " " + r.target);
    }
    cv_.notify_all();
    if (!found) {
      reply = Reply::KubeStatus(404, "NotFound",
                                "replay: no recorded exchange for " + r.method + " " + r.target);
    } else if (handler) {
      reply = handler(r);
    }
    Write(std::move(reply), res);
  }

  // Sleeps `d` unless the server closes first (then false).
  bool Idle(std::chrono::milliseconds d) {
    if (d.count() <= 0) return true;
    std::unique_lock<std::mutex> lock(mu_);
    return !cv_.wait_for(lock, d, [&] { return closing_; });
  }

  void Write(Reply reply, httplib::Response& res) {
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (!reply.stream) {
      res.set_content(reply.body, reply.content_type.c_str());
      return;
    }
    auto shared = std::make_shared<Reply>(std::move(reply));
    res.set_chunked_content_provider(shared->content_type,
                                     [this, shared](size_t, httplib::DataSink& sink) {
                                       for (const std::string& chunk : shared->Chunks()) {
                                         if (!Idle(shared->pause)) return false;
                                         if (!sink.write(chunk.data(), chunk.size())) return false;
                                       }
                                       if (!Idle(shared->hold) || shared->drop)
                                         return false;  // cut: no last chunk
                                       sink.done();
                                       return true;
                                     });
  }

  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool closing_ = false;
  std::vector<Route> routes_;
  std::vector<RecordedRequest> requests_;
  std::vector<std::string> unmatched_;
};

// The store key of Workloads, as the tests name the resources they watch.
inline constexpr const char* kWorkloadsKey = "workloads.kueue.x-k8s.io";

// The cluster a client under test talks to: `server`, with bearer `token`
// ("" for none).
inline ClusterTarget TargetOf(const ReplayServer& server, const std::string& token = "") {
  ClusterTarget t;
  t.url = server.url();
  t.token = token;
  return t;
}

}  // namespace kuota::kube::testing

// The kube tests use these by their short names.
namespace kuota::kube {

using std::chrono::milliseconds;
using testing::Exchange;
using testing::kWorkloadsKey;
using testing::LoadExchange;
using testing::RecordedBody;
using testing::RecordedRequest;
using testing::ReplayServer;
using testing::Reply;
using testing::TargetOf;

}  // namespace kuota::kube
