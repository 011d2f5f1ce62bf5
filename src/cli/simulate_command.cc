#include "cli/simulate_command.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include "base/time.h"
#include "cli/read_input.h"
#include "sim/simulation.h"

namespace kuota::cli {
namespace {

struct SimulateFlags {
  std::string file;
  int cycles = 1;
  std::string now = "2026-01-01T00:00:00Z";
  std::string output = "text";
};

}  // namespace

void AddSimulateCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Run scheduling cycles over a state file and show what Kueue's rules decide:\n"
      "which workloads are admitted (and on which flavors), which are preempted and by\n"
      "whom, and why each pending workload waits.");
  cmd->add_option("-f,--file", flags->file,
                  "State file: multi-document YAML or JSON of ResourceFlavor, ClusterQueue,\n"
                  "Cohort, LocalQueue, WorkloadPriorityClass, PriorityClass, Namespace,\n"
                  "AdmissionCheck, Workload and an optional Configuration; optionally v1 Nodes\n"
                  "and conformance/v1 Steps that move time on (docs/scenario-format.md)\n"
                  "('-' for stdin)")
      ->required();
  cmd->add_option("--cycles", flags->cycles,
                  "Scheduling cycles to run at --now; 0 runs until cycles change nothing\n"
                  "(after each Step, the Step's own cycles apply)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--now", flags->now, "The scheduler's clock, RFC 3339")->capture_default_str();
  cmd->add_option("-o,--output", flags->output, "Output format: text (a table) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([flags, exit_code]() {
    auto now = ParseRfc3339(flags->now);
    if (!now.ok()) {
      std::fprintf(stderr, "kuota simulate: --now: %s\n", now.status().message().c_str());
      *exit_code = 2;
      return;
    }
    auto text = ReadInput(flags->file);
    if (!text.ok()) {
      std::fprintf(stderr, "kuota simulate: %s\n", text.status().message().c_str());
      *exit_code = 1;
      return;
    }
    sim::SimulateOptions opts;
    opts.cycles = flags->cycles;
    opts.now = *now;
    auto report = sim::Simulate(*text, opts);
    if (!report.ok()) {
      std::fprintf(stderr, "kuota simulate: %s: %s\n", flags->file.c_str(),
                   report.status().message().c_str());
      *exit_code = 1;
      return;
    }
    std::string out =
        flags->output == "json" ? sim::ReportToJson(*report) : sim::ReportToText(*report);
    std::fwrite(out.data(), 1, out.size(), stdout);
    *exit_code = 0;
  });
}

}  // namespace kuota::cli
