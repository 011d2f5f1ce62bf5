// Test-only helpers for the server's tests: a fixture that runs a real
// ApiServer on 127.0.0.1 (port 0) over a real ObjectStore in a temporary
// directory, a small HTTP client wrapper, readers that collect a streamed
// body or watch events on a background thread, and object builders.
// Not thread-safe except StreamReader and WatchReader, whose methods may race
// their thread.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/api_server.h"
#include "store/object_store.h"
#include "testing/temp_dir.h"

namespace kuota::server::testing {

using Json = nlohmann::json;

inline constexpr char kKueue[] = "/apis/kueue.x-k8s.io/v1beta1";
// The ClusterQueues, and the Workloads of namespace "default".
inline const std::string kCqs = std::string(kKueue) + "/clusterqueues";
inline const std::string kWls = std::string(kKueue) + "/namespaces/default/workloads";

struct Reply {
  int status = 0;  // 0: no HTTP response
  std::string raw;
  Json body;  // parsed when the body is JSON, else null
  std::string content_type;
};

inline Reply ToReply(const httplib::Result& res) {
  Reply r;
  if (!res) return r;
  r.status = res->status;
  r.raw = res->body;
  r.content_type = res->get_header_value("Content-Type");
  r.body = Json::parse(r.raw, nullptr, false);
  if (r.body.is_discarded()) r.body = nullptr;
  return r;
}

// The name of the object a watch event carries.
inline std::string EventName(const Json& event) { return event["object"]["metadata"]["name"]; }

// `e` is a watch event of `type` about the object `name`.
inline void ExpectEvent(const Json& e, const std::string& type, const std::string& name) {
  ASSERT_TRUE(e.is_object()) << "no event";
  EXPECT_EQ(e["type"], type);
  EXPECT_EQ(EventName(e), name);
}

inline Json ClusterQueue(const std::string& name, const std::string& cohort = "") {
  Json cq = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
             {"kind", "ClusterQueue"},
             {"metadata", {{"name", name}}},
             {"spec", {{"namespaceSelector", Json::object()}}}};
  if (!cohort.empty()) cq["spec"]["cohort"] = cohort;
  return cq;
}

inline Json LocalQueue(const std::string& ns, const std::string& name, const std::string& cq) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "LocalQueue"},
          {"metadata", {{"namespace", ns}, {"name", name}}},
          {"spec", {{"clusterQueue", cq}}}};
}

inline Json Workload(const std::string& ns, const std::string& name, Json labels = Json::object()) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Workload"},
          {"metadata", {{"namespace", ns}, {"name", name}, {"labels", std::move(labels)}}},
          {"spec", {{"queueName", "lq"}}}};
}

inline Json Namespace(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

inline Json Job(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"namespace", ns}, {"name", name}}},
          {"spec",
           {{"parallelism", 1},
            {"completions", 3},
            {"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers",
                 Json::array({{{"name", "main"},
                               {"image", "busybox"},
                               {"env", Json::array({{{"name", "A"}, {"value", "1"}}})}}})}}}}}}}};
}

// Collects the body of one streamed GET on a background thread.
class StreamReader {
 public:
  StreamReader(int port, const std::string& path, const std::string& accept = "")
      : client_("127.0.0.1", port) {
    client_.set_read_timeout(30, 0);
    thread_ = std::thread([this, path, accept] {
      httplib::Headers headers;
      if (!accept.empty()) headers.emplace("Accept", accept);
      auto res = client_.Get(path.c_str(), headers, [this](const char* data, size_t len) {
        std::lock_guard<std::mutex> lock(mu_);
        body_.append(data, len);
        cv_.notify_all();
        return !stop_;
      });
      std::lock_guard<std::mutex> lock(mu_);
      status_ = res ? res->status : -1;
      if (res) content_type_ = res->get_header_value("Content-Type");
      done_ = true;
      cv_.notify_all();
    });
  }
  ~StreamReader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    client_.stop();
    thread_.join();
  }

  // Waits until the body contains `text`; false on timeout.
  bool WaitFor(const std::string& text,
               std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      return body_.find(text) != std::string::npos || done_;
    }) && body_.find(text) != std::string::npos;
  }
  // Waits for the stream to end; true when it did.
  bool WaitDone(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return done_; });
  }
  // Waits for the stream to end; returns the HTTP status (-1: no response).
  int Wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [this] { return done_; });
    return done_ ? status_ : 0;
  }
  std::string body() {
    std::lock_guard<std::mutex> lock(mu_);
    return body_;
  }
  int status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }
  std::string content_type() {
    std::lock_guard<std::mutex> lock(mu_);
    return content_type_;
  }

 protected:
  std::mutex mu_;
  std::condition_variable cv_;
  std::string body_;  // what has come and was not taken
  bool done_ = false;

 private:
  httplib::Client client_;
  std::string content_type_;
  bool stop_ = false;
  int status_ = 0;
  std::thread thread_;
};

