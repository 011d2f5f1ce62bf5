#include "standalone/deployment_controller.h"

#include <algorithm>
#include <functional>
#include <set>

#include "jobs/job_kind.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

constexpr const char* kPodTemplateHashLabel = "pod-template-hash";
constexpr const char* kDeploySafeAlphabet = "bcdfghjklmnpqrstvwxz2456789";

std::string DeployMeta(const Json& o, const char* field) {
  const Json m = o.value("metadata", Json::object());
  if (!m.is_object()) return "";
  const Json v = m.value(field, Json());
  return v.is_string() ? v.get<std::string>() : "";
}

std::string DeployLabel(const Json& o, const char* key) {
  const Json m = o.value("metadata", Json::object());
  if (!m.is_object()) return "";
  const Json l = m.value("labels", Json::object());
  if (!l.is_object()) return "";
  const Json v = l.value(key, Json());
  return v.is_string() ? v.get<std::string>() : "";
}

std::string SafeChars(uint64_t h, size_t n) {
  std::string out;
  const size_t base = std::char_traits<char>::length(kDeploySafeAlphabet);
  for (size_t i = 0; i < n; ++i) {
    out += kDeploySafeAlphabet[h % base];
    h /= base;
  }
  return out;
}

bool IsGated(const Json& pod) {
  const Json spec = pod.value("spec", Json::object());
  const Json gates = spec.is_object() ? spec.value("schedulingGates", Json::array()) : Json();
  return gates.is_array() && !gates.empty();
}

// The ceiling of maxUnavailable (an int or a percent of replicas, rounded down as kube does).
int64_t MaxUnavailable(const Json& spec, int64_t replicas) {
  const Json strategy = spec.value("strategy", Json::object());
  if (!strategy.is_object() || strategy.value("type", "") != "RollingUpdate") return 0;
  const Json ru = strategy.value("rollingUpdate", Json::object());
  const Json v = ru.is_object() ? ru.value("maxUnavailable", Json("25%")) : Json("25%");
  if (v.is_number_integer()) return std::min<int64_t>(replicas, v.get<int64_t>());
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (!s.empty() && s.back() == '%') s.pop_back();
    try {
      return std::min<int64_t>(replicas, replicas * std::stoll(s) / 100);
    } catch (...) {
      return 0;
    }
  }
  return 0;
}

}  // namespace

bool ServingPodActive(const Json& pod) {
  if (!DeployMeta(pod, "deletionTimestamp").empty()) return false;
  const Json st = pod.value("status", Json::object());
  const std::string phase = st.is_object() ? st.value("phase", "") : "";
  return phase != "Succeeded" && phase != "Failed";
}

