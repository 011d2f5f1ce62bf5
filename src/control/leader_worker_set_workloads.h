// LeaderWorkerSetWorkloads: Kueue's LeaderWorkerSet controller in the
// Controller (both drivers): one prebuilt Workload per group of a queued
// LeaderWorkerSet (jobs::LeaderWorkerSetKind::GroupWorkload), created for
// groups 0..replicas-1, deleted for groups beyond, the queue name kept in
// step; and the set's pods labelled with their group's Workload once LWS
// has numbered them (setDefault), after which the pod group machinery
// (PodGroupController) admits, starts and stops them. Stateless apart from
// the store it writes to; used only from the controller's thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "jobs/leader_worker_set.h"
#include "store/object_store.h"

namespace kuota::control {

class LeaderWorkerSetWorkloads {
 public:
  // `store` must outlive this.
  explicit LeaderWorkerSetWorkloads(store::ObjectStore& store) : store_(store) {}

  struct Changes {
    std::vector<nlohmann::json> created;  // Workloads as stored
    std::vector<std::string> deleted;     // their "ns/name"
  };
  // Makes the set's group Workloads match spec.replicas (each new one with
  // `finalizer` when not empty); none for a MultiKueue worker's copy of a
  // set, whose pods join the copies of the manager's group Workloads. A failed write is returned;
  // what was done before it stays done.
  Result<Changes> Reconcile(const jobs::LeaderWorkerSetKind& kind, const nlohmann::json& lws,
                            const std::string& finalizer);
  // Deletes every Workload of the set `lws` (it is gone: Kubernetes'
  // garbage collector does this on a cluster).
  void DeleteAll(const nlohmann::json& lws);
  // Kueue's setDefault on `pod`, a pod LWS made from templates Kueue's
  // webhook marked: the pod as stored after labelling it for its group's
  // Workload, or nullopt when there is nothing to do (not such a pod,
  // already labelled, its set is gone). A conflict is left to the pod's next
  // event.
  Result<std::optional<nlohmann::json>> DefaultPod(const nlohmann::json& pod);

 private:
  Result<std::vector<nlohmann::json>> WorkloadsOf(const nlohmann::json& lws);

  store::ObjectStore& store_;
};

}  // namespace kuota::control
