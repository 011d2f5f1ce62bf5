// Engine: Kuota's scheduling core, pure and deterministic. Drivers feed it
// objects (ResourceFlavor, ClusterQueue, Cohort, LocalQueue, Workload,
// priority classes, Namespace, AdmissionCheck, Configuration) and workload
// lifecycle events, and run scheduling cycles; each cycle returns decisions
// (admissions, preemptions, pending reasons). Knows nothing of HTTP, storage,
// processes or threads. Not thread-safe: drivers serialize calls into it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "base/clock.h"
#include "base/status.h"
#include "engine/engine_state.h"
#include "engine/scheduler.h"

namespace kuota::engine {

class Engine {
 public:
  // `clock` must outlive the engine.
  Engine(const Clock& clock, api::Configuration config = {});
  ~Engine();

  // Adds or replaces an object. A Configuration replaces the engine's
  // configuration. Fails only for kinds the engine does not take.
  Status Apply(const api::Object& object);
  // Removes an object by kind ("ClusterQueue", "Workload", ...), namespace
  // (empty for cluster-scoped kinds) and name. NotFound when absent.
  Status Delete(const std::string& kind, const std::string& ns, const std::string& name);

  // Marks a workload finished: it releases its quota at once. The Finished
  // condition carries `reason` and `message` (an elastic job's slice is
  // finished as WorkloadSliceReplaced or OutOfSync, workload_slice.h).
  Status FinishWorkload(const std::string& key, const std::string& reason = "Succeeded",
                        const std::string& message = "The workload finished");
  // Evicts a workload that holds quota (e.g. a PodsReady timeout) and requeues
  // it, with backoff when `backoff` is set.
  Status EvictWorkload(const std::string& key, const std::string& reason,
                       const std::string& message, bool backoff);
  // Records whether a workload's pods are all ready (the PodsReady condition
  // that waitForPodsReady watches). NotFound when absent.
  Status SetPodsReady(const std::string& key, bool ready, const std::string& reason,
                      const std::string& message);
  // Records an admission check's state on a workload.
  Status SetAdmissionCheckState(const std::string& key, const std::string& check,
                                const std::string& state, const std::string& message);

  // Runs one scheduling cycle.
  CycleResult RunCycle();
  // True when some ClusterQueue has a workload ready to offer.
  bool HasPendingHeads();

  // Queries.
  const WorkloadInfo* FindWorkload(const std::string& key);
  std::vector<const WorkloadInfo*> Workloads();
  // The keys of the workloads the engine deactivated since the last call
  // (a requeuing limit reached, a Rejected admission check): their
  // spec.active is false in the engine, and the caller persists it.
  std::vector<std::string> TakeDeactivated();
  const QuotaTree& tree();
  const EngineState& state();
  // Why `key` is not admitted, as a sentence for users; empty if admitted.
  std::string PendingMessage(const std::string& key);

 private:
  void Refresh();
  // Applies stopPolicy / inactivity to workloads that hold quota.
  void StopHeldWorkloads();
  // Same for one workload; true when it lost its quota (then it is pending).
  bool StopHeldWorkload(WorkloadInfo* wl);
  void AddWorkload(const api::Workload& wl);
  void RemoveWorkload(const std::string& key);

  std::unique_ptr<EngineState> state_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace kuota::engine
