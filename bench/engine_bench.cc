// Engine benchmark: builds a large synthetic cluster (ClusterQueues in
// cohorts, two flavors, borrowing and preemption policies), floods it with
// pending Workloads, and runs Engine::RunCycle() until quiescence, measuring
// load time, cycles, admissions, preemptions, decision rates and peak RSS.
// With --finish it then finishes admitted workloads in batches and keeps
// scheduling, to measure a steady-state admission rate. With --tas the
// cluster is SyntheticTasCluster instead: nodes in a topology of blocks x
// racks x hosts and gangs that require or prefer one rack, so every head is
// a topology placement. Single-threaded.
//
//   cmake -S . -B build -G Ninja -DKUOTA_BUILD_BENCH=ON && ninja -C build kuota_engine_bench
//   build/bench/kuota_engine_bench [--cqs 1000] [--cohorts 10] [--workloads 100000]
//       [--seed 42] [--finish [--finish-batch 1000]] [--no-preemption]
//       [--idle-cycles 1] [--max-cycles 5000] [--progress] [--trace]
//       [--tas [--blocks 5] [--racks 20] [--hosts 50]]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/object.h"
#include "base/clock.h"
#include "base/time.h"
#include "engine/engine.h"
#include "synthetic_cluster.h"
#include "synthetic_tas_cluster.h"

namespace kuota::bench {
namespace {

struct Options {
  int cqs = 1000;             // ClusterQueues, spread evenly over the cohorts
  int cohorts = 10;           // cohorts (implicit: named by ClusterQueues only)
  int workloads = 100000;     // pending Workloads, round-robin over ClusterQueues
  uint64_t seed = 42;         // PRNG seed for sizes and priorities
  bool finish = false;        // after quiescence, finish admitted workloads in batches
  int finish_batch = 1000;    // workloads finished per round in --finish mode
  bool preemption = true;     // withinClusterQueue LowerPriority, reclaimWithinCohort Any
  int idle_cycles = 1;        // a phase ends after this many cycles in a row with
                              // no admission and no preemption (or when no heads)
  int64_t max_cycles = 5000;  // safety cap per phase (preemption ping-pong)
  bool trace = false;         // print every cycle's decisions to stderr
  bool progress = false;      // print a progress line to stderr every 10s
  bool tas = false;           // SyntheticTasCluster: nodes in a topology, gangs placed on it
  int blocks = 5;             // --tas: blocks, racks per block, hosts per rack
  int racks = 20;
  int hosts = 50;
};

using Clk = std::chrono::steady_clock;

double Seconds(Clk::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds used by this process: with other work on the machine, wall
// time overstates the engine's cost; both are reported.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double PeakRssMiB() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: KiB
}

enum class Stop { kNoHeads, kIdle, kMaxCycles };

// Totals for one or more scheduling phases (runs of cycles to quiescence).
struct PhaseStats {
  int64_t phases = 0;
  int64_t cycles = 0;
  int64_t heads = 0;
  int64_t admitted = 0;
  int64_t preempted = 0;
  int64_t repeat_preemptions = 0;  // same preemptor -> victim pair seen before
  int64_t pending = 0;
  double seconds = 0;      // wall time of RunCycle + HasPendingHeads
  double cpu_seconds = 0;  // CPU time of the same
  std::vector<double> cycle_ms;
  int64_t stops[3] = {0, 0, 0};  // by Stop

