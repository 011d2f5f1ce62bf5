// Helpers shared by the store's tests: a fixture with a temporary directory
// (removed after the test) and a ManualClock, and builders for the objects
// the tests write. Test-only; not thread-safe except where a test says so.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "store/object_store.h"
#include "store/sqlite_object_store.h"
#include "testing/piped_child.h"
#include "testing/temp_dir.h"

namespace kuota::store::testing {

inline constexpr char kClusterQueues[] = "clusterqueues.kueue.x-k8s.io";
inline constexpr char kConfigMaps[] = "configmaps";
inline constexpr char kWorkloads[] = "workloads.kueue.x-k8s.io";

// A namespaced object without .spec (a ConfigMap).
inline Json ConfigMap(const std::string& ns, const std::string& name, Json data = Json::object()) {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"namespace", ns}, {"name", name}}},
              {"data", std::move(data)}};
}

// A cluster-scoped object with .spec.
inline Json ClusterQueue(const std::string& name, const std::string& cohort = "all") {
  return Json{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
              {"kind", "ClusterQueue"},
              {"metadata", {{"name", name}}},
              {"spec", {{"cohort", cohort}}}};
}

// A namespaced object with .spec and labels.
inline Json Workload(const std::string& ns, const std::string& name, Json labels = Json::object()) {
  return Json{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
              {"kind", "Workload"},
              {"metadata", {{"namespace", ns}, {"name", name}, {"labels", std::move(labels)}}},
              {"spec", {{"queueName", "lq"}}}};
}

// The `i`th ConfigMap a concurrent writer `t` creates: "cm<i>" in "ns<t>".
inline Json WriterConfigMap(int t, int i) {
  return ConfigMap("ns" + std::to_string(t), "cm" + std::to_string(i));
}

inline int64_t Rv(const Json& obj) {
  return std::stoll(obj["metadata"]["resourceVersion"].get<std::string>());
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }
  void TearDown() override { store_.reset(); }

  std::string Path(const std::string& file = "kuota.db") const { return dir_.File(file); }

  StoreOptions Options() const {
    StoreOptions o;
    o.path = Path();
    o.clock = &clock_;
    return o;
  }

  // Opens (or reopens) store_ with Options() changed by the caller.
  SqliteObjectStore& OpenStore(StoreOptions options, const StoreTuning& tuning = {}) {
    store_.reset();
    auto opened = SqliteObjectStore::Open(options, tuning);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok()) std::abort();
    store_ = std::move(opened).value();
    return *store_;
  }
  SqliteObjectStore& OpenStore() { return OpenStore(Options()); }

  Json MustCreate(const std::string& resource, Json obj) {
    auto r = store_->Create(resource, std::move(obj));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Json();
  }

  kuota::testing::TempDir dir_{"kuota-store"};
  ManualClock clock_{Time::FromMillis(1767225600123)};  // 2026-01-01T00:00:00.123Z
  std::unique_ptr<SqliteObjectStore> store_;
};

// A StoreTest whose store_ is open when the test starts.
class OpenStoreTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    OpenStore();
  }
};

// Runs `writer` in a forked child, which writes a line to the fd it is given
// for each write it has seen acknowledged and never returns. Once `lines`
// lines have come, kills the child with SIGKILL and appends to `data` all it
// wrote, the lines still in the pipe included.
inline void KillWriterAfter(size_t lines, const std::function<void(int)>& writer,
                            std::string& data) {
  pid_t pid = 0;
  int fd = -1;
  ASSERT_NO_FATAL_FAILURE(kuota::testing::ForkPiped(writer, pid, fd));
  char buf[4096];
  while (static_cast<size_t>(std::count(data.begin(), data.end(), '\n')) < lines) {
    ssize_t n = read(fd, buf, sizeof buf);
    ASSERT_GT(n, 0) << "the writer died on its own";
    data.append(buf, static_cast<size_t>(n));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) << "status " << wstatus;
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fd);
}

}  // namespace kuota::store::testing

// The store's tests use the builders by their short names.
namespace kuota::store {

using testing::ClusterQueue;
using testing::ConfigMap;
using testing::kClusterQueues;
using testing::kConfigMaps;
using testing::kWorkloads;
using testing::Rv;
using testing::Workload;
using testing::WriterConfigMap;

}  // namespace kuota::store
