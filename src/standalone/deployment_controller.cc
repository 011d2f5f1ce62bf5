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

// An int-or-percent of `replicas` (`fallback` when absent or malformed);
// a percent rounded up or down as kube does for maxSurge and maxUnavailable.
int64_t IntOrPercent(const Json& ru, const char* key, const char* fallback, int64_t replicas,
                     bool round_up) {
  const Json v = ru.is_object() ? ru.value(key, Json(fallback)) : Json(fallback);
  if (v.is_number_integer()) return std::max<int64_t>(0, v.get<int64_t>());
  if (!v.is_string()) return 0;
  std::string s = v.get<std::string>();
  if (!s.empty() && s.back() == '%') s.pop_back();
  int64_t percent = 0;
  try {
    percent = std::stoll(s);
  } catch (...) {
    return 0;
  }
  return std::max<int64_t>(0, (replicas * percent + (round_up ? 99 : 0)) / 100);
}

// spec.strategy as the Deployment controller reads it: Recreate, or a
// rolling update (the default) with maxSurge (25%, rounded up) and
// maxUnavailable (25%, rounded down; 1 when both come to 0).
struct Strategy {
  bool recreate = false;
  int64_t max_surge = 0;
  int64_t max_unavailable = 0;
};

Strategy StrategyOf(const Json& spec, int64_t replicas) {
  Strategy out;
  const Json strategy = spec.value("strategy", Json::object());
  if (strategy.is_object() && strategy.value("type", "") == "Recreate") {
    out.recreate = true;
    out.max_unavailable = replicas;
    return out;
  }
  const Json ru = strategy.is_object() ? strategy.value("rollingUpdate", Json::object()) : Json();
  out.max_surge = IntOrPercent(ru, "maxSurge", "25%", replicas, true);
  out.max_unavailable =
      std::min<int64_t>(replicas, IntOrPercent(ru, "maxUnavailable", "25%", replicas, false));
  if (out.max_surge == 0 && out.max_unavailable == 0) out.max_unavailable = 1;
  return out;
}

// kube's ranking of pods to delete first: gated (never started), then not
// ready, then the newest.
void SortForDeletion(std::vector<const Json*>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const Json* a, const Json* b) {
    if (IsGated(*a) != IsGated(*b)) return IsGated(*a);
    if (ServingPodReady(*a) != ServingPodReady(*b)) return !ServingPodReady(*a);
    return DeployMeta(*a, "creationTimestamp") > DeployMeta(*b, "creationTimestamp");
  });
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

  const Strategy strategy = StrategyOf(spec, replicas);

  // Ended pods go; the others are the current template's or an older one's.
  std::vector<const Json*> current, older;
  std::set<std::string> names;
  bool older_terminating = false;
  for (const Json& p : pods) {
    names.insert(DeployMeta(p, "name"));
    const bool ours = DeployLabel(p, kPodTemplateHashLabel) == hash;
    if (!DeployMeta(p, "deletionTimestamp").empty()) {
      older_terminating = older_terminating || !ours;
      continue;
    }
    if (!ServingPodActive(p)) {
      out.delete_pods.push_back(DeployMeta(p, "name"));
      continue;
    }
    (ours ? current : older).push_back(&p);
  }
  auto count = [](const std::vector<const Json*>& v) { return static_cast<int64_t>(v.size()); };
  auto ready_in = [](const std::vector<const Json*>& v) {
    int64_t n = 0;
    for (const Json* p : v) n += ServingPodReady(*p);
    return n;
  };

  // How many pods of the current template: all replicas once no older pod
  // is left; during a rolling update at most replicas + maxSurge pods in all;
  // Recreate starts none before every older pod is gone.
  int64_t want = replicas;
  if (strategy.recreate) {
    if (!older.empty() || older_terminating) want = 0;
  } else if (!older.empty()) {
    const int64_t room = replicas + strategy.max_surge - count(older) - count(current);
    want = count(current) + std::max<int64_t>(0, std::min(room, replicas - count(current)));
  }
  if (count(current) > want && (older.empty() || strategy.recreate)) {
    // Scale down: gated (never started) pods first, then not ready, then the newest.
    SortForDeletion(current);
    while (count(current) > want) {
      out.delete_pods.push_back(DeployMeta(*current.front(), "name"));
      current.erase(current.begin());
    }
  }
  for (int64_t i = count(current); i < want; ++i) {
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
  const int64_t updated = count(current) + static_cast<int64_t>(out.create_pods.size());

  // Older pods go as availability allows (kube's rolling update: every pod
  // beyond replicas - maxUnavailable available, less the current template's
  // not yet available); all at once for Recreate.
  if (!older.empty()) {
    int64_t may_go = count(older);
    if (!strategy.recreate) {
      const int64_t min_available = replicas - strategy.max_unavailable;
      const int64_t unavailable_new = updated - ready_in(current);
      may_go = count(older) + updated - min_available - unavailable_new;
    }
    SortForDeletion(older);
    const auto going = older.begin() + std::clamp<int64_t>(may_go, 0, count(older));
    for (auto it = older.begin(); it != going; ++it)
      out.delete_pods.push_back(DeployMeta(**it, "name"));
    older.erase(older.begin(), going);
  }
  const int64_t older_left = count(older);

  const int64_t ready = ready_in(current) + ready_in(older);
  const int64_t existing = updated + older_left;
  const Json old = deployment.value("status", Json::object());
  Json status = old.is_object() ? old : Json::object();
  status["observedGeneration"] = deployment["metadata"].value("generation", 1);
  status["replicas"] = existing;
  status["updatedReplicas"] = updated;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = ready;
  status["unavailableReplicas"] = std::max<int64_t>(0, replicas - ready);
  if (ready == 0) status.erase("readyReplicas");
  if (ready == 0) status.erase("availableReplicas");
  if (replicas - ready <= 0) status.erase("unavailableReplicas");
  Json conditions = status.value("conditions", Json::array());
  const bool available = ready >= replicas - strategy.max_unavailable;
  conditions =
      SetServingCondition(conditions, "Available", available ? "True" : "False",
                          available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                          available ? "Deployment has minimum availability."
                                    : "Deployment does not have minimum availability.",
                          now);
  const bool done = older_left == 0 && updated == replicas && ready_in(current) >= replicas;
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