  void Add(const PhaseStats& o) {
    phases += o.phases;
    cycles += o.cycles;
    heads += o.heads;
    admitted += o.admitted;
    preempted += o.preempted;
    repeat_preemptions += o.repeat_preemptions;
    pending += o.pending;
    seconds += o.seconds;
    cpu_seconds += o.cpu_seconds;
    cycle_ms.insert(cycle_ms.end(), o.cycle_ms.begin(), o.cycle_ms.end());
    for (int i = 0; i < 3; ++i) stops[i] += o.stops[i];
  }
  int64_t decisions() const { return admitted + preempted + pending; }
};

// What the phases share: admitted keys in admission order (for --finish) and
// the preemption pairs seen so far (to flag preemption ping-pong).
struct Tracker {
  std::deque<std::string> running;
  std::set<std::pair<std::string, std::string>> preemption_pairs;
  bool trace = false;
};

void TraceCycle(int64_t n, const engine::CycleResult& r) {
  std::fprintf(stderr, "cycle %" PRId64 ": heads %d admitted %zu preempted %zu pending %zu\n", n,
               r.heads, r.admitted.size(), r.preempted.size(), r.pending.size());
  for (const auto& a : r.admitted) {
    std::fprintf(stderr, "  admit %s in %s\n", a.workload.c_str(), a.cluster_queue.c_str());
  }
  for (const auto& p : r.preempted) {
    std::fprintf(stderr, "  %s preempts %s (%s)\n", p.preemptor.c_str(), p.workload.c_str(),
                 p.reason.c_str());
  }
  for (const auto& p : r.pending) {
    std::fprintf(stderr, "  pending %s: %s\n", p.workload().c_str(), p.message().c_str());
  }
}

// Runs cycles, advancing the clock 100ms per cycle, until no ClusterQueue
// offers a head (every remaining workload is parked inadmissible), or
// `idle_cycles` cycles in a row admit and preempt nothing, or `max_cycles`.
PhaseStats RunToQuiescence(engine::Engine& eng, ManualClock& clock, const Options& o, Tracker& t) {
  PhaseStats st;
  st.phases = 1;
  int idle = 0;
  Stop stop = Stop::kNoHeads;
  const auto start = Clk::now();
  const double cpu0 = CpuSeconds();
  auto last_progress = start;
  while (true) {
    if (st.cycles >= o.max_cycles) {
      stop = Stop::kMaxCycles;
      break;
    }
    if (!eng.HasPendingHeads()) {
      stop = Stop::kNoHeads;
      break;
    }
    const auto c0 = Clk::now();
    engine::CycleResult r = eng.RunCycle();
    st.cycle_ms.push_back(Seconds(Clk::now() - c0) * 1e3);
    ++st.cycles;
    st.heads += r.heads;
    st.admitted += static_cast<int64_t>(r.admitted.size());
    st.preempted += static_cast<int64_t>(r.preempted.size());
    st.pending += static_cast<int64_t>(r.pending.size());
    if (t.trace) TraceCycle(st.cycles, r);
    for (const auto& p : r.preempted) {
      if (!t.preemption_pairs.emplace(p.preemptor, p.workload).second) ++st.repeat_preemptions;
    }
    for (auto& a : r.admitted) t.running.push_back(std::move(a.workload));
    clock.Advance(Duration{100});
    if (o.progress && Clk::now() - last_progress > std::chrono::seconds(10)) {
      last_progress = Clk::now();
      std::fprintf(stderr,
                   "[%.0fs] cycle %" PRId64 ": %" PRId64 " admitted, %" PRId64
                   " preempted, %" PRId64 " heads\n",
                   Seconds(last_progress - start), st.cycles, st.admitted, st.preempted, st.heads);
    }
    idle = r.admitted.empty() && r.preempted.empty() ? idle + 1 : 0;
    if (idle >= o.idle_cycles) {
      stop = Stop::kIdle;
      break;
    }
  }
  st.seconds = Seconds(Clk::now() - start);
  st.cpu_seconds = CpuSeconds() - cpu0;
  st.stops[static_cast<int>(stop)] = 1;
  return st;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

double Rate(double n, double s) { return s > 0 ? n / s : 0; }

void Row(const char* name, const std::string& value) {
  std::printf("| %-42s | %22s |\n", name, value.c_str());
}
void RowI(const char* name, int64_t v) { Row(name, std::to_string(v)); }
void RowF(const char* name, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f %s", v, unit);
  Row(name, buf);
}
void RowR(const char* name, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.0f /s", v);
  Row(name, buf);
}
void Rule() {
  std::printf("|%s|%s|\n", std::string(44, '-').c_str(), std::string(24, '-').c_str());
}

void PrintPhase(const char* title, const PhaseStats& st) {
  Rule();
  Row(title, "");
  RowI("  cycles", st.cycles);
  RowI("  heads processed", st.heads);
  RowI("  admissions", st.admitted);
  RowI("  preemptions", st.preempted);
  RowI("  repeated preemptor->victim pairs", st.repeat_preemptions);
  RowI("  pending decisions", st.pending);
  RowF("  scheduling wall time", st.seconds, "s");
  RowF("  scheduling CPU time", st.cpu_seconds, "s");
  RowR("  admissions per second", Rate(static_cast<double>(st.admitted), st.seconds));
  RowR("  heads per second", Rate(static_cast<double>(st.heads), st.seconds));
  RowR("  decisions per second (adm+preempt+pend)",
       Rate(static_cast<double>(st.decisions()), st.seconds));
  RowR("  decisions per CPU second", Rate(static_cast<double>(st.decisions()), st.cpu_seconds));
  RowR("  heads per CPU second", Rate(static_cast<double>(st.heads), st.cpu_seconds));
  RowF("  cycle time p50", Percentile(st.cycle_ms, 0.50), "ms");
  RowF("  cycle time p99", Percentile(st.cycle_ms, 0.99), "ms");
  RowF("  cycle time max", Percentile(st.cycle_ms, 1.0), "ms");
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64 "/%" PRId64, st.stops[0], st.stops[1],
                st.stops[2]);
  Row("  stopped: no heads / idle / max-cycles", buf);
}

int Run(const Options& o) {
  ManualClock clock(Time::FromSeconds(1'767'225'600));  // 2026-01-01T00:00:00Z
  engine::Engine eng(clock);

  // Load.
  const auto load0 = Clk::now();
  if (o.tas) {
    if (!LoadSyntheticTasCluster(
            eng, clock,
            {o.blocks, o.racks, o.hosts, o.cqs, o.cohorts, o.workloads, o.seed, o.preemption})) {
      return 1;
    }
  } else if (!LoadSyntheticCluster(eng, clock,
                                   {o.cqs, o.cohorts, o.workloads, o.seed, o.preemption})) {
    return 1;
  }
  static_cast<void>(eng.HasPendingHeads());  // forces the tree rebuild and routing, if still due
  const double load_s = Seconds(Clk::now() - load0);
  const double rss_after_load = PeakRssMiB();

  // Schedule to quiescence.
  Tracker t;
  t.trace = o.trace;
  const PhaseStats first = RunToQuiescence(eng, clock, o, t);
  const double rss_after_first = PeakRssMiB();

  // Optional steady state: finish batches of admitted workloads, reschedule.
  PhaseStats steady;
  double finish_s = 0;
  int64_t finished = 0;
  int64_t rounds = 0;
  if (o.finish) {
    while (true) {
      const auto f0 = Clk::now();
      int n = 0;
      while (n < o.finish_batch && !t.running.empty()) {
        std::string key = std::move(t.running.front());
        t.running.pop_front();
        const engine::WorkloadInfo* wl = eng.FindWorkload(key);
        if (wl == nullptr || !wl->holds_quota()) continue;  // preempted, or already done
        if (Status s = eng.FinishWorkload(key); !s.ok()) {
          std::fprintf(stderr, "finish %s: %s\n", key.c_str(), s.ToString().c_str());
          return 1;
        }
        ++n;
      }
      finish_s += Seconds(Clk::now() - f0);
      finished += n;
      if (n == 0) break;
      ++rounds;
      clock.Advance(Duration{1000});
      steady.Add(RunToQuiescence(eng, clock, o, t));
    }
  }

  // Final census (not timed).
  int64_t holding = 0, done = 0, in_heap = 0, parked = 0;
  for (const engine::WorkloadInfo* wl : eng.Workloads()) {
    if (wl->holds_quota()) ++holding;
    if (wl->state == engine::WorkloadState::kFinished) ++done;
  }
  for (const auto& [name, cq] : eng.tree().cluster_queues()) {
    in_heap += static_cast<int64_t>(cq->pending().heap_size());
    parked += static_cast<int64_t>(cq->pending().inadmissible_size());
  }

  std::printf("Kuota engine benchmark (single thread)\n\n");
  Rule();
  Row("parameter / measure", "value");
  Rule();
  RowI("ClusterQueues", o.cqs);
  RowI("cohorts", o.cohorts);
  RowI("workloads", o.workloads);
  RowI("seed", static_cast<int64_t>(o.seed));
  if (o.tas) {
    char topo[96];
    std::snprintf(topo, sizeof(topo), "%d x %d x %d = %d", o.blocks, o.racks, o.hosts,
                  o.blocks * o.racks * o.hosts);
    Row("TAS nodes: blocks x racks x hosts", topo);
  }
  Row("preemption policies", o.preemption ? "on" : "off");
  RowI("idle cycles that end a phase", o.idle_cycles);
  RowI("max cycles per phase", o.max_cycles);
  RowF("load time (apply all objects + rebuild)", load_s, "s");
  RowR("load rate (workloads)", Rate(o.workloads, load_s));
  PrintPhase("initial scheduling to quiescence", first);
  if (o.finish) {
    PrintPhase("steady state (--finish)", steady);
    RowI("  finish rounds", rounds);
    RowI("  workloads finished", finished);
    RowF("  FinishWorkload wall time", finish_s, "s");
    RowR("  admissions/s incl. finish calls",
         Rate(static_cast<double>(steady.admitted), steady.seconds + finish_s));
  }
  Rule();
  RowI("final: holding quota", holding);
  RowI("final: finished", done);
  RowI("final: pending in heaps", in_heap);
  RowI("final: pending parked inadmissible", parked);
  RowF("peak RSS after load", rss_after_load, "MiB");
  RowF("peak RSS after first quiescence", rss_after_first, "MiB");
  RowF("peak RSS at end", PeakRssMiB(), "MiB");
  Rule();
  return 0;
}

}  // namespace
}  // namespace kuota::bench

int main(int argc, char** argv) {
  kuota::bench::Options o;
  CLI::App app{"Kuota engine benchmark: schedules a large synthetic cluster to quiescence"};
  CLI::Option* cqs = app.add_option("--cqs", o.cqs, "ClusterQueues (default 1000; with --tas 100)")
                         ->check(CLI::PositiveNumber);
  app.add_option("--cohorts", o.cohorts, "cohorts (ClusterQueues spread evenly)")
      ->check(CLI::PositiveNumber);
  app.add_option("--workloads", o.workloads, "pending Workloads")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "PRNG seed");
  app.add_flag("--finish", o.finish,
               "after quiescence, finish admitted workloads in batches and keep scheduling");
  app.add_option("--finish-batch", o.finish_batch, "workloads finished per round")
      ->check(CLI::PositiveNumber);
  app.add_flag("!--no-preemption", o.preemption, "ClusterQueues without preemption policies");
  app.add_option("--idle-cycles", o.idle_cycles,
                 "cycles in a row without admission or preemption that end a phase")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-cycles", o.max_cycles, "cap on cycles per scheduling phase")
      ->check(CLI::PositiveNumber);
  app.add_flag("--trace", o.trace, "print every cycle's decisions to stderr");
  app.add_flag("--progress", o.progress, "print a progress line to stderr every 10 seconds");
  app.add_flag("--tas", o.tas,
               "topology-aware scheduling: nodes in blocks x racks x hosts, gangs of 2-8 pods "
               "requiring or preferring one rack");
  app.add_option("--blocks", o.blocks, "--tas: blocks")->check(CLI::PositiveNumber);
  app.add_option("--racks", o.racks, "--tas: racks per block")->check(CLI::PositiveNumber);
  app.add_option("--hosts", o.hosts, "--tas: hosts per rack")->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (o.tas && cqs->count() == 0) o.cqs = 100;
  return kuota::bench::Run(o);
}
