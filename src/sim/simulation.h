// Simulation: the what-if driver. Loads a state file (ResourceFlavors,
// ClusterQueues, Cohorts, LocalQueues, priority classes, Namespaces, Workloads,
// an optional Configuration, and optionally Nodes and time Steps) into an
// engine on a manual clock, runs scheduling cycles (and plays the steps, see
// sim/step_player.h), and reports admitted, preempted, evicted and pending
// workloads with reasons. Single-threaded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/workload.h"

#include "base/result.h"
#include "base/time.h"

namespace kuota::sim {

struct PodSetResult {
  int32_t count = 0;
  std::map<std::string, std::string> flavors;       // resource -> flavor
  std::optional<api::TopologyAssignment> topology;  // placed by topology
};

struct AdmittedResult {
  std::string cluster_queue;
  std::map<std::string, PodSetResult> pod_sets;
  bool admitted = true;     // false: quota reserved, admission checks pending
  bool pods_ready = false;  // its PodsReady condition is True
};

struct PreemptedResult {
  std::string workload;
  std::string by;
  std::string reason;
  int cycle = 0;
};

// An eviction other than a preemption: a PodsReady timeout, an admission
// check's Retry or Rejected, a drained queue.
struct EvictedResult {
  std::string workload;
  std::string reason;  // PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped, ...
  std::string at;      // RFC 3339
};

struct PendingResult {
  std::string workload;
  std::string cluster_queue;  // where it waits (may be empty)
  int32_t priority = 0;
  std::string reason;
};

struct Report {
  std::map<std::string, AdmittedResult> admitted;
  std::vector<PreemptedResult> preempted;
  std::vector<EvictedResult> evicted;  // in time order
  std::vector<PendingResult> pending;
  int cycles_run = 0;
  std::vector<std::string> warnings;  // e.g. inactive ClusterQueues and why
};

struct SimulateOptions {
  // Cycles to run at `now`, before any Step; 0 runs until cycles change
  // nothing (at most 100000). After each Step, the step's own `cycles` apply.
  int cycles = 1;
  // The scheduler's clock; default 2026-01-01T00:00:00Z.
  Time now = Time::FromSeconds(1767225600);
};

// Decodes `state_text` (multi-document YAML or JSON) and runs the simulation.
// A document of kind conformance/v1 Expectation is ignored; v1 Node and
// conformance/v1 Step documents are read by sim/timeline.h. Steps must not
// be before `options.now`.
Result<Report> Simulate(std::string_view state_text, const SimulateOptions& options);

std::string ReportToJson(const Report& report);
std::string ReportToText(const Report& report);

}  // namespace kuota::sim
