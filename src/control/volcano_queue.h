// Volcano Queue (scheduling.volcano.sh/v1beta1): what Volcano's webhooks do
// to a Queue (defaulting, validation), and how kuotad maps one onto Kueue's
// quota tree: a ClusterQueue "volcano-<name>" in cohort "volcano" over the
// ResourceFlavor "volcano", and a LocalQueue "volcano-<name>" per namespace.
// See docs/volcano-queues.md for the mapping field by field. Pure functions;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "control/pod_resources.h"

namespace kuota::control {

inline constexpr char kVolcanoQueues[] = "queues.scheduling.volcano.sh";
inline constexpr char kVolcanoSchedulingGroup[] = "scheduling.volcano.sh";
// On every ClusterQueue and LocalQueue kuotad makes for a Queue: its name.
inline constexpr char kVolcanoQueueLabel[] = "kuota.dev/volcano-queue";
inline constexpr char kVolcanoCohort[] = "volcano";
inline constexpr char kVolcanoFlavor[] = "volcano";
// The Queue Volcano creates at install, and a Volcano Job's queue by default.
inline constexpr char kDefaultVolcanoQueue[] = "default";

// "volcano-<queue>": the ClusterQueue and the LocalQueues of Volcano Queue `queue`.
std::string VolcanoQueueObjectName(const std::string& queue);

// Volcano's mutating webhook on create: weight 1 and reclaimable true when
// absent. Copes with invalid objects.
void DefaultVolcanoQueue(nlohmann::json& queue);
// Volcano's validating webhook and CRD schema: Ok, or Invalid whose message
// leads with the field path ("spec.weight: Invalid value: 0: queue weight
// must be a positive integer").
Status ValidateVolcanoQueue(const nlohmann::json& queue);
// Volcano's webhook on delete: the default queue cannot be deleted.
Status ValidateVolcanoQueueDeletion(const nlohmann::json& queue);
// Fields of a valid Queue that the quota tree cannot honour, one sentence
// each, led by the field path ("spec.affinity: ignored: ...").
std::vector<std::string> VolcanoQueueWarnings(const nlohmann::json& queue);

// The state a Queue asks for: spec.state (Volcano's deprecated field, which
// Kuota honours so that a manifest can close a queue), else status.state (as
// written through the status subresource), else "Open". Closing counts as Closed.
std::string VolcanoQueueState(const nlohmann::json& queue);

struct VolcanoQueueMapping {
  nlohmann::json cluster_queue;       // kueue.x-k8s.io/v1beta1 ClusterQueue
  std::string state;                  // "Open" or "Closed"
  std::vector<std::string> warnings;  // VolcanoQueueWarnings
};

// Maps a valid Queue onto its ClusterQueue. For each resource named in
// capability, deserved or guarantee.resource, and always cpu, memory and
// nvidia.com/gpu: nominalQuota = deserved, else guarantee, else capability,
// else `machine`'s amount (0 when the machine has none); borrowingLimit =
// capability - nominal where capability names it; lendingLimit = nominal -
// guarantee where guarantee names it. fairSharing.weight = weight;
// preemption.reclaimWithinCohort Any when `others_reclaimable` (every other
// Volcano Queue is reclaimable) else Never; stopPolicy Hold when Closed.
VolcanoQueueMapping MapVolcanoQueue(const nlohmann::json& queue, const ResourceAmounts& machine,
                                    bool others_reclaimable);
// The LocalQueue "volcano-<queue>" in namespace `ns`.
nlohmann::json VolcanoLocalQueue(const std::string& queue, const std::string& ns);
// The ResourceFlavor "volcano" (no node labels: every pod runs on this machine).
nlohmann::json VolcanoResourceFlavor();
// The Queue Volcano's installation creates: "default", weight 1, reclaimable.
nlohmann::json DefaultVolcanoQueueObject();
// spec.reclaimable, true when absent (Volcano's default).
bool VolcanoQueueReclaimable(const nlohmann::json& queue);

}  // namespace kuota::control
