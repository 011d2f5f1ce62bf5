// API server benchmark: an in-process ApiServer (loopback, port 0) over a
// fresh SQLite ObjectStore with the standalone admission hook and no engine
// controller, driven over HTTP by cpp-httplib clients. Measures
//   1. Workload creates/s and latency from --clients keep-alive clients,
//   2. with --objects Workloads stored: a full LIST, a fresh watch from
//      resourceVersion=0 delivering every initial ADDED event, the latency
//      from a POST to its ADDED event on an established watch, and the RSS
//      growth while --watchers such watches send their initial state, once
//      they are idle, and after they closed.
//
//   cmake -S . -B build -G Ninja -DKUOTA_BUILD_BENCH=ON && ninja -C build kuota_api_bench
//   build/bench/kuota_api_bench [--workloads 4000] [--objects 10000] [--no-sync]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "control/admission_hook.h"
#include "server/api_server.h"
#include "store/object_store.h"
#include "store/sqlite_object_store.h"

namespace kuota::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr const char* kWorkloads = "/apis/kueue.x-k8s.io/v1beta1/namespaces/bench/workloads";

struct Options {
  int workloads = 4000;  // measured creates
  int objects = 10000;   // stored Workloads for the list/watch phase
  int clients = 8;
  int fill_clients = 32;  // unmeasured fill: more writers, bigger group commits
  int watchers = 20;
  int latency_samples = 200;
  bool no_sync = false;
  std::string dir = std::filesystem::temp_directory_path().string();
};

double Ms(SteadyClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// VmRSS of this process in KiB.
long RssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

std::string WorkloadBody(const std::string& name) {
  Json container = {{"name", "main"},
                    {"image", "registry.example.com/team/app:1.0"},
                    {"resources", {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}};
  Json pod_set = {
      {"name", "main"},
      {"count", 1},
      {"template",
       {{"spec", {{"containers", Json::array({container})}, {"restartPolicy", "Never"}}}}}};
  Json wl = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
             {"kind", "Workload"},
             {"metadata", {{"name", name}, {"namespace", "bench"}, {"labels", {{"app", "bench"}}}}},
             {"spec", {{"queueName", "lq"}, {"podSets", Json::array({pod_set})}}}};
  return wl.dump();
}

std::unique_ptr<httplib::Client> NewClient(int port) {
  auto cli = std::make_unique<httplib::Client>("127.0.0.1", port);
  cli->set_keep_alive(true);
  cli->set_tcp_nodelay(true);  // no Nagle/delayed-ACK stall per request
  cli->set_read_timeout(120, 0);
  cli->set_write_timeout(30, 0);
  return cli;
}

// Creates Workloads [first, first + count) from `clients` threads; returns
// the per-request latencies (ms) and the wall time. Aborts on a non-201.
struct CreateRun {
  std::vector<double> latencies_ms;
  double wall_s = 0;
};

CreateRun CreateMany(int port, int clients, int first, int count) {
  std::atomic<int> next{first};
  std::vector<std::vector<double>> lat(static_cast<size_t>(clients));
  std::vector<std::thread> threads;
  const auto start = SteadyClock::now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      auto cli = NewClient(port);
      for (int i = next++; i < first + count; i = next++) {
        char name[32];
        std::snprintf(name, sizeof name, "wl-%06d", i);
        const std::string body = WorkloadBody(name);
        const auto t0 = SteadyClock::now();
        auto res = cli->Post(kWorkloads, body, "application/json");
        const auto t1 = SteadyClock::now();
        if (!res || res->status != 201) {
          std::fprintf(stderr, "create %s failed: %s\n", name,
                       res ? (std::to_string(res->status) + " " + res->body).c_str()
                           : httplib::to_string(res.error()).c_str());
          std::exit(1);
        }
        lat[static_cast<size_t>(c)].push_back(Ms(t1 - t0));
      }
    });
  }
  for (auto& t : threads) t.join();
  CreateRun run;
  run.wall_s = std::chrono::duration<double>(SteadyClock::now() - start).count();
  for (auto& v : lat) run.latencies_ms.insert(run.latencies_ms.end(), v.begin(), v.end());
  return run;
}

