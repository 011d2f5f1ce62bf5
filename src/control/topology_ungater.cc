#include "control/topology_ungater.h"

#include <cstdio>
#include <vector>

#include "server/json_fields.h"

namespace kuota::control {
namespace {

constexpr const char* kPodsKey = "pods";

}  // namespace

void TopologyUngater::Observe(const nlohmann::json& pod, bool deleted) {
  const std::string ns = server::StringField(pod, {"metadata", "namespace"});
  const std::string name = server::StringField(pod, {"metadata", "name"});
  const std::string pod_key = ns + "/" + name;
  std::optional<TopologyPod> read = deleted ? std::nullopt : ReadTopologyPod(pod);
  // Forget where it was (its annotation may have changed or gone).
  if (auto it = workload_of_.find(pod_key); it != workload_of_.end()) {
    const std::string old = it->second;
    auto set = pods_.find(old);
    if (set != pods_.end()) {
      set->second.erase(name);
      if (set->second.empty()) pods_.erase(set);
    }
    workload_of_.erase(it);
    // A topology-placed pod gone frees its domain for a replacement.
    if (IsTopologyPod(pod)) touched_.insert(old);
  }
  if (read && read->gated) {
    gated_[pod_key] = pod;
  } else {
    gated_.erase(pod_key);
  }
  if (!read) return;
  const std::string wl_key = ns + "/" + read->workload;
  workload_of_[pod_key] = wl_key;
  pods_[wl_key][name] = std::move(*read);
  if (IsTopologyPod(pod)) touched_.insert(wl_key);
}

void TopologyUngater::Clear() {
  pods_.clear();
  workload_of_.clear();
  gated_.clear();
  touched_.clear();
}

int TopologyUngater::Reconcile(const AdmittedWorkload& admitted, int max_writes) {
  int ungated = 0, writes = 0;
  std::set<std::string> keys;
  keys.swap(touched_);
  for (auto next = keys.begin(); next != keys.end(); ++next) {
    if (writes >= max_writes) {
      touched_.insert(next, keys.end());  // the rest next time
      break;
    }
    const std::string& key = *next;
    const api::Workload* wl = admitted(key);
    if (wl == nullptr) continue;
    auto set = pods_.find(key);
    if (set == pods_.end()) continue;
    std::vector<TopologyPod> pods;
    pods.reserve(set->second.size());
    for (const auto& [name, p] : set->second) pods.push_back(p);
    Result<std::vector<TopologyUngate>> plan = PlanTopologyUngates(*wl, pods);
    if (!plan.ok()) {
      std::fprintf(stderr, "kuotad: ungating the pods of workload %s: %s\n", key.c_str(),
                   plan.status().message().c_str());
      continue;
    }
    const std::string ns = key.substr(0, key.find('/'));
    for (const TopologyUngate& u : *plan) {
      if (writes >= max_writes) {
        touched_.insert(key);  // planned again from what was written
        break;
      }
      ++writes;
      if (Ungate(ns, u)) ++ungated;
    }
  }
  return ungated;
}

bool TopologyUngater::Ungate(const std::string& ns, const TopologyUngate& u) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    // First over the pod as last seen; after a conflict, as read now.
    auto seen = attempt == 0 ? gated_.find(ns + "/" + u.name) : gated_.end();
    Result<nlohmann::json> pod = seen != gated_.end() ? Result<nlohmann::json>(seen->second)
                                                      : store_.Get(kPodsKey, ns, u.name);
    if (!pod.ok()) {
      if (pod.status().code() != StatusCode::kNotFound) {
        std::fprintf(stderr, "kuotad: ungating pod %s/%s: %s\n", ns.c_str(), u.name.c_str(),
                     pod.status().message().c_str());
      }
      return false;
    }
    nlohmann::json& spec = (*pod)["spec"];
    if (!spec.is_object()) return false;
    nlohmann::json& gates = spec["schedulingGates"];
    nlohmann::json kept = nlohmann::json::array();
    bool had = false;
    if (gates.is_array()) {
      for (const auto& g : gates) {
        if (g.is_object() && g.value("name", "") == kTopologySchedulingGate) {
          had = true;
        } else {
          kept.push_back(g);
        }
      }
    }
    if (!had) {  // ungated meanwhile: what it says now is what counts
      Observe(*pod, false);
      return false;
    }
    if (kept.empty()) {
      spec.erase("schedulingGates");
    } else {
      gates = std::move(kept);
    }
    nlohmann::json& selector = spec["nodeSelector"];
    if (!selector.is_object()) selector = nlohmann::json::object();
    for (const auto& [k, v] : u.node_selector) selector[k] = v;
    Result<nlohmann::json> stored = store_.Update(kPodsKey, *pod);
    if (stored.ok()) {
      // Known at once, so that the next plan counts it as ungated.
      Observe(*stored, false);
      touched_.erase(
          ns + "/" +
          server::StringField(*stored, {"metadata", "annotations", kWorkloadAnnotation}));
      return true;
    }
    if (stored.status().code() == StatusCode::kNotFound) return false;
    if (stored.status().code() != StatusCode::kConflict) {
      std::fprintf(stderr, "kuotad: ungating pod %s/%s: %s\n", ns.c_str(), u.name.c_str(),
                   stored.status().message().c_str());
      return false;
    }
  }
  return false;
}

}  // namespace kuota::control
