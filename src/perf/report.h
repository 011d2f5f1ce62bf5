// Report: what `kuota perf` prints and writes. summary.json (the statistics,
// with Kueue's field names where they exist), workloads.csv (one row per
// workload, like Kueue's wlStates.csv), clusterqueues.csv (one row per
// ClusterQueue, like cqStates.csv), clusterqueue_timeline.csv (each
// ClusterQueue's cpu held, pending and running workloads at every change),
// timeline.csv (sampled totals) and plot.png drawn by gnuplot from it.
// Functions; WriteReportFiles touches only the output directory.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "perf/consistency.h"
#include "perf/perf_plan.h"
#include "perf/run_record.h"
#include "perf/summary.h"

namespace kuota::perf {

struct ReportInput {
  const Plan& plan;
  const RunRecord& record;
  const Summary& summary;
  const ConsistencyReport& checks;
  std::string config_name;  // as given on the command line
};

std::string SummaryJson(const ReportInput& in);
std::string SummaryText(const ReportInput& in);

struct ReportFiles {
  std::vector<std::string> written;  // paths
  std::string plot_note;             // why there is no plot, when there is none
};

// Creates `dir` if needed and writes every file; draws the plot when `plot`
// and gnuplot is installed. Fails when a file cannot be written.
Result<ReportFiles> WriteReportFiles(const ReportInput& in, const std::string& dir, bool plot);

}  // namespace kuota::perf
