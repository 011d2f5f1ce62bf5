// Real-time runner: Kueue's scheduler benchmark against a running kuotad
// through its HTTP API, as Kueue's runner drives a cluster. Creates the
// ResourceFlavor, ClusterQueues, namespaces and LocalQueues, then each
// Workload at its creation time from a pool of client threads; watches every
// Workload; marks each admitted one Finished (a merge patch of its status,
// guarded by its resourceVersion) runtimeMs after it saw the admission; and
// lets kuotad requeue evicted ones, which then run their full runtime again.
// Runs its own threads; returns when every workload finished, on timeout, or
// when the server fails.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/result.h"
#include "perf/api_client.h"
#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

struct RealTimeOptions {
  ServerAddress server;
  // Client connections that create workloads, and those that mark them
  // Finished once their runtime has passed. Each waits for its durable write,
  // so too few finishers would keep workloads holding quota past their
  // runtime under load: the runner's queue, not the scheduler, would show.
  int clients = 32;
  int finishers = 32;
  // Give up after this long (Kueue's runner: 10 minutes).
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  // Give up when nothing changes for this long while work remains.
  std::chrono::milliseconds stall_timeout{std::chrono::seconds(60)};
  // Progress lines (called on the calling thread); may be empty.
  std::function<void(const std::string&)> progress;
};

// Fails when the server cannot be reached, is not a Kueue API, refuses the
// plan's objects or already has them. A run that times out returns its
// record with `completed` false and `stop_reason` set.
Result<RunRecord> RunRealTime(const Plan& plan, const RealTimeOptions& options);

}  // namespace kuota::perf