// A watch on the bench Workloads, consumed on its own thread. Splits the
// stream into lines (one event each), counts ADDED events and, when asked,
// records the arrival time of each named object.
class WatchStream {
 public:
  WatchStream(int port, const std::string& resource_version, bool track_names)
      : cli_(NewClient(port)), track_names_(track_names) {
    start_ = SteadyClock::now();
    thread_ = std::thread([this, resource_version] {
      const std::string path = std::string(kWorkloads) +
                               "?watch=true&timeoutSeconds=300&resourceVersion=" + resource_version;
      cli_->Get(path, httplib::Headers{}, [this](const char* data, size_t n) {
        bytes_ += n;
        buf_.append(data, n);
        size_t pos = 0;
        for (size_t nl; (nl = buf_.find('\n', pos)) != std::string::npos; pos = nl + 1) {
          OnLine(std::string_view(buf_).substr(pos, nl - pos));
        }
        buf_.erase(0, pos);
        return !stop_.load();
      });
      std::lock_guard lock(mu_);
      ended_ = true;
      cv_.notify_all();
    });
  }
  ~WatchStream() { Close(); }

  // Waits until `count` ADDED events arrived; returns the time from the
  // watch request to that moment (negative on timeout).
  double WaitAdded(int64_t count, std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return added_ >= count || ended_; }) || added_ < count)
      return -1;
    return Ms(reached_at_ - start_);
  }
  // Waits for the ADDED event of `name`; returns its arrival time.
  bool WaitFor(const std::string& name, SteadyClock::time_point* at, std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return seen_.count(name) > 0 || ended_; }) ||
        !seen_.count(name))
      return false;
    *at = seen_[name];
    seen_.erase(name);
    return true;
  }
  void set_target(int64_t target) {
    std::lock_guard lock(mu_);
    target_ = target;
  }
  uint64_t bytes() const { return bytes_.load(); }
  // Ends the stream: the callback returns false on its next chunk, so the
  // caller must cause one more event after RequestStop() (or Stop the server).
  void RequestStop() { stop_ = true; }
  void Close() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Ends the stream now, closing the connection.
  void Abort() {
    stop_ = true;
    cli_->stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void OnLine(std::string_view line) {
    if (line.find("\"type\":\"ADDED\"") == std::string_view::npos) return;
    const auto now = SteadyClock::now();
    std::string name;
    if (track_names_) {
      Json ev = Json::parse(line.begin(), line.end(), nullptr, false);
      if (!ev.is_discarded()) name = ev["object"]["metadata"].value("name", "");
    }
    std::lock_guard lock(mu_);
    ++added_;
    if (added_ == target_) reached_at_ = now;
    if (track_names_) seen_[name] = now;
    cv_.notify_all();
  }

  std::unique_ptr<httplib::Client> cli_;
  bool track_names_;
  std::thread thread_;
  std::string buf_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> bytes_{0};
  SteadyClock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t added_ = 0;
  int64_t target_ = -1;
  SteadyClock::time_point reached_at_;
  bool ended_ = false;
  std::map<std::string, SteadyClock::time_point> seen_;
};

struct Row {
  std::string metric, value;
};

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

