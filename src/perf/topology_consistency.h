// Topology checks over a finished run of a TAS config: every topology-placed
// admission put all its pods on the plan's nodes, a required gang within one
// domain of its level and each slice within one; and at no instant on the
// scheduler's clock did the pods placed on a node (each admitted workload's
// per-pod request × its pods there) exceed the node's allocatable cpu or pods.
// Pure function; a no-op for plans without a topology.
#pragma once

#include <cstddef>

#include "perf/consistency.h"
#include "perf/perf_plan.h"
#include "perf/run_record.h"

namespace kuota::perf {

// Adds what fails to `report` (counted; spelled out while it lists fewer
// than `max_listed`).
void CheckTopologyConsistency(const Plan& plan, const RunRecord& record, ConsistencyReport& report,
                              size_t max_listed);

}  // namespace kuota::perf