// Reads the events of one watch request, a JSON object a line.
class WatchReader : public StreamReader {
 public:
  WatchReader(int port, const std::string& path, const std::string& accept = "application/json")
      : StreamReader(port, path, accept) {}

  // The next event, or null after `timeout` (or when the stream ended).
  Json Next(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<Json> event;
    cv_.wait_for(lock, timeout, [&] { return (event = TakeEvent()).has_value() || done_; });
    return event ? *event : Json(nullptr);
  }

 private:
  // The first whole line of the body, taken from it; empty lines are
  // heartbeats. With mu_ held.
  std::optional<Json> TakeEvent() {
    size_t nl;
    while ((nl = body_.find('\n')) != std::string::npos) {
      std::string line = body_.substr(0, nl);
      body_.erase(0, nl + 1);
      if (!line.empty()) return Json::parse(line, nullptr, false);
    }
    return std::nullopt;
  }
};

// A real server over a real store in a fresh temporary directory.
class ServerTest : public ::testing::Test {
 protected:
  virtual AdmissionHook* Hook() { return nullptr; }
  virtual void Configure(store::StoreOptions& /*store*/, ServerOptions& /*server*/) {}

  void SetUp() override {
    tmp_.emplace("kuota-server");
    ASSERT_TRUE(tmp_->ok());
    dir_ = tmp_->path();
    store::StoreOptions store_options;
    store_options.path = dir_ + "/kuota.db";
    store_options.sync = false;
    ServerOptions server_options;
    Configure(store_options, server_options);
    auto opened = store::ObjectStore::Open(store_options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
    server_ = std::make_unique<ApiServer>(*store_, Hook(), server_options);
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }

  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
    server_.reset();
    store_.reset();
    tmp_.reset();  // removes dir_
  }

  int port() const { return server_->port(); }

  Reply Get(const std::string& path, const std::string& accept = "application/json") {
    return ToReply(client_->Get(path.c_str(), {{"Accept", accept}}));
  }
  Reply Post(const std::string& path, const Json& body, const std::string& query = "") {
    return ToReply(client_->Post((path + query).c_str(), body.dump(), "application/json"));
  }
  Reply PostRaw(const std::string& path, const std::string& body, const std::string& type) {
    return ToReply(client_->Post(path.c_str(), body, type.c_str()));
  }
  Reply Put(const std::string& path, const Json& body) {
    return ToReply(client_->Put(path.c_str(), body.dump(), "application/json"));
  }
  Reply Patch(const std::string& path, const std::string& body, const std::string& type) {
    return ToReply(client_->Patch(path.c_str(), body, type.c_str()));
  }
  Reply MergePatch(const std::string& path, const std::string& body) {
    return Patch(path, body, "application/merge-patch+json");
  }
  Reply Delete(const std::string& path, const std::string& body = "") {
    if (body.empty()) return ToReply(client_->Delete(path.c_str()));
    return ToReply(client_->Delete(path.c_str(), body, "application/json"));
  }

  std::optional<kuota::testing::TempDir> tmp_;
  std::string dir_;  // tmp_'s path
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

// Asserts a kube Status error body with `code` and `reason`.
inline void ExpectStatus(const Reply& r, int code, const std::string& reason) {
  EXPECT_EQ(r.status, code) << r.raw;
  ASSERT_TRUE(r.body.is_object()) << r.raw;
  EXPECT_EQ(r.body.value("kind", ""), "Status") << r.raw;
  EXPECT_EQ(r.body.value("apiVersion", ""), "v1") << r.raw;
  EXPECT_EQ(r.body.value("status", ""), "Failure") << r.raw;
  EXPECT_EQ(r.body.value("reason", ""), reason) << r.raw;
  EXPECT_EQ(r.body.value("code", 0), code) << r.raw;
}

}  // namespace kuota::server::testing

// The server's tests use these by their short names.
namespace kuota::server {

using testing::ClusterQueue;
using testing::EventName;
using testing::ExpectEvent;
using testing::ExpectStatus;
using testing::Job;
using testing::kCqs;
using testing::kKueue;
using testing::kWls;
using testing::LocalQueue;
using testing::Namespace;
using testing::Reply;
using testing::ServerTest;
using testing::StreamReader;
using testing::ToReply;
using testing::WatchReader;
using testing::Workload;

using std::chrono::milliseconds;

}  // namespace kuota::server
