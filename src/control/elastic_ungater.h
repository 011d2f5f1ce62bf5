// ElasticUngater: Kueue's ElasticJobUngater in the controller. An elastic
// Job's pod template carries the kueue.x-k8s.io/elastic-job scheduling gate
// (Kueue's Job webhook puts it there), so every pod it makes waits; this
// keeps those pods by Job and ungates as many as the Job's admitted slice
// grants: pods made by a scale-up stay gated until the slice that counts
// them is admitted, and the pods already running are never touched. Writes
// go over the pod as last seen (read again on a conflict). Used on the
// controller's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "store/object_store.h"

namespace kuota::control {

// Kueue's kueue.x-k8s.io/elastic-job scheduling gate.
inline constexpr const char* kElasticJobSchedulingGate = "kueue.x-k8s.io/elastic-job";

class ElasticUngater {
 public:
  // `store` must outlive the ungater.
  explicit ElasticUngater(store::ObjectStore& store) : store_(store) {}

  // A pod was created or changed (`deleted` false) or is gone. Pods a Job
  // owns are kept (a Job with gated pods is looked at again).
  void Observe(const nlohmann::json& pod, bool deleted);
  // Forgets every pod (before a resynchronization lists them again).
  void Clear();
  // The Job `job_uid`'s admitted count may have changed.
  void Touch(const std::string& job_uid) { touched_.insert(job_uid); }

  // How many pods the Job may run: the count of its admitted slice's pod
  // set; nullopt while no slice of it is admitted (its pods stay gated).
  using AdmittedCount = std::function<std::optional<int32_t>(const std::string& job_uid)>;
  // Ungates the touched Jobs' gated pods, oldest name first, until the
  // pods running ungated (not ended) reach the admitted count; returns how
  // many were ungated. Failures are logged; the Job is looked at again on
  // its pods' next change.
  int Reconcile(const AdmittedCount& admitted);

 private:
  struct Seen {
    bool gated = false;
    bool ended = false;    // Succeeded or Failed
    nlohmann::json pod{};  // as last seen while gated
  };
  bool Ungate(const std::string& ns, const std::string& name, const nlohmann::json& seen);

  store::ObjectStore& store_;
  std::map<std::string, std::map<std::string, Seen>> pods_;  // job uid -> "ns/name" -> seen
  std::map<std::string, std::string> job_of_;                // "ns/name" -> job uid
  std::set<std::string> touched_;
};

}  // namespace kuota::control
