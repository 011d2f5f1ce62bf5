// TopologyUngater: Kueue's TopologyUngater in kuotad's controller. Keeps the
// pods that name a Workload (kueue.x-k8s.io/workload) by Workload; a change
// to a topology-placed pod, or a Workload's admission, marks the Workload, and
// Reconcile ungates the marked Workloads' pods as topology_ungating.h plans it:
// each pod loses the kueue.x-k8s.io/topology scheduling gate and gets its
// domain's nodeSelector, written over the pod as last seen (read again and
// retried on a conflict). Used on the controller's thread only.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "api/workload.h"
#include "control/topology_ungating.h"
#include "store/object_store.h"

namespace kuota::control {

class TopologyUngater {
 public:
  // `store` must outlive the ungater.
  explicit TopologyUngater(store::ObjectStore& store) : store_(store) {}

  // A pod was created or changed (`deleted` false) or is gone.
  void Observe(const nlohmann::json& pod, bool deleted);
  // Workload "namespace/name" is to be looked at again (it was admitted).
  void Touch(const std::string& workload_key) { touched_.insert(workload_key); }
  void Clear();

  // The admitted Workload `key` ("namespace/name"), or null when it is not
  // admitted (its pods stay gated).
  using AdmittedWorkload = std::function<const api::Workload*(const std::string& key)>;
  // Ungates the pods of the touched Workloads, at most `max_writes` pods a
  // call (the rest stay touched for the next call, so that the controller's
  // loop is not held up by a large gang); returns how many were ungated.
  // Failures are logged; the Workload is looked at again on its pods' next
  // change.
  int Reconcile(const AdmittedWorkload& admitted, int max_writes = 200);
  bool pending() const { return !touched_.empty(); }

  size_t tracked_pods() const { return workload_of_.size(); }

 private:
  // Ungates pod `ns/name` with `node_selector`: true when written.
  bool Ungate(const std::string& ns, const TopologyUngate& u);

  store::ObjectStore& store_;
  std::map<std::string, std::map<std::string, TopologyPod>> pods_;  // workload key -> by name
  std::map<std::string, std::string> workload_of_;                  // pod key -> workload key
  std::map<std::string, nlohmann::json> gated_;  // pod key -> the gated pod as last seen
  std::set<std::string> touched_;
};

}  // namespace kuota::control
