// WorkloadInfo: the engine's record of one Workload: the object, its resolved
// priority and per-pod requests, where it is queued, and (when it holds quota)
// its admission and usage per FrId. Single-threaded (engine-owned).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/workload.h"
#include "base/time.h"
#include "engine/flavor_resource.h"

namespace kuota::engine {

class ClusterQueueNode;
struct TasCell;

// A topology-placed holder's usage on one leaf: milli-units by resource index.
struct TasUse {
  TasCell* cell = nullptr;  // borrowed from TasState
  std::vector<int64_t> amount;
};

// Requests as (resource name, milli-units) pairs sorted by name.
using Requests = std::vector<std::pair<std::string, int64_t>>;

struct PodSetInfo {
  std::string name;
  int32_t count = 1;
  std::optional<int32_t> min_count;
  // The spec has a nodeSelector or required node affinity terms: without
  // them (and without a taint to tolerate) any flavor suits, and flavor
  // assignment need not read the spec, which is cold in the cache. (Here,
  // in the padding after min_count: the record keeps its size.)
  bool constrained = false;
  Requests per_pod;
  const api::PodSpec* spec = nullptr;  // borrowed from WorkloadInfo::object
};

struct PodSetAdmission {
  std::string name;
  int32_t count = 0;
  std::map<std::string, std::string> flavors;  // resource -> flavor
  Requests usage;                              // totals for the pod set
};

enum class WorkloadState {
  kPending,        // waiting in a queue (or unqueueable; see pending_reason)
  kQuotaReserved,  // holds quota; admission checks not all Ready
  kAdmitted,       // holds quota and every check is Ready
  kFinished,       // done; holds nothing
  kInactive,       // spec.active is false
};

// Where a workload sits in its ClusterQueue's PendingQueue (managed there).
enum class QueueSlot { kNone, kHeap, kInadmissible, kBackoff, kPinned };

inline constexpr uint32_t kNoHint = UINT32_MAX;

// The fields a scheduling cycle reads for each head come first and `object`
// (about 700 bytes) last, so a head's queueing and pod-set fields share a few
// cache lines.
struct WorkloadInfo {
  std::string key;   // namespace/name
  uint64_t seq = 0;  // arrival order in the engine: the last FIFO tie-break
  int32_t priority = 0;
  Time creation;
  // FIFO timestamp: creation, or the eviction time after a PodsReady timeout.
  Time queue_order_time;
  std::vector<PodSetInfo> pod_sets;
  // Why the spec can never be admitted (ValidateResources, then
  // RequestsOverflow), found once when the workload is added; "" if none.
  std::string spec_error;
  WorkloadState state = WorkloadState::kPending;

  // Quota holding (state kQuotaReserved / kAdmitted).
  ClusterQueueNode* admitted_in = nullptr;  // borrowed
  std::vector<PodSetAdmission> admission;
  std::vector<std::pair<FrId, int64_t>> usage;
  std::vector<TasUse> tas_usage;  // on the topology's leaves, when placed by topology
  Time quota_reserved_at;
  // Its WorkloadPriorityClass's kuota.dev/minimum-runtime, in ms; -1 when it
  // has none (its ClusterQueue's applies then). See minimum_runtime.h.
  int64_t minimum_runtime_ms = -1;
  bool evicted = false;  // an eviction was decided and not yet carried out
  // Its position in the last holder order built for its tree while it held
  // quota (HolderOrder's hint for the next build; never decides the order),
  // or kNoHint. In the padding after `evicted`: the record keeps its size.
  uint32_t holder_hint = kNoHint;

  // Queueing (state kPending).
  ClusterQueueNode* queued_in = nullptr;  // borrowed
  std::optional<Time> requeue_at;         // backoff: not offered before this
  QueueSlot slot = QueueSlot::kNone;      // managed by PendingQueue
  // Issued preemptions last cycle: offered and processed first next cycle, so
  // the capacity its victims free is not taken back by them.
  bool preempting = false;
  int64_t slot_priority = 0;  // the ordering key it was queued with
  int64_t slot_time = 0;
  // In the heap: its handle there (see PendingQueue); parked: its position
  // in the inadmissible list.
  size_t slot_index = 0;
  int32_t requeue_count = 0;

 private:
  // Beside pending_reason and pending_message_ (below), which a requeue
  // writes with it: one cache line, not one at each end of the record.
  bool pending_on_condition_ = false;

 public:
  // Why it is not admitted, as users read it; reason is Kueue's condition reason.
  std::string pending_reason;

 private:
  std::string pending_message_;

 public:
  // The message; kept once: either here, or (after a scheduling cycle left the
  // workload pending) as the message of its QuotaReserved condition.
  const std::string& pending_message() const;
  void set_pending_message(std::string message) {
    pending_message_ = std::move(message);
    pending_on_condition_ = false;
  }
  // The QuotaReserved condition's message is the pending message.
  void set_pending_message_on_condition() {
    pending_message_.clear();
    pending_on_condition_ = true;
  }

  bool holds_quota() const {
    return state == WorkloadState::kQuotaReserved || state == WorkloadState::kAdmitted;
  }
  api::Workload object;  // last: see the comment above the struct

  const std::string& uid() const { return object.metadata.uid; }
  const std::string& name() const { return object.metadata.name; }
  const std::string& ns() const { return object.metadata.namespace_; }
};

// Builds pod set infos (per-pod requests) from the object's spec.
std::vector<PodSetInfo> BuildPodSets(const api::Workload& wl);

// Kueue's resource validation at admission (workload.ValidateResources): every
// init container and container must request no more than its limit. Returns
// "" when valid, else Kueue's message, e.g. "resources validation failed:
// spec.podSets[0].template.spec.containers[0]: Invalid value:
// []v1.ResourceName{"cpu"}: requests must not exceed its limits".
std::string ValidateResources(const api::Workload& wl);

// "" when every request of the workload (per pod, per pod set at its count,
// and summed over pod sets) is below the saturation point of int64
// milli-units; else why it cannot be counted. Such a workload stays pending.
std::string RequestsOverflow(const std::vector<PodSetInfo>& pod_sets);

}  // namespace kuota::engine
