// VolcanoQueueReconciler: kuotad's loop that keeps Kueue's quota tree in step
// with Volcano Queues (scheduling.volcano.sh/v1beta1). For each Queue it
// maintains the ClusterQueue "volcano-<name>" (MapVolcanoQueue) and the
// LocalQueue "volcano-<name>" in every namespace, labelled
// kuota.dev/volcano-queue=<name>; the ResourceFlavor "volcano" is created
// when absent; the Queue's status.state reports the state it asked for; what
// it made is deleted when the Queue goes. Objects of those names that it did
// not make are left alone (and logged). At start it creates the Queue
// "default" when absent, as Volcano's installation does. Owns one thread;
// Start/Stop are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "base/status.h"
#include "control/pod_resources.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct VolcanoQueueReconcilerOptions {
  // The nominal quota of a resource a Queue does not name: this machine's
  // capacity (MachineAmounts), as kuotad's runtime reports it.
  control::ResourceAmounts machine;
  // Create the Queue "default" (weight 1, reclaimable) at start when absent.
  bool create_default_queue = true;
  // How long the loop waits for events between checks of Stop().
  std::chrono::milliseconds idle_tick{200};
};

class VolcanoQueueReconciler {
 public:
  // `store` must outlive the reconciler.
  VolcanoQueueReconciler(store::ObjectStore& store, VolcanoQueueReconcilerOptions options);
  ~VolcanoQueueReconciler();
  VolcanoQueueReconciler(const VolcanoQueueReconciler&) = delete;
  VolcanoQueueReconciler& operator=(const VolcanoQueueReconciler&) = delete;

  // Reconciles once and starts the loop thread. The default Queue (when
  // asked) is created with the first Volcano Job, as Volcano's install would
  // have made it, so a machine that runs no Volcano Job shows no Volcano
  // queues.
  Status Start();
  // Ends the loop and joins its thread. Idempotent.
  void Stop();
  // One full pass: every Queue's ClusterQueue, LocalQueues and status, and
  // the removal of what a deleted Queue left. Called by the loop; public for
  // tests (not while the loop runs).
  Status ReconcileAll();

 private:
  void Run();
  Status Watch();
  // Creates the default Queue unless it exists (or was made already).
  Status EnsureDefaultQueue();
  // Whether any Volcano Job is stored.
  bool AnyVolcanoJob();
  // Creates `desired`, or updates the stored object when its labels or spec
  // differ; skips (and logs once) an object of that name it did not make.
  Status Apply(const std::string& resource, const nlohmann::json& desired);

  store::ObjectStore& store_;
  VolcanoQueueReconcilerOptions options_;
  std::unique_ptr<store::Watcher> watcher_;  // used only by the loop thread once started
  std::set<std::string> foreign_logged_;     // loop thread only
  bool default_ensured_ = false;             // loop thread only, after Start
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace kuota::standalone