bool ServingPodReady(const Json& pod) {
  if (!ServingPodActive(pod)) return false;
  const Json st = pod.value("status", Json::object());
  if (!st.is_object() || st.value("phase", "") != "Running") return false;
  for (const Json& c : st.value("conditions", Json::array())) {
    if (c.is_object() && c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

Json SetServingCondition(Json conditions, const std::string& type, const std::string& status,
                         const std::string& reason, const std::string& message,
                         const std::string& now) {
  if (!conditions.is_array()) conditions = Json::array();
  for (Json& c : conditions) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    if (c.value("status", "") != status) c["lastTransitionTime"] = now;
    if (c.value("reason", "") != reason || c.value("message", "") != message) {
      c["lastUpdateTime"] = now;
    }
    c["status"] = status;
    c["reason"] = reason;
    c["message"] = message;
    return conditions;
  }
  conditions.push_back({{"type", type},
                        {"status", status},
                        {"lastUpdateTime", now},
                        {"lastTransitionTime", now},
                        {"reason", reason},
                        {"message", message}});
  return conditions;
}

std::string PodTemplateHash(const Json& pod_template) {
  return SafeChars(std::hash<std::string>{}(pod_template.dump()), 10);
}

Result<ServingActions> ReconcileDeployment(const Json& deployment, const std::vector<Json>& pods,
                                           const std::string& now) {
  const Json spec = deployment.value("spec", Json::object());
  if (!spec.is_object()) return Status::Invalid("spec: must be an object");
  const Json tmpl = spec.value("template", Json::object());
  const Json replicas_v = spec.value("replicas", Json(1));
  const int64_t replicas = replicas_v.is_number_integer() ? replicas_v.get<int64_t>() : 1;
  const std::string name = DeployMeta(deployment, "name");
  const std::string ns = DeployMeta(deployment, "namespace");
  const std::string hash = PodTemplateHash(tmpl);
  ServingActions out;

  // Pods of an older template or ended go; the rest are counted.
  std::vector<const Json*> current;
  std::set<std::string> names;
  for (const Json& p : pods) {
    names.insert(DeployMeta(p, "name"));
    if (!DeployMeta(p, "deletionTimestamp").empty()) continue;
    if (!ServingPodActive(p) || DeployLabel(p, kPodTemplateHashLabel) != hash) {
      out.delete_pods.push_back(DeployMeta(p, "name"));
      continue;
    }
    current.push_back(&p);
  }
  if (static_cast<int64_t>(current.size()) > replicas) {
    // Scale down: gated (never started) pods first, then the newest.
    std::stable_sort(current.begin(), current.end(), [](const Json* a, const Json* b) {
      if (IsGated(*a) != IsGated(*b)) return IsGated(*a);
      return DeployMeta(*a, "creationTimestamp") > DeployMeta(*b, "creationTimestamp");
    });
    while (static_cast<int64_t>(current.size()) > replicas) {
      out.delete_pods.push_back(DeployMeta(*current.front(), "name"));
      current.erase(current.begin());
    }
  }
  for (int64_t i = static_cast<int64_t>(current.size()); i < replicas; ++i) {
    std::string pod_name;
    for (uint64_t salt = 0;; ++salt) {
      pod_name = name + "-" + hash + "-" +
                 SafeChars(std::hash<std::string>{}(DeployMeta(deployment, "uid") + now +
                                                    std::to_string(i) + "/" + std::to_string(salt)),
                           5);
      if (names.insert(pod_name).second) break;
    }
    Json meta = tmpl.value("metadata", Json::object());
    if (!meta.is_object()) meta = Json::object();
    meta.erase("name");
    meta["name"] = pod_name;
    meta["namespace"] = ns;
    if (!meta.contains("labels") || !meta["labels"].is_object()) meta["labels"] = Json::object();
    meta["labels"][kPodTemplateHashLabel] = hash;
    meta["ownerReferences"] = Json::array(
        {jobs::ControllerOwnerRef("apps/v1", "Deployment", name, DeployMeta(deployment, "uid"))});
    out.create_pods.push_back({{"apiVersion", "v1"},
                               {"kind", "Pod"},
                               {"metadata", meta},
                               {"spec", tmpl.value("spec", Json::object())}});
  }

  int64_t ready = 0;
  for (const Json* p : current) ready += ServingPodReady(*p);
  const int64_t existing = static_cast<int64_t>(current.size() + out.create_pods.size());
  const Json old = deployment.value("status", Json::object());
  Json status = old.is_object() ? old : Json::object();
  status["observedGeneration"] = deployment["metadata"].value("generation", 1);
  status["replicas"] = existing;
  status["updatedReplicas"] = existing;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = ready;
  status["unavailableReplicas"] = std::max<int64_t>(0, replicas - ready);
  if (ready == 0) status.erase("readyReplicas");
  if (ready == 0) status.erase("availableReplicas");
  if (replicas - ready <= 0) status.erase("unavailableReplicas");
  Json conditions = status.value("conditions", Json::array());
  const bool available = ready >= replicas - MaxUnavailable(spec, replicas);
  conditions =
      SetServingCondition(conditions, "Available", available ? "True" : "False",
                          available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                          available ? "Deployment has minimum availability."
                                    : "Deployment does not have minimum availability.",
                          now);
  const bool done = ready >= replicas;
  conditions = SetServingCondition(
      conditions, "Progressing", "True", done ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
      done ? "ReplicaSet \"" + name + "-" + hash + "\" has successfully progressed."
           : "ReplicaSet \"" + name + "-" + hash + "\" is progressing.",
      now);
  // Times alone do not make a new status.
  Json compare_old = old.is_object() ? old : Json::object();
  status["conditions"] = conditions;
  Json a = status, b = compare_old;
  for (Json* s : {&a, &b}) {
    if (s->contains("conditions")) {
      for (Json& c : (*s)["conditions"]) {
        c.erase("lastUpdateTime");
        c.erase("lastTransitionTime");
      }
    }
  }
  if (a != b) out.status = status;
  return out;
}

}  // namespace kuota::standalone
