// Object store benchmark: creates Workload-sized objects (about 1 KiB of
// JSON) in a fresh SQLite store and reports creates per second and latency
// percentiles with synchronous=FULL and NORMAL, from 1 and from N threads,
// with group commit on and (for comparison) off, plus how many writes each
// committed transaction carried.
//
//   cmake -S . -B build -G Ninja -DKUOTA_BUILD_BENCH=ON && ninja -C build kuota_store_bench
//   build/bench/kuota_store_bench [--seconds 3] [--threads 8] [--dir /tmp] [--watchers 0]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "store/sqlite_object_store.h"

namespace kuota::bench {
namespace {

using Clock = std::chrono::steady_clock;
using store::Json;

struct Options {
  double seconds = 3;  // per configuration
  int threads = 8;     // writer threads for the concurrent rows
  int watchers = 0;    // watchers draining every event while writing
  std::string dir = std::filesystem::temp_directory_path().string();
};

struct Config {
  bool sync;
  int threads;
  bool group_commit;
};

Json MakeWorkload(const std::string& ns, const std::string& name) {
  Json pod_set = {{"name", "main"},
                  {"count", 4},
                  {"template",
                   {{"spec",
                     {{"containers",
                       Json::array({{{"name", "trainer"},
                                     {"image", "registry.example.com/team/trainer:1.2.3"},
                                     {"resources",
                                      {{"requests",
                                        {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}}}}}})},
                      {"restartPolicy", "Never"}}}}}};
  return Json{{"apiVersion", "kueue.x-k8s.io/v1beta1"},
              {"kind", "Workload"},
              {"metadata",
               {{"namespace", ns},
                {"name", name},
                {"labels", {{"kueue.x-k8s.io/queue-name", "lq"}, {"team", ns}}},
                {"annotations", {{"bench", std::string(200, 'a')}}}}},
              {"spec", {{"queueName", "lq"}, {"priority", 100}, {"podSets", Json::array({pod_set})}}}};
}

int Run(const Options& o) {
  std::printf("%-6s %-7s %-6s %10s %9s %9s %9s %12s\n", "sync", "threads", "group", "creates/s",
              "p50 ms", "p99 ms", "max ms", "writes/txn");
  const Config configs[] = {
      {true, 1, true},  {true, o.threads, true},  {true, o.threads, false},
      {false, 1, true}, {false, o.threads, true}, {false, o.threads, false},
  };
  int run = 0;
  for (const Config& c : configs) {
    const std::string path =
        o.dir + "/kuota-store-bench-" + std::to_string(getpid()) + "-" + std::to_string(run++) + ".db";
    store::StoreOptions options;
    options.path = path;
    options.sync = c.sync;
    store::StoreTuning tuning;
    if (!c.group_commit) tuning.max_batch = 1;
    auto opened = store::SqliteObjectStore::Open(options, tuning);
    if (!opened.ok()) {
      std::fprintf(stderr, "open %s: %s\n", path.c_str(), opened.status().ToString().c_str());
      return 1;
    }
    std::unique_ptr<store::SqliteObjectStore> st = std::move(opened).value();

    std::atomic<bool> stop{false};
    std::vector<std::thread> watchers;
    for (int i = 0; i < o.watchers; ++i) {
      auto w = st->Watch("", "", 0);
      if (!w.ok()) return 1;
      watchers.emplace_back([&stop, w = std::move(w).value()] {
        store::WatchEvent e;
        while (!stop.load() && (w->Next(&e, std::chrono::milliseconds(50)) || w->Alive())) {
        }
      });
    }

    std::vector<std::vector<double>> latencies(static_cast<size_t>(c.threads));
    std::atomic<bool> failed{false};
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration<double>(o.seconds);
    std::vector<std::thread> writers;
    for (int t = 0; t < c.threads; ++t) {
      writers.emplace_back([&, t] {
        const std::string ns = "team-" + std::to_string(t);
        for (int i = 0; Clock::now() < end; ++i) {
          auto begin = Clock::now();
          auto r = st->Create("workloads.kueue.x-k8s.io", MakeWorkload(ns, "wl-" + std::to_string(i)));
          if (!r.ok()) {
            std::fprintf(stderr, "create: %s\n", r.status().ToString().c_str());
            failed = true;
            return;
          }
          latencies[static_cast<size_t>(t)].push_back(
              std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
        }
      });
    }
    for (auto& th : writers) th.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    stop = true;
    for (auto& th : watchers) th.join();
    if (failed) return 1;

    std::vector<double> all;
    for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    auto pct = [&](double p) {
      return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<size_t>(p * all.size()))];
    };
    store::SqliteObjectStore::WriteStats stats = st->write_stats();
    std::printf("%-6s %-7d %-6s %10.0f %9.3f %9.3f %9.3f %12.2f\n", c.sync ? "FULL" : "NORMAL",
                c.threads, c.group_commit ? "on" : "off", static_cast<double>(all.size()) / elapsed,
                pct(0.50), pct(0.99), all.empty() ? 0.0 : all.back(),
                stats.transactions ? static_cast<double>(stats.writes) / stats.transactions : 0.0);
    std::fflush(stdout);
    st.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  return 0;
}

}  // namespace
}  // namespace kuota::bench

int main(int argc, char** argv) {
  kuota::bench::Options o;
  CLI::App app{"Kuota object store benchmark: creates/s with sync on and off, 1 and N threads"};
  app.add_option("--seconds", o.seconds, "seconds per configuration")->check(CLI::PositiveNumber);
  app.add_option("--threads", o.threads, "writer threads for the concurrent rows")
      ->check(CLI::PositiveNumber);
  app.add_option("--watchers", o.watchers, "watchers draining every event meanwhile")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--dir", o.dir, "directory for the database files (removed afterwards)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return kuota::bench::Run(o);
}
