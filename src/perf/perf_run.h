// RunPerf: `kuota perf` end to end. Reads and expands a Kueue generator
// config, runs it in virtual time (engine only) or in real time against a
// kuotad (the one named, or one it starts next to the kuota binary and stops
// afterwards), computes Kueue's statistics, checks the run's consistency and
// writes the report files. Runs threads of its own in real-time mode; call
// from one thread.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"

namespace kuota::perf {

struct PerfOptions {
  std::string config_text;    // Kueue generator config (YAML)
  std::string config_name;    // how to name it in messages and the report
  bool virtual_time = false;  // engine only, virtual clock
  std::string server_url;     // real time: a running kuotad; empty: start one
  std::string server_ca_pem;  // with server_url: its CA (https) and bearer token
  std::string server_token;
  std::string kuotad_path;  // empty: kuotad next to the running executable
  bool kuotad_sync = true;  // false: start kuotad with --no-sync
  std::string out_dir;      // where the report files go
  bool plot = true;         // draw plot.png with gnuplot
  int clients = 32;         // real time: connections that create workloads
  int finishers = 32;       // real time: connections that mark them Finished
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Progress lines go here (may be empty).
  std::function<void(const std::string&)> progress;
};

struct PerfOutcome {
  std::string summary_text;        // the printed summary
  bool completed = false;          // every workload finished
  bool consistent = false;         // the consistency checks passed
  std::vector<std::string> files;  // written
  std::string plot_note;           // why there is no plot, if there is none
};

// Errors: invalid config, unreachable or unsuitable server,
// kuotad that will not start, output directory not writable. A run that did
// not complete or failed its checks is an outcome, not an error.
Result<PerfOutcome> RunPerf(const PerfOptions& options);

}  // namespace kuota::perf
