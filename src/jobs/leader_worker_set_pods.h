// LeaderWorkerSet pods: what LWS's controllers do for one LeaderWorkerSet on
// this machine, given the set and its pods as stored: each group's leader
// "<lws>-<g>" and workers "<lws>-<g>-<w>" made from the templates with LWS's
// labels, annotations and environment (LWS_LEADER_ADDRESS, LWS_GROUP_SIZE,
// LWS_WORKER_INDEX), a group's pods at once (about 256 pods a pass),
// recreated when deleted (a preempted group comes back gated and queues
// again), the whole group recreated on a pod's failure or loss under
// RecreateGroupOnPodRestart, groups beyond spec.replicas deleted, and LWS's
// status (replicas, readyReplicas, updatedReplicas, hpaPodSelector, the
// Available / Progressing conditions). Kuota runs no StatefulSets: the pods
// are the set's own. Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "jobs/group_reconcile.h"

namespace kuota::jobs {

// `pods`: the pods whose controller is the set. `now`: RFC 3339.
Result<GroupActions> ReconcileLeaderWorkerSet(const Json& lws, const std::vector<Json>& pods,
                                              const std::string& now);

// The pod LWS makes for worker `worker` (0: the leader) of group `group`,
// with the admission gate when Kueue's webhook suspended the templates
// (what Kueue's pod webhook does to such a pod on create).
Json LeaderWorkerSetPod(const Json& lws, int64_t group, int64_t worker);

}  // namespace kuota::jobs
