#include "control/elastic_ungater.h"

#include <cstdio>
#include <vector>

#include "server/json_fields.h"

namespace kuota::control {
namespace {

constexpr const char* kElasticPodsKey = "pods";

bool HasElasticGate(const nlohmann::json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto gates = spec->find("schedulingGates");
  if (gates == spec->end() || !gates->is_array()) return false;
  for (const auto& g : *gates) {
    if (g.is_object() && g.value("name", "") == kElasticJobSchedulingGate) return true;
  }
  return false;
}

// The uid of the Job that controls `pod`; empty when none does.
std::string OwningJobUid(const nlohmann::json& pod) {
  auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return "";
  auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return "";
  for (const auto& ref : *refs) {
    if (ref.is_object() && ref.value("controller", false) && ref.value("kind", "") == "Job") {
      return ref.value("uid", "");
    }
  }
  return "";
}

}  // namespace

void ElasticUngater::Observe(const nlohmann::json& pod, bool deleted) {
  const std::string key = server::StringField(pod, {"metadata", "namespace"}) + "/" +
                          server::StringField(pod, {"metadata", "name"});
  auto known = job_of_.find(key);
  if (deleted) {
    if (known == job_of_.end()) return;
    auto set = pods_.find(known->second);
    if (set != pods_.end()) {
      set->second.erase(key);
      if (set->second.empty()) pods_.erase(set);
    }
    touched_.insert(known->second);
    job_of_.erase(known);
    return;
  }
  // Every pod a Job owns is kept, gated or not: after a restart the pods
  // already ungated count against the admitted count as well.
  const std::string job = known != job_of_.end() ? known->second : OwningJobUid(pod);
  if (job.empty()) return;
  job_of_[key] = job;
  Seen& seen = pods_[job][key];
  const bool gated = HasElasticGate(pod);
  // A Job with no gated pod has nothing to ungate: it is not looked at.
  if (gated || seen.gated) touched_.insert(job);
  seen.gated = gated;
  const std::string phase = server::StringField(pod, {"status", "phase"});
  seen.ended = phase == "Succeeded" || phase == "Failed";
  seen.pod = gated ? pod : nlohmann::json();
}

void ElasticUngater::Clear() {
  pods_.clear();
  job_of_.clear();
  touched_.clear();
}

int ElasticUngater::Reconcile(const AdmittedCount& admitted) {
  int ungated = 0;
  std::set<std::string> jobs;
  jobs.swap(touched_);
  for (const std::string& job : jobs) {
    auto set = pods_.find(job);
    if (set == pods_.end()) continue;
    const std::optional<int32_t> count = admitted(job);
    if (!count) continue;
    int64_t running = 0;
    std::vector<std::pair<std::string, nlohmann::json>> waiting;  // by "ns/name", ordered
    for (const auto& [key, seen] : set->second) {
      if (seen.ended) continue;
      if (seen.gated) {
        waiting.emplace_back(key, seen.pod);
      } else {
        ++running;
      }
    }
    for (const auto& [key, pod] : waiting) {
      if (running >= *count) break;
      const size_t slash = key.find('/');
      if (Ungate(key.substr(0, slash), key.substr(slash + 1), pod)) {
        ++running;
        ++ungated;
      }
    }
  }
  return ungated;
}

bool ElasticUngater::Ungate(const std::string& ns, const std::string& name,
                            const nlohmann::json& seen) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    // First over the pod as last seen; after a conflict, as read now.
    Result<nlohmann::json> pod = attempt == 0 && seen.is_object()
                                     ? Result<nlohmann::json>(seen)
                                     : store_.Get(kElasticPodsKey, ns, name);
    if (!pod.ok()) {
      if (pod.status().code() != StatusCode::kNotFound) {
        std::fprintf(stderr, "kuotad: ungating elastic pod %s/%s: %s\n", ns.c_str(), name.c_str(),
                     pod.status().message().c_str());
      }
      return false;
    }
    if (!HasElasticGate(*pod)) {  // ungated meanwhile: what it says now counts
      Observe(*pod, false);
      return false;
    }
    nlohmann::json& spec = (*pod)["spec"];
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& g : spec["schedulingGates"]) {
      if (!g.is_object() || g.value("name", "") != kElasticJobSchedulingGate) kept.push_back(g);
    }
    if (kept.empty()) {
      spec.erase("schedulingGates");
    } else {
      spec["schedulingGates"] = std::move(kept);
    }
    Result<nlohmann::json> stored = store_.Update(kElasticPodsKey, *pod);
    if (stored.ok()) {
      Observe(*stored, false);  // known at once as running ungated
      touched_.erase(OwningJobUid(*stored));
      return true;
    }
    if (stored.status().code() == StatusCode::kNotFound) return false;
    if (stored.status().code() != StatusCode::kConflict) {
      std::fprintf(stderr, "kuotad: ungating elastic pod %s/%s: %s\n", ns.c_str(), name.c_str(),
                   stored.status().message().c_str());
      return false;
    }
  }
  return false;
}

}  // namespace kuota::control
