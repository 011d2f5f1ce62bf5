#include "cli/perf_command.h"

#include "cli/api_client.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/time.h"
#include "cli/read_input.h"
#include "perf/perf_run.h"

namespace kuota::cli {
namespace {

struct PerfFlags {
  std::string config;
  bool virtual_time = false;
  std::string server;
  std::string out;
  std::string kuotad;
  bool no_sync = false;
  int clients = 32;
  int finishers = 32;
  std::string timeout = "10m";
  bool no_plot = false;
  bool quiet = false;
};

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;      // bad input, server unreachable, ...
constexpr int kExitUsage = 2;      // bad flag values
constexpr int kExitRunFailed = 3;  // the run did not complete or failed its checks

void Run(const PerfFlags& flags, int* exit_code) {
  auto timeout = ParseDuration(flags.timeout);
  if (!timeout.ok() || timeout->ms <= 0) {
    std::fprintf(stderr,
                 "kuota perf: --timeout \"%s\": want a positive duration such as 90s or 10m\n",
                 flags.timeout.c_str());
    *exit_code = kExitUsage;
    return;
  }
  auto text = ReadInput(flags.config);
  if (!text.ok()) {
    std::fprintf(stderr, "kuota perf: --config: %s\n", text.status().message().c_str());
    *exit_code = kExitError;
    return;
  }
  perf::PerfOptions o;
  o.config_text = std::move(text).value();
  o.config_name = flags.config;
  o.virtual_time = flags.virtual_time;
  o.server_url = flags.server;
  if (!flags.server.empty()) {
    // A running kuotad: the CA and token from the default kubeconfig, as
    // the other commands find them (or $KUOTA_TOKEN).
    Result<ServerTarget> target = ResolveServer(ServerFlags{flags.server, ""});
    if (target.ok()) {
      o.server_ca_pem = target->ca_pem;
      o.server_token = target->token;
    }
  }
  o.kuotad_path = flags.kuotad;
  o.kuotad_sync = !flags.no_sync;
  o.plot = !flags.no_plot;
  o.clients = flags.clients;
  o.finishers = flags.finishers;
  o.timeout = std::chrono::milliseconds(timeout->ms);
  o.out_dir = flags.out;
  if (o.out_dir.empty()) {
    std::string stem = std::filesystem::path(flags.config).stem().string();
    if (stem.empty() || stem == "-") stem = "config";
    o.out_dir = "perf-" + stem + (flags.virtual_time ? "-virtual" : "-real-time");
  }
  if (!flags.quiet) {
    o.progress = [](const std::string& line) {
      std::fprintf(stderr, "kuota perf: %s\n", line.c_str());
      std::fflush(stderr);
    };
  }
  // A server that goes away mid-write must not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  auto outcome = perf::RunPerf(o);
  if (!outcome.ok()) {
    std::fprintf(stderr, "kuota perf: %s\n", outcome.status().message().c_str());
    *exit_code = kExitError;
    return;
  }
  std::fwrite(outcome->summary_text.data(), 1, outcome->summary_text.size(), stdout);
  std::printf("\nwrote:");
  for (const auto& f : outcome->files) std::printf(" %s", f.c_str());
  std::printf("\n");
  if (!outcome->plot_note.empty()) std::printf("no plot: %s\n", outcome->plot_note.c_str());
  std::fflush(stdout);
  *exit_code = outcome->completed && outcome->consistent ? kExitOk : kExitRunFailed;
}

}  // namespace

void AddPerfCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<PerfFlags>();
  CLI::App* cmd = app.add_subcommand(
      "perf", "Kueue's scheduler benchmark, reproduced: virtual time, or real time against kuotad");
  cmd->add_option("-c,--config", flags->config, "Kueue scheduler-perf generator config (YAML)")
      ->required();
  auto* virt = cmd->add_flag(
      "--virtual", flags->virtual_time,
      "Virtual time: drive the engine directly, no control plane (the lower bound of what\n"
      "Kuota's policy reaches; runs the large-scale config in seconds)");
  auto* server = cmd->add_option(
      "--server", flags->server,
      "Real time against this running kuotad (http://HOST:PORT). Without it (and without\n"
      "--virtual), kuota perf starts a kuotad of its own on a temporary directory");
  cmd->add_option("-o,--out", flags->out,
                  "Output directory (default: perf-<config name>-virtual or -real-time)");
  auto* kuotad = cmd->add_option("--kuotad", flags->kuotad,
                                 "kuotad binary to start (default: kuotad next to kuota)");
  auto* no_sync = cmd->add_flag("--no-sync", flags->no_sync,
                                "Start kuotad with --no-sync (no fsync per commit)");
  auto* clients =
      cmd->add_option("--clients", flags->clients, "Real time: connections that create workloads")
          ->check(CLI::Range(1, 64))
          ->capture_default_str();
  auto* finishers = cmd->add_option("--finishers", flags->finishers,
                                    "Real time: connections that mark workloads Finished once\n"
                                    "their runtime has passed")
                        ->check(CLI::Range(1, 64))
                        ->capture_default_str();
  auto* timeout = cmd->add_option("--timeout", flags->timeout,
                                  "Real time: give up after this long (Go duration)")
                      ->capture_default_str();
  cmd->add_flag("--no-plot", flags->no_plot, "Do not run gnuplot (plot.gp is still written)");
  cmd->add_flag("-q,--quiet", flags->quiet, "No progress lines on stderr");
  virt->excludes(server)
      ->excludes(kuotad)
      ->excludes(no_sync)
      ->excludes(clients)
      ->excludes(finishers)
      ->excludes(timeout);
  server->excludes(kuotad)->excludes(no_sync);
  cmd->footer(
      "Reads Kueue's generator config (test/performance/scheduler/configs/*/generator.yaml):\n"
      "cohorts of ClusterQueues with a cpu quota, and workloads created one every\n"
      "creationIntervalMs that run runtimeMs once admitted (evicted ones run again in full).\n"
      "Reports what Kueue's runner reports: wall time, per ClusterQueue class the usage %, per\n"
      "workload class the average time to admission and the evictions; checks the run's\n"
      "consistency; writes summary.json, CSVs and a plot (docs/perf.md).\n\n"
      "Examples:\n"
      "  kuota perf --config ../shared/perf/baseline.yaml --virtual\n"
      "  kuota perf --config ../shared/perf/baseline.yaml              # starts its own kuotad\n"
      "  kuota perf --config baseline.yaml --server http://127.0.0.1:8080 --out results/\n"
      "Exit status: 0 the run completed and passed its consistency checks; 1 an error (bad\n"
      "config, server unreachable, ...); 2 bad flags; 3 the run did not complete or failed\n"
      "its checks (the report is still written).");
  cmd->callback([flags, exit_code]() { Run(*flags, exit_code); });
}

}  // namespace kuota::cli
