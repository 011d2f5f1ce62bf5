// PodGroupController: the pod side of Kueue's plain-Pod integration in
// kuotad's controller. It keeps the managed pods (labelled
// kueue.x-k8s.io/managed by the admission hook) by the Workload they make
// (jobs::PodGroup), and starts or stops them for the Controller: an admitted
// workload's gated pods lose the kueue.x-k8s.io/admission gate and get the
// flavors' node labels and tolerations; a workload that lost its admission
// has its started pods deleted (Kueue's docs: "the Pod will be terminated and
// deleted"); the pod runner then terminates their processes. Used only from
// the controller's thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "jobs/job_kind.h"
#include "jobs/pod_group.h"
#include "store/object_store.h"

namespace kuota::control {

class PodGroupController {
 public:
  // `store` must outlive the controller.
  explicit PodGroupController(store::ObjectStore& store) : store_(store) {}

  // Records a pod's new state (`deleted`: it is gone). Returns the key of the
  // Workload it belongs to, or "" when it is not a managed pod.
  std::string Observe(const nlohmann::json& pod, bool deleted);
  // Whether workload `key` ("ns/name") is made by managed pods.
  bool Owns(const std::string& key) const;
  // The group of workload `key` (no pods when none is known).
  jobs::PodGroup Group(const std::string& key) const;
  // Forgets every pod (before a fresh list).
  void Clear() { pods_.clear(); }

  // Removes the admission gate from the group's gated active pods, each with
  // the placement of its pod set. Returns the pods it updated.
  Result<std::vector<nlohmann::json>> Start(const std::string& key,
                                            const std::vector<jobs::PodSetPlacement>& placement);
  // Deletes the group's started pods that have not ended. Returns the pods
  // it deleted.
  Result<std::vector<nlohmann::json>> Stop(const std::string& key);

 private:
  store::ObjectStore& store_;
  // workload key -> pod name -> pod as last seen
  std::map<std::string, std::map<std::string, nlohmann::json>> pods_;
  std::map<std::string, std::string> pod_workload_;  // "ns/pod" -> workload key
};

}  // namespace kuota::control