int Run(const Options& opt) {
  const std::string dir =
      opt.dir + "/kuota_api_bench." + std::to_string(static_cast<long>(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  store::StoreOptions so;
  so.path = dir + "/kuota.db";
  so.sync = !opt.no_sync;
  auto opened = store::ObjectStore::Open(so);
  if (!opened.ok()) {
    std::fprintf(stderr, "open store: %s\n", opened.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<store::ObjectStore> store = std::move(opened).value();
  control::KuotaAdmissionHook hook;
  server::ServerOptions sopts;
  sopts.port = 0;  // threads: the defaults (a thread per connection, on demand)
  auto api = std::make_unique<server::ApiServer>(*store, &hook, sopts);
  if (Status st = api->Start(); !st.ok()) {
    std::fprintf(stderr, "start: %s\n", st.ToString().c_str());
    return 1;
  }
  const int port = api->port();
  {
    auto cli = NewClient(port);
    auto res = cli->Post("/api/v1/namespaces",
                         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})",
                         "application/json");
    if (!res || res->status != 201) {
      std::fprintf(stderr, "create namespace bench failed\n");
      return 1;
    }
  }
  std::vector<Row> rows;
  auto add = [&](std::string m, std::string v) { rows.push_back({std::move(m), std::move(v)}); };
  add("store", opt.no_sync ? "synchronous=NORMAL (--no-sync)" : "synchronous=FULL");
  add("server threads kept / max, clients", std::to_string(sopts.threads) + " / " +
                                                std::to_string(sopts.max_threads) + ", " +
                                                std::to_string(opt.clients));

  // 1. Create throughput.
  std::fprintf(stderr, "api_bench: %d creates from %d clients...\n", opt.workloads, opt.clients);
  CreateRun run = CreateMany(port, opt.clients, 0, opt.workloads);
  add("creates", std::to_string(opt.workloads) + " in " + Fmt("%.2f s", run.wall_s));
  add("creates/s", Fmt("%.0f", opt.workloads / run.wall_s));
  add("create latency p50 / p90", Fmt("%.2f", Percentile(run.latencies_ms, 0.5)) + " / " +
                                      Fmt("%.2f ms", Percentile(run.latencies_ms, 0.9)));
  add("create latency p99 / max", Fmt("%.2f", Percentile(run.latencies_ms, 0.99)) + " / " +
                                      Fmt("%.2f ms", Percentile(run.latencies_ms, 1.0)));

  // Fill up to --objects.
  const int total = std::max(opt.objects, opt.workloads);
  if (total > opt.workloads) {
    std::fprintf(stderr, "api_bench: filling to %d workloads...\n", total);
    CreateRun fill = CreateMany(port, opt.fill_clients, opt.workloads, total - opt.workloads);
    add("fill: creates/s from " + std::to_string(opt.fill_clients) + " clients",
        Fmt("%.0f", (total - opt.workloads) / fill.wall_s));
  }

  // 3a. LIST everything.
  {
    auto cli = NewClient(port);
    const auto t0 = SteadyClock::now();
    auto res = cli->Get(kWorkloads);
    const double ms = Ms(SteadyClock::now() - t0);
    if (!res || res->status != 200) {
      std::fprintf(stderr, "list failed\n");
      return 1;
    }
    const size_t items = Json::parse(res->body)["items"].size();
    if (items != static_cast<size_t>(total)) {
      std::fprintf(stderr, "list returned %zu items, want %d\n", items, total);
      return 1;
    }
    add("LIST " + std::to_string(items) + " workloads",
        Fmt("%.1f ms", ms) + ", " +
            Fmt("%.2f MiB", static_cast<double>(res->body.size()) / (1 << 20)));
  }

  // Streams still open at the end; api->Stop() ends them before they are joined.
  std::unique_ptr<WatchStream> latency_watch;
  std::vector<std::unique_ptr<WatchStream>> ws;

  // 3b. A fresh watch from resourceVersion=0: time to all initial ADDED events.
  {
    std::fprintf(stderr, "api_bench: initial watch...\n");
    WatchStream w(port, "0", false);
    w.set_target(total);
    const double ms = w.WaitAdded(total, std::chrono::seconds(60));
    if (ms < 0) {
      std::fprintf(stderr, "watch did not deliver %d ADDED events\n", total);
      return 1;
    }
    add("watch rv=0: " + std::to_string(total) + " initial ADDED",
        Fmt("%.1f ms", ms) + ", " + Fmt("%.2f MiB", static_cast<double>(w.bytes()) / (1 << 20)));
    w.RequestStop();  // ended by the next event (the latency phase's first create)
    std::thread closer([&] { w.Close(); });
    // 3c. Create -> ADDED latency on an established watch.
    auto cli = NewClient(port);
    const std::string rv = std::to_string(store->CurrentResourceVersion());
    latency_watch = std::make_unique<WatchStream>(port, rv, true);
    WatchStream& lw = *latency_watch;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the watch register
    std::vector<double> to_event, to_response;
    for (int i = 0; i < opt.latency_samples; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "lat-%06d", i);
      const auto t0 = SteadyClock::now();
      auto res = cli->Post(kWorkloads, WorkloadBody(name), "application/json");
      const auto t1 = SteadyClock::now();
      if (!res || res->status != 201) {
        std::fprintf(stderr, "create %s failed\n", name);
        return 1;
      }
      SteadyClock::time_point at;
      if (!lw.WaitFor(name, &at, std::chrono::seconds(10))) {
        std::fprintf(stderr, "no ADDED event for %s\n", name);
        return 1;
      }
      to_event.push_back(Ms(at - t0));
      to_response.push_back(Ms(t1 - t0));
    }
    closer.join();
    add("create -> ADDED p50 / p99", Fmt("%.2f", Percentile(to_event, 0.5)) + " / " +
                                         Fmt("%.2f ms", Percentile(to_event, 0.99)));
    add("  (its POST -> 201 p50)", Fmt("%.2f ms", Percentile(to_response, 0.5)));
    lw.RequestStop();
  }

  // 3d. RSS while --watchers rv=0 watches are open (all initial events drained).
  {
    std::fprintf(stderr, "api_bench: %d watchers...\n", opt.watchers);
    const int64_t objects = total + opt.latency_samples;
    const long before = RssKiB();
    const auto t0 = SteadyClock::now();
    for (int i = 0; i < opt.watchers; ++i) {
      ws.push_back(std::make_unique<WatchStream>(port, "0", false));
      ws.back()->set_target(objects);
    }
    long peak = RssKiB();
    for (auto& w : ws) {
      if (w->WaitAdded(objects, std::chrono::seconds(60)) < 0) {
        std::fprintf(stderr, "a watcher did not get its initial events\n");
        return 1;
      }
      peak = std::max(peak, RssKiB());
    }
    const double all_ms = Ms(SteadyClock::now() - t0);
    const long open = RssKiB();
    add(std::to_string(opt.watchers) + " watchers rv=0: all initial ADDED", Fmt("%.1f ms", all_ms));
    add("RSS before watchers", Fmt("%.1f MiB", before / 1024.0));
    add("RSS growth, watchers open (peak)",
        Fmt("%+.1f MiB", (open - before) / 1024.0) + Fmt(" (%+.1f MiB)", (peak - before) / 1024.0));
    // Closed by the clients; the server notices within about a second.
    for (auto& w : ws) w->Abort();
    auto& sqlite = static_cast<store::SqliteObjectStore&>(*store);
    for (int i = 0; i < 500 && sqlite.watcher_count() > 1; ++i) {  // the latency watch stays
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    add("RSS growth after they closed", Fmt("%+.1f MiB", (RssKiB() - before) / 1024.0));
  }

  api->Stop();  // ends the remaining watch streams
  latency_watch.reset();
  ws.clear();
  api.reset();
  store.reset();
  std::filesystem::remove_all(dir);

  size_t width = 0;
  for (const Row& r : rows) width = std::max(width, r.metric.size());
  std::printf("kuota_api_bench (in-process ApiServer + KuotaAdmissionHook, no controller)\n");
  for (const Row& r : rows)
    std::printf("  %-*s  %s\n", static_cast<int>(width), r.metric.c_str(), r.value.c_str());
  return 0;
}

}  // namespace
}  // namespace kuota::bench

int main(int argc, char** argv) {
  kuota::bench::Options opt;
  CLI::App app{"Kuota API server benchmark (HTTP + store, no controller)"};
  app.add_option("--workloads", opt.workloads, "Workloads created in the measured create phase");
  app.add_option("--objects", opt.objects, "Workloads stored for the list/watch phase");
  app.add_option("--clients", opt.clients, "Concurrent HTTP clients for creates");
  app.add_option("--fill-clients", opt.fill_clients,
                 "Clients for the unmeasured fill to --objects");
  app.add_option("--watchers", opt.watchers, "Concurrent rv=0 watches for the RSS measurement");
  app.add_option("--latency-samples", opt.latency_samples, "Creates timed to their ADDED event");
  app.add_flag("--no-sync", opt.no_sync, "synchronous=NORMAL instead of FULL");
  app.add_option("--dir", opt.dir, "Where the temporary database goes");
  CLI11_PARSE(app, argc, argv);
  return kuota::bench::Run(opt);
}
