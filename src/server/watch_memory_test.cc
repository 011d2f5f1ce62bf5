// Watches from resourceVersion 0 cost memory in proportion to a page, not to
// the store (issue 15): 20 such watches at once over 100,000 stored objects
// must add under 200 MiB of RSS in all while they send their initial state,
// and give it back once they are done. Each watch must deliver every object
// once, in list order.
//
// Under ASan/UBSan RSS figures mean nothing (shadow memory, quarantine) and
// 100,000 objects would take minutes, so a sanitizer build seeds 2,000
// objects and checks only correctness (every line parsed); the memory
// assertions apply to the other builds. Objects are seeded straight into the
// store from several threads (group commit batches them), not over HTTP, so
// the release run takes about 8 s on an idle 2-core machine (15-25 s beside
// a build).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "server/test_server.h"
#include "store/sqlite_object_store.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kuota::server {
namespace {

using SteadyClock = std::chrono::steady_clock;

#if defined(KUOTA_SANITIZED)  // -DKUOTA_SANITIZE=ON, GCC or clang
constexpr bool kSanitized = true;
constexpr int kObjects = 2'000;
#else
constexpr bool kSanitized = false;
constexpr int kObjects = 100'000;
#endif
constexpr int kWatches = 20;
constexpr double kMaxGrowthMiB = 200;

// This process' resident set in MiB.
double RssMiB() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

// A Workload of one pod set of one container, as real ones have.
Json SeedWorkload(int i) {
  char name[32];
  std::snprintf(name, sizeof(name), "wl-%06d", i);
  Json wl = Workload("default", name, {{"app", "bench"}});
  Json container = {{"name", "main"},
                    {"image", "registry.example.com/team/app:1.0"},
                    {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}};
  Json pod_spec = {{"containers", Json::array({container})}, {"restartPolicy", "Never"}};
  wl["spec"]["podSets"] =
      Json::array({{{"name", "main"}, {"count", 1}, {"template", {{"spec", pod_spec}}}}});
  return wl;
}

// One watch from resourceVersion 0, read on its own thread without keeping
// what it reads: counts the ADDED lines, checks they come in name order
// (parsing every line under sanitizers, else only the name).
class CountingWatch {
 public:
  explicit CountingWatch(int port) : client_("127.0.0.1", port) {
    client_.set_read_timeout(120, 0);
    thread_ = std::thread([this] {
      const std::string path = kWls + "?watch=true&resourceVersion=0";
      auto res = client_.Get(path.c_str(), [this](const char* data, size_t len) {
        carry_.append(data, len);
        std::string_view rest = carry_;
        for (size_t nl = rest.find('\n'); nl != std::string_view::npos; nl = rest.find('\n')) {
          OnLine(rest.substr(0, nl));
          rest.remove_prefix(nl + 1);
        }
        carry_.erase(0, carry_.size() - rest.size());
        return !stop_.load();
      });
      status_ = res ? res->status : -1;
    });
  }
  ~CountingWatch() { Close(); }

  void Close() {
    stop_ = true;
    client_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int added() const { return added_.load(); }
  bool ordered() const { return ordered_.load(); }

 private:
  void OnLine(std::string_view line) {
    if (line.empty()) return;  // heartbeat
    if (kSanitized) {
      Json e = Json::parse(line, nullptr, false);
      if (!e.is_object() || e["type"] != "ADDED") {
        ordered_ = false;
        return;
      }
      std::string name = e["object"]["metadata"]["name"];
      if (name <= last_name_) ordered_ = false;
      last_name_ = std::move(name);
    } else {
      constexpr std::string_view kSuffix = R"(,"type":"ADDED"})";
      constexpr std::string_view kName = R"("name":"wl-)";
      if (line.size() < kSuffix.size() || line.substr(line.size() - kSuffix.size()) != kSuffix) {
        ordered_ = false;
        return;
      }
      // metadata.name is the only "name" that starts with wl-.
      size_t at = line.find(kName);
      std::string name(at == std::string_view::npos ? "" : line.substr(at + kName.size(), 6));
      if (name <= last_name_) ordered_ = false;
      last_name_ = std::move(name);
    }
    ++added_;
  }

  httplib::Client client_;
  std::thread thread_;
  std::string carry_;  // the part of a line not yet complete
  std::string last_name_;
  std::atomic<bool> stop_{false};
  std::atomic<int> added_{0};
  std::atomic<bool> ordered_{true};
  int status_ = 0;
};

class WatchMemoryTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions& store, ServerOptions&) override {
    store.event_log_size = 1000;  // the seed's events need not be kept
  }

  void Seed(int count) {
    constexpr int kThreads = 32;
    std::vector<std::thread> threads;
    std::atomic<int> next{0};
    std::atomic<bool> failed{false};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < count && !failed; i = next++) {
          if (!store_->Create("workloads.kueue.x-k8s.io", SeedWorkload(i)).ok()) failed = true;
        }
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_FALSE(failed);
  }
};

TEST_F(WatchMemoryTest, TwentyWatchesFromZeroAddLittleAndGiveItBack) {
  const auto t_seed = SteadyClock::now();
  Seed(kObjects);
  const double seed_s = std::chrono::duration<double>(SteadyClock::now() - t_seed).count();
#if defined(__GLIBC__)
  malloc_trim(0);  // the seed's garbage is not the watches'
#endif
  const double before = RssMiB();

  std::atomic<bool> sampling{true};
  std::atomic<double> peak{before};
  std::thread sampler([&] {
    while (sampling) {
      double now = RssMiB();
      if (now > peak) peak = now;
      std::this_thread::sleep_for(milliseconds(5));
    }
  });
  const auto t0 = SteadyClock::now();
  std::vector<std::unique_ptr<CountingWatch>> watches;
  for (int i = 0; i < kWatches; ++i) watches.push_back(std::make_unique<CountingWatch>(port()));
  const auto deadline = t0 + std::chrono::seconds(kSanitized ? 300 : 60);
  auto all_done = [&] {
    return std::all_of(watches.begin(), watches.end(),
                       [](const auto& w) { return w->added() >= kObjects; });
  };
  while (!all_done() && SteadyClock::now() < deadline) std::this_thread::sleep_for(milliseconds(5));
  const double send_s = std::chrono::duration<double>(SteadyClock::now() - t0).count();
  const double open = RssMiB();
  for (const auto& w : watches) {
    EXPECT_EQ(w->added(), kObjects);
    EXPECT_TRUE(w->ordered());
  }

  for (auto& w : watches) w->Close();
  // The server notices each closed client within about a second.
  auto& sqlite = static_cast<store::SqliteObjectStore&>(*store_);
  for (int i = 0; i < 500 && sqlite.watcher_count() > 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(sqlite.watcher_count(), 0u);
  watches.clear();
  sampling = false;
  sampler.join();
  const double after = RssMiB();

  std::printf(
      "[ figures  ] seeded %d objects in %.1f s; %d watches from rv=0 sent all in %.2f s; "
      "RSS %.0f MiB before, peak %+.0f MiB, %+.0f MiB with the watches idle, %+.0f MiB "
      "after they closed\n",
      kObjects, seed_s, kWatches, send_s, before, peak - before, open - before, after - before);
  if (!kSanitized) {
    EXPECT_LT(peak - before, kMaxGrowthMiB);
    EXPECT_LT(after - before, 64.0);
  }
}

}  // namespace
}  // namespace kuota::server
