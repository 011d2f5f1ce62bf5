// Topology gates: what Kueue puts on the pod templates of a job it starts
// when the job's Workload was admitted with a topologyAssignment (jobframework's
// PodSetInfo, podset.FromAssignment): each pod set's template gets the
// `kueue.x-k8s.io/workload` annotation (the Workload's name) and the
// `kueue.x-k8s.io/podset` label, and a pod set placed by topology also the
// `kueue.x-k8s.io/topology` scheduling gate (its pods wait for the ungater,
// topology_ungating.h) and, when it asked for no topology itself (implied by
// a topology flavor), the unconstrained topology annotation. Taken off again
// when the job is stopped. Pure functions over the job's JSON; thread-safe.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "api/workload.h"
#include "jobs/job_kind.h"

namespace kuota::control {

// True when some pod set of `wl`'s admission has a topologyAssignment.
bool AdmittedByTopology(const api::Workload& wl);

// Adds the gates and names above to `started` (what kind.Start made of the
// job) when `wl` is admitted by topology; does nothing otherwise.
void AddTopologyGates(const jobs::JobKind& kind, const api::Workload& wl, nlohmann::json& started);

// The same marks as labels, annotations and scheduling gates of each pod
// set's placement, for a kind whose TopologyGatesInPlacement is true (its
// Stop drops the whole placement, so there is nothing to take off).
void AddTopologyGatesToPlacement(const api::Workload& wl,
                                 std::vector<jobs::PodSetPlacement>& placement);

// Takes them off `stopped` (what kind.Stop made of the job): the topology
// gate always, each label and annotation unless `wl`'s own pod set template
// has it.
void RemoveTopologyGates(const jobs::JobKind& kind, const api::Workload& wl,
                         nlohmann::json& stopped);

}  // namespace kuota::control
