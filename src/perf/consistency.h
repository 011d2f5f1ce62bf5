// Consistency checks over a finished run: every workload created once,
// admitted once more often than it was evicted, finished once after running
// its full runtime in its own ClusterQueue; and, on the scheduler's own clock,
// no ClusterQueue above nominal quota + borrowingLimit and no cohort above the
// sum of its members' nominal quotas at any instant; with a topology, the
// checks of topology_consistency.h. These hold for any
// correct scheduler at any speed, so CI can assert them on a loaded machine.
// Pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

struct ConsistencyReport {
  int64_t failure_count = 0;
  std::vector<std::string> failures;  // the first few, as sentences
  bool ok() const { return failure_count == 0; }
};

// At most `max_listed` failures are spelled out; all are counted.
ConsistencyReport CheckConsistency(const Plan& plan, const RunRecord& record,
                                   size_t max_listed = 20);

// `milli` cpu as the checks' messages and the reports print it: a decimal
// without trailing zeros ("1.5", "2", "0.001").
std::string CpuText(int64_t milli);

}  // namespace kuota::perf
