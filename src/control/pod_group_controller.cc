#include "control/pod_group_controller.h"

#include "control/meta_string.h"
#include "jobs/pod_kind.h"

namespace kuota::control {

using Json = nlohmann::json;

std::string PodGroupController::Observe(const Json& pod, bool deleted) {
  const std::string pod_key = MetaString(pod, "namespace") + "/" + MetaString(pod, "name");
  auto known = pod_workload_.find(pod_key);
  if (known != pod_workload_.end()) {
    // A pod's group label cannot change its workload once seen; a new pod
    // with the same name may belong elsewhere.
    const std::string key = known->second;
    auto& members = pods_[key];
    auto m = members.find(MetaString(pod, "name"));
    if (deleted || m == members.end() || MetaString(m->second, "uid") != MetaString(pod, "uid")) {
      members.erase(MetaString(pod, "name"));
      pod_workload_.erase(known);
      if (members.empty()) pods_.erase(key);
      if (deleted) return key;
    } else {
      m->second = pod;
      return key;
    }
  }
  if (deleted || !jobs::IsManagedPod(pod)) return "";
  const std::string key = jobs::PodGroup::WorkloadKeyOf(pod);
  if (key.empty()) return "";
  pods_[key][MetaString(pod, "name")] = pod;
  pod_workload_[pod_key] = key;
  return key;
}

bool PodGroupController::Owns(const std::string& key) const { return pods_.count(key) > 0; }

jobs::PodGroup PodGroupController::Group(const std::string& key) const {
  std::vector<Json> pods;
  if (auto it = pods_.find(key); it != pods_.end()) {
    for (const auto& [name, pod] : it->second) pods.push_back(pod);
  }
  return jobs::PodGroup(key, std::move(pods));
}

Result<std::vector<Json>> PodGroupController::Start(
    const std::string& key, const std::vector<jobs::PodSetPlacement>& placement) {
  const jobs::PodGroup group = Group(key);
  std::vector<Json> updated;
  for (const Json* pod : group.ActivePods()) {
    if (!jobs::PodIsGated(*pod)) continue;
    jobs::PodSetPlacement p;
    const std::string set = group.PodSetOf(*pod);
    for (const auto& candidate : placement) {
      if (candidate.name == set) p = candidate;
    }
    Json current = *pod;
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto stored = store_.Update("pods", jobs::UngatePod(current, p));
      if (stored.ok()) {
        updated.push_back(*stored);
        Observe(*stored, false);
        break;
      }
      if (stored.status().code() != StatusCode::kConflict) return stored.status();
      auto fresh = store_.Get("pods", MetaString(*pod, "namespace"), MetaString(*pod, "name"));
      if (!fresh.ok()) return fresh.status();
      if (!jobs::PodIsGated(*fresh)) break;
      current = *fresh;
    }
  }
  return updated;
}

Result<std::vector<Json>> PodGroupController::Stop(const std::string& key) {
  const jobs::PodGroup group = Group(key);
  std::vector<Json> deleted;
  for (const auto& pod : group.pods()) {
    if (jobs::PodIsGated(pod) || jobs::PodIsTerminal(pod) || jobs::PodIsDeleting(pod)) continue;
    store::DeleteOptions opts;
    opts.precondition_uid = MetaString(pod, "uid");
    auto gone = store_.Delete("pods", MetaString(pod, "namespace"), MetaString(pod, "name"), opts);
    if (!gone.ok() && gone.status().code() != StatusCode::kNotFound) return gone.status();
    deleted.push_back(pod);
  }
  return deleted;
}

}  // namespace kuota::control
