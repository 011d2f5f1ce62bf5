// Scheduler: one scheduling cycle in Kueue's numbered steps: take one head per
// active ClusterQueue, nominate (namespace check, flavor assignment, victims,
// partial admission), order the entries (borrowing, priority, FIFO; or the
// fair-sharing tournament), then admit, preempt or leave pending with the
// quota granted earlier in the cycle counted; finally requeue and carry out
// evictions. Single-threaded; operates on an EngineState it does not own.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/assignment.h"
#include "engine/engine_state.h"
#include "engine/flavor_assigner.h"
#include "engine/preemptor.h"

namespace kuota::engine {

// The flavors and counts admitted are the workload's (WorkloadInfo::admission),
// not copied here.
struct AdmissionDecision {
  std::string workload;
  std::string cluster_queue;
  bool admitted = true;  // false: quota reserved, waiting for admission checks
};

struct PreemptionDecision {
  std::string workload;
  std::string preemptor;
  std::string reason;   // InClusterQueue, InCohortReclamation, ...
  std::string message;  // as written on the victim's Preempted condition
};

// A head left pending. It refers to the engine's record of the workload
// (no copies per head): read it before the workload is removed from the
// engine; reason and message are the workload's current ones.
struct PendingDecision {
  const WorkloadInfo* info = nullptr;  // borrowed
  const std::string& workload() const { return info->key; }
  const std::string& reason() const { return info->pending_reason; }
  const std::string& message() const { return info->pending_message(); }
};

struct CycleResult {
  int heads = 0;
  std::vector<AdmissionDecision> admitted;
  std::vector<PreemptionDecision> preempted;
  std::vector<PendingDecision> pending;  // heads left pending, with why
  // Slices of elastic jobs finished (WorkloadSliceReplaced) because their
  // replacement was admitted in this cycle (workload_slice.h).
  std::vector<std::string> replaced;
};

class Scheduler {
 public:
  explicit Scheduler(EngineState& state);
  ~Scheduler();  // out of line: Entry is complete only in scheduler.cc
  CycleResult RunCycle();

 private:
  struct Entry;
  // The ClusterQueue's next head: by its LocalQueue's usage first when the
  // ClusterQueue uses admission fair sharing.
  WorkloadInfo* PopHead(ClusterQueueNode& cq);
  // Folds admitted usage into the LocalQueues' histories that are due.
  void SampleAdmissionFairSharing(Time now);
  void Nominate(Entry& e);
  // Flavors, preemption targets and partial admission for a nominated head.
  void AssignAndTarget(Entry& e);
  // Victims for `a` (topology-checked when `a` places pod sets by topology).
  std::vector<PreemptionTarget> Targets(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                        const Assignment& a);
  // Kueue's updateAssignmentForTAS: a Preempt's topology placement, with its
  // victims gone (or, without victims, on empty nodes: what it reserves).
  void PlaceForPreemption(Entry& e);
  void Process(Entry& e, CycleResult& out);
  // Reservation and backfill (backfill.h) for a head of a ClusterQueue that
  // asks for it: a `blocked` head takes the reservation when it is the first
  // blocked; any other may go on only as the reservation allows (false:
  // it waits, its message says why).
  bool Backfill(Entry& e, bool blocked);
  // Appends the reservation's expected start to a blocked holder's message.
  void NoteReservation(Entry& e);
  bool FitsAfterRemovals(const ClusterQueueNode& cq, const FrUsage& usage,
                         const std::vector<WorkloadInfo*>& extra,
                         const Assignment* topology = nullptr) const;
  // Holds `a`'s topology usage on the cells until the cycle ends.
  void ReserveTopology(const Assignment& a);
  void Admit(Entry& e, CycleResult& out);
  void Requeue(Entry& e);
  void Evict(WorkloadInfo* victim, const PreemptionDecision& d);
  std::vector<Entry*> FairSharingOrder(std::vector<Entry>& entries);

  EngineState& s_;
  Preemptor preemptor_;
  TopologyAssigner topology_;
  FlavorAssigner assigner_;
  // The cycle's one instant: every admission, requeue and eviction it
  // decides carries it, so no observer sees a workload admitted before the
  // victims whose capacity it took were evicted (they are evicted at the
  // cycle's end; a fit check counts every victim chosen so far as gone).
  Time cycle_now_{};
  std::vector<WorkloadInfo*> preempted_;  // victims chosen this cycle
  std::set<Entry*> processed_;
  // Workloads that took capacity this cycle, with the root of their tree.
  std::vector<std::pair<const WorkloadInfo*, const QuotaNode*>> taken_by_;
  // Usage added to ClusterQueues for this cycle only; undone at cycle end.
  struct CycleUsage {
    ClusterQueueNode* cq;
    FrId fr;
    int64_t value;
  };
  std::vector<CycleUsage> cycle_usage_;
  std::vector<TasUse> cycle_tas_;  // topology usage held for this cycle only
  std::vector<Entry> entries_;     // this cycle's heads; kept for its capacity
};

}  // namespace kuota::engine
