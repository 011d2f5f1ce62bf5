// Virtual-time runner: drives Kuota's engine directly on a manual clock, with
// no control plane. Workloads appear at their creation times, finish
// runtimeMs after admission, and evicted ones go back to their queue and run
// their full runtime again once readmitted. Scheduling takes no virtual time,
// so this is the lower bound of what Kuota's policy reaches on the config.
// Single-threaded.
#pragma once

#include "base/result.h"
#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

struct VirtualOptions {
  // Stop (and report) when virtual time passes this many ms.
  int64_t max_virtual_ms = 24 * 3600 * 1000;
};

// Fails only if the engine rejects the plan's objects.
Result<RunRecord> RunVirtual(const Plan& plan, const VirtualOptions& options);

}  // namespace kuota::perf
