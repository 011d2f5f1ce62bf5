// PodGroup: the pods that make one Workload in Kueue's plain-Pod integration:
// either one single pod, or the pods of one namespace labelled with the same
// kueue.x-k8s.io/pod-group-name, which are admitted all or nothing once the
// group's kueue.x-k8s.io/pod-group-total-count pods exist. Same-shape pods
// (the same role hash) form one pod set. Kueue does not recreate pods: after
// a preemption deletes them, replacement pods with the group's label join it.
// A serving group (a StatefulSet's pods) never finishes, and with fast
// admission its Workload is made once its first pod exists.
// A value built from the pods as stored; immutable; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "jobs/job_kind.h"

namespace kuota::jobs {

class PodGroup {
 public:
  // The Workload key ("<ns>/<workload name>") `pod` belongs to: the one its
  // kueue.x-k8s.io/prebuilt-workload-name label names, else its group's
  // name, or "pod-<name>-<hash>" for a single pod; "" when it has no uid yet.
  static std::string WorkloadKeyOf(const Json& pod);

  // `pods` all belong to workload `key`, in any order.
  PodGroup(std::string key, std::vector<Json> pods);

  const std::string& key() const { return key_; }
  bool single() const { return single_; }
  const std::vector<Json>& pods() const { return pods_; }
  // The group's size: 1 for a single pod, else the total-count annotation
  // (the largest one its pods give; 0 when none is valid).
  int64_t TotalCount() const;
  // Pods that count towards the group: not failed and not being deleted.
  std::vector<const Json*> ActivePods() const;
  // Whether all the group's pods exist, so that its Workload can be made;
  // with fast admission, whether one does.
  bool Complete() const;
  // Kueue's kueue.x-k8s.io/pod-group-fast-admission: "true": the Workload is
  // made (for TotalCount pods) and admitted before every pod exists.
  bool FastAdmission() const;
  // Kueue's kueue.x-k8s.io/pod-group-serving: "true": the group serves until
  // its pods are deleted; it never finishes.
  bool Serving() const;

  // The Workload: pod sets by role (one "main" pod set for a single pod),
  // from the active pods; Invalid when the group is not complete.
  Result<Json> BuildWorkload() const;
  // The name of the pod set `pod` belongs to.
  std::string PodSetOf(const Json& pod) const;

  // Kueue's rules for the end: a single pod ends with its pod; a group when
  // TotalCount pods succeeded, or when all its pods ended and one of them says
  // kueue.x-k8s.io/retriable-in-group: "false". `succeeded` tells how.
  bool Finished(bool* succeeded) const;
  // Every active pod is running or succeeded (Kueue's PodsReady).
  bool PodsReady() const;

 private:
  std::string key_;
  std::vector<Json> pods_;
  bool single_ = true;
};

}  // namespace kuota::jobs
