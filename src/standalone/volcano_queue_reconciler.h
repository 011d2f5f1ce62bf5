// VolcanoQueueReconciler: kuotad's loop that keeps Kueue's quota tree in step
// with Volcano Queues (scheduling.volcano.sh/v1beta1). For each Queue it
// maintains the ClusterQueue "volcano-<name>" (MapVolcanoQueue) and the
// LocalQueue "volcano-<name>" in every namespace, labelled
// kuota.dev/volcano-queue=<name>; the ResourceFlavor "volcano" is created
// when absent; the Queue's status.state reports the state it asked for; what
// it made is deleted when the Queue goes. Objects of those names that it did
// not make are left alone (and logged). The Queue "default" is created when
// absent once a Volcano Job exists, as Volcano's installation would have
// made it. A StoreLoop: Start/Stop/WaitIdle are thread-safe.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "control/pod_resources.h"
#include "standalone/store_loop.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct VolcanoQueueReconcilerOptions {
  // The nominal quota of a resource a Queue does not name: this machine's
  // capacity (MachineAmounts), as kuotad's runtime reports it.
  control::ResourceAmounts machine;
  // Create the Queue "default" (weight 1, reclaimable) when absent, once a
  // Volcano Job exists.
  bool create_default_queue = true;
  // How long the loop waits for events between checks of Stop().
  std::chrono::milliseconds idle_tick{200};
};

class VolcanoQueueReconciler : public StoreLoop {
 public:
  // `store` and `clock` must outlive the reconciler.
  VolcanoQueueReconciler(store::ObjectStore& store, const Clock& clock,
                         VolcanoQueueReconcilerOptions options);
  ~VolcanoQueueReconciler() override;

  // One full pass: every Queue's ClusterQueue, LocalQueues and status, and
  // the removal of what a deleted Queue left. Called by the loop; public for
  // tests (not while the loop runs).
  Status ReconcileAll();

 private:
  // StoreLoop: the default Queue when a Volcano Job exists, then one full
  // pass (so Start fails when the first pass does); afterwards every
  // relevant change marks the one key, reconciled by a full pass.
  Status List() override;
  void Handle(const store::WatchEvent& ev) override;
  bool Reconcile(const std::string& key) override;
  // Creates the default Queue unless it exists (or was made already).
  Status EnsureDefaultQueue();
  // Whether any Volcano Job is stored.
  bool AnyVolcanoJob();
  // Creates `desired`, or updates the stored object when its labels or spec
  // differ; skips (and logs once) an object of that name it did not make.
  Status Apply(const std::string& resource, const nlohmann::json& desired);

  store::ObjectStore& store_;
  const Clock& clock_;
  VolcanoQueueReconcilerOptions options_;
  std::set<std::string> foreign_logged_;  // loop thread only
  bool default_ensured_ = false;          // loop thread only, after Start
};

}  // namespace kuota::standalone
