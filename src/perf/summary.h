// Summary: the statistics Kueue's scheduler performance runner reports,
// computed from a Plan and a RunRecord. Per ClusterQueue class the usage %
// (cpu·ms of quota held by admitted workloads ÷ (nominal quota × monitored
// ms), summed over the class); per workload class the count, the average
// time from creation to admission (Kueue's recorder keeps the last
// admission, after any eviction; the first is shown too), the average time
// to finish and the evictions; and the run's wall time. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

struct QueueClassStats {
  std::string name;
  int64_t queues = 0;
  int64_t nominal_milli = 0;    // summed over the class
  double used_milli_ms = 0;     // cpu·ms held (milli-cpu × ms), summed
  int64_t monitored_ms = 0;     // from the schedule's start to the run's end
  double usage_percent = 0;     // used / (nominal × monitored) × 100
  int64_t max_usage_milli = 0;  // the most any one queue of the class held
};

struct QueueStats {
  double used_milli_ms = 0;
  int64_t max_usage_milli = 0;
};

struct WorkloadClassStats {
  std::string name;
  int64_t count = 0;
  int64_t finished = 0;
  double avg_time_to_admission_ms = 0;        // creation -> last admission (Kueue's)
  double avg_time_to_first_admission_ms = 0;  // creation -> first admission
  double p90_time_to_admission_ms = 0;
  double max_time_to_admission_ms = 0;
  double avg_time_to_finish_ms = 0;  // creation -> finished
  int64_t evictions = 0;
};

struct Summary {
  std::string mode;
  int64_t workloads = 0;
  int64_t cluster_queues = 0;
  int64_t cohorts = 0;
  double wall_s = 0;      // the whole run
  double setup_s = 0;     // creating queues (real time)
  double makespan_s = 0;  // schedule start -> last finish
  double real_s = 0;      // what the run took on this machine (virtual: compute time)
  double runner_cpu_s = 0;
  bool completed = false;
  std::vector<QueueStats> queues;  // Plan::queues order
  std::vector<QueueClassStats> queue_classes;
  std::vector<WorkloadClassStats> workload_classes;
};

Summary Summarize(const Plan& plan, const RunRecord& record);

// Creation -> admission of one workload, in ms; -1 when never admitted.
double TimeToAdmissionMs(const WorkloadRecord& w);       // last admission; -1 if none
double TimeToFirstAdmissionMs(const WorkloadRecord& w);  // -1 if none

}  // namespace kuota::perf
