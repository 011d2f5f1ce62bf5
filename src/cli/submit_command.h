// The `kuota submit` subcommand: turns a command line into a batch/v1 Job (or,
// with --kind, a PyTorchJob, TFJob, JobSet, Volcano Job or Pod) in a
// Kueue LocalQueue (label kueue.x-k8s.io/queue-name), with resource requests,
// a WorkloadPriorityClass, parallelism/completions and environment, and
// creates it on kuotad. BuildSubmitJob is the pure part, for tests.
// Runs on the calling thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::cli {

struct SubmitOptions {
  std::string kind = "job";  // see SubmitKindNames(): job, pytorchjob, tfjob, ...
  std::string queue;         // LocalQueue (required)
  std::string ns = "default";
  std::string name;       // empty: generated from the command
  std::string cpu = "1";  // per pod, requests = limits
  std::string memory;     // empty: no memory request
  int64_t gpus = 0;       // nvidia.com/gpu per pod
  std::string priority;   // WorkloadPriorityClass name; empty: none
  int64_t parallelism = 1;
  int64_t completions = 0;           // 0: as parallelism
  bool indexed = false;              // completionMode Indexed (JOB_COMPLETION_INDEX)
  int64_t backoff_limit = 0;         // pod failures tolerated before the Job fails
  std::vector<std::string> env;      // "KEY=VALUE"
  std::string workdir;               // empty: no workingDir; relative: from the current directory
  std::vector<std::string> command;  // program and arguments
};

// The Job for `options`, or an Invalid error naming the flag at fault.
Result<nlohmann::json> BuildSubmitJob(const SubmitOptions& options);

// BuildSubmitJob reshaped into `options.kind` (ReshapeSubmitJob).
Result<nlohmann::json> BuildSubmitObject(const SubmitOptions& options);

// Adds `submit` to `app`. The callback sets `*exit_code`.
void AddSubmitCommand(CLI::App& app, int* exit_code);

}  // namespace kuota::cli
