// Timeline: a run's per-ClusterQueue state over time (cpu held, pending and
// running workloads), rebuilt from the RunRecord's holds: exact rows at each
// change for the per-ClusterQueue CSV, and evenly spaced samples of the
// totals for the plot. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

// One ClusterQueue's state after every change within one millisecond.
struct QueueRow {
  int64_t t_ms = 0;
  int32_t queue = 0;
  int64_t usage_milli = 0;
  int64_t pending = 0;
  int64_t running = 0;
};

// Rows in time order (then queue order).
std::vector<QueueRow> QueueTimeline(const Plan& plan, const RunRecord& record);

struct TotalsSample {
  double t_s = 0;
  double usage_percent = 0;  // cpu held ÷ all nominal quota
  int64_t pending = 0;
  int64_t running = 0;
  std::vector<int64_t> pending_by_class;  // Plan::workload_classes order
};

// About `samples` samples from the start of the run to its end.
std::vector<TotalsSample> SampleTotals(const Plan& plan, const RunRecord& record, int samples);

}  // namespace kuota::perf
