// Metrics benchmark: the cost of kuotad's /metrics at Kueue's large scale.
// Loads the synthetic cluster (1,000 ClusterQueues, 100,000 Workloads; see
// synthetic_cluster.h), schedules it to quiescence, then measures
//   - publish: KueueMetrics::Publish, the controller thread's part (the
//     state gauges rebuilt from the engine, done once per status interval);
//   - scrape: Registry::Render, what one Prometheus scrape costs (on an HTTP
//     thread), with the text size and series count;
//   - stall: scheduling cycles (workloads finished in batches, the rest
//     admitted) with and without a thread scraping back to back, to show
//     scrapes do not hold up admissions (cycle time p50/p99 both ways).
//
//   ninja -C build kuota_metrics_bench && build/bench/kuota_metrics_bench
//       [--cqs 1000] [--cohorts 10] [--workloads 100000] [--scrapes 20] [--rounds 10]
//       [--no-preemption]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "control/kueue_metrics.h"
#include "engine/engine.h"
#include "metrics/registry.h"
#include "synthetic_cluster.h"

namespace kuota::bench {
namespace {

using Clk = std::chrono::steady_clock;

double Ms(Clk::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Runs cycles until one admits and preempts nothing (or `max` cycles).
int RunToQuiet(engine::Engine& eng, int max) {
  int cycles = 0;
  while (cycles < max) {
    engine::CycleResult r = eng.RunCycle();
    ++cycles;
    if (r.admitted.empty() && r.preempted.empty()) break;
  }
  return cycles;
}

// Finishes `batch` workloads that hold quota, then schedules to quiet; the
// time of every cycle is appended to `cycle_ms`. False when none held quota.
bool FinishRound(engine::Engine& eng, int batch, std::vector<double>* cycle_ms) {
  int finished = 0;
  for (const engine::WorkloadInfo* wl : eng.Workloads()) {
    if (finished == batch) break;
    if (wl->holds_quota()) {
      (void)eng.FinishWorkload(wl->key);
      ++finished;
    }
  }
  if (finished == 0) return false;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = Clk::now();
    engine::CycleResult r = eng.RunCycle();
    cycle_ms->push_back(Ms(Clk::now() - t0));
    if (r.admitted.empty() && r.preempted.empty()) break;
  }
  return true;
}

int Run(const SyntheticCluster& c, int scrapes, int rounds) {
  ManualClock clock(Time::FromSeconds(1'767'225'600));
  engine::Engine eng(clock);
  if (!LoadSyntheticCluster(eng, clock, c)) return 1;
  const int cycles = RunToQuiet(eng, 5000);
  int holding = 0;
  for (const engine::WorkloadInfo* wl : eng.Workloads()) holding += wl->holds_quota();
  std::printf(
      "cluster: %d ClusterQueues, %d cohorts, %d workloads (%d holding quota after %d "
      "cycles)\n",
      c.cqs, c.cohorts, c.workloads, holding, cycles);

  metrics::Registry registry;
  control::KueueMetrics kueue(registry);
  std::vector<double> publish, scrape;
  size_t bytes = 0, series = 0;
  for (int i = 0; i < scrapes; ++i) {
    auto t0 = Clk::now();
    kueue.Publish(eng.state());
    publish.push_back(Ms(Clk::now() - t0));
    t0 = Clk::now();
    const std::string text = registry.Render(metrics::Format::kPrometheusText);
    scrape.push_back(Ms(Clk::now() - t0));
    bytes = text.size();
    series = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  std::printf("publish (controller thread): p50 %.1f ms, max %.1f ms\n", Percentile(publish, 0.5),
              Percentile(publish, 1.0));
  std::printf("scrape (Registry::Render): p50 %.1f ms, max %.1f ms; %zu lines, %.1f MiB\n",
              Percentile(scrape, 0.5), Percentile(scrape, 1.0), series,
              static_cast<double>(bytes) / (1 << 20));

  // Admissions with and without a scraper running flat out.
  for (bool with_scraper : {false, true}) {
    std::atomic<bool> stop{false};
    std::atomic<int> scraped{0};
    std::thread scraper;
    if (with_scraper) {
      scraper = std::thread([&] {
        while (!stop) {
          (void)registry.Render(metrics::Format::kPrometheusText);
          ++scraped;
        }
      });
    }
    std::vector<double> cycle_ms;
    const auto t0 = Clk::now();
    for (int r = 0; r < rounds; ++r) {
      if (!FinishRound(eng, 500, &cycle_ms)) break;
      kueue.Publish(eng.state());  // as the controller does each status interval
    }
    const double total = Ms(Clk::now() - t0);
    stop = true;
    if (scraper.joinable()) scraper.join();
    std::printf("admission rounds %s: %zu cycles, p50 %.2f ms, p99 %.2f ms, %.0f ms in all%s\n",
                with_scraper ? "with a scraper" : "alone         ", cycle_ms.size(),
                Percentile(cycle_ms, 0.5), Percentile(cycle_ms, 0.99), total,
                with_scraper ? (" (" + std::to_string(scraped.load()) + " scrapes)").c_str() : "");
  }
  return 0;
}

}  // namespace
}  // namespace kuota::bench

int main(int argc, char** argv) {
  kuota::bench::SyntheticCluster c;
  int scrapes = 20, rounds = 10;
  CLI::App app{
      "kuota_metrics_bench: the cost of /metrics at 1,000 ClusterQueues and 100,000 "
      "workloads"};
  app.add_option("--cqs", c.cqs, "ClusterQueues")->check(CLI::Range(1, 100000));
  app.add_option("--cohorts", c.cohorts, "Cohorts")->check(CLI::Range(1, 100000));
  app.add_option("--workloads", c.workloads, "Workloads")->check(CLI::Range(0, 10000000));
  app.add_option("--scrapes", scrapes, "Publish + scrape repetitions")->check(CLI::Range(1, 10000));
  app.add_flag("!--no-preemption", c.preemption,
               "ClusterQueues without preemption policies (quiescence in ~100 cycles)");
  app.add_option("--rounds", rounds, "Admission rounds (500 finished each) per measurement")
      ->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  return kuota::bench::Run(c, scrapes, rounds);
}
