#include "standalone/stateful_set_controller.h"

#include <map>

#include "jobs/job_kind.h"
#include "jobs/serving_workloads.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

std::string StsMeta(const Json& o, const char* field) {
  const Json m = o.value("metadata", Json::object());
  if (!m.is_object()) return "";
  const Json v = m.value(field, Json());
  return v.is_string() ? v.get<std::string>() : "";
}

// The ordinal of pod `pod_name` of set `set`, or -1.
int64_t Ordinal(const std::string& set, const std::string& pod_name) {
  if (pod_name.size() <= set.size() + 1 || pod_name.compare(0, set.size() + 1, set + "-") != 0) {
    return -1;
  }
  const std::string rest = pod_name.substr(set.size() + 1);
  if (rest.empty() || rest.size() > 9 ||
      rest.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::stoll(rest);
}

}  // namespace

Result<ServingActions> ReconcileStatefulSet(const Json& sts, const std::vector<Json>& pods,
                                            const std::string& /*now*/, bool kueue) {
  const Json spec = sts.value("spec", Json::object());
  if (!spec.is_object()) return Status::Invalid("spec: must be an object");
  const Json tmpl = spec.value("template", Json::object());
  const Json replicas_v = spec.value("replicas", Json(1));
  const int64_t replicas = replicas_v.is_number_integer() ? replicas_v.get<int64_t>() : 1;
  const bool parallel = spec.value("podManagementPolicy", "OrderedReady") == "Parallel";
  const std::string name = StsMeta(sts, "name"), ns = StsMeta(sts, "namespace");
  const std::string revision = name + "-" + PodTemplateHash(tmpl);
  ServingActions out;

  std::map<int64_t, const Json*> by_ordinal;
  for (const Json& p : pods) {
    const int64_t ord = Ordinal(name, StsMeta(p, "name"));
    if (ord < 0) continue;
    by_ordinal[ord] = &p;
    if (!StsMeta(p, "deletionTimestamp").empty()) continue;
    // Ordinals past replicas go; so does an ended pod, to be made again.
    if (ord >= replicas || !ServingPodActive(p)) out.delete_pods.push_back(StsMeta(p, "name"));
  }
  int64_t ready = 0, existing = 0;
  for (const auto& [ord, p] : by_ordinal) {
    if (ord >= replicas || !ServingPodActive(*p)) continue;
    ++existing;
    ready += ServingPodReady(*p);
  }
  for (int64_t i = 0; i < replicas; ++i) {
    auto it = by_ordinal.find(i);
    if (it != by_ordinal.end()) {
      // OrderedReady: the next ordinal waits for this one to be ready.
      if (!parallel && !ServingPodReady(*it->second)) break;
      continue;
    }
    const std::string pod_name = name + "-" + std::to_string(i);
    Json meta = tmpl.value("metadata", Json::object());
    if (!meta.is_object()) meta = Json::object();
    meta["name"] = pod_name;
    meta["namespace"] = ns;
    if (!meta.contains("labels") || !meta["labels"].is_object()) meta["labels"] = Json::object();
    meta["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
    meta["labels"]["apps.kubernetes.io/pod-index"] = std::to_string(i);
    meta["labels"]["controller-revision-hash"] = revision;
    meta["ownerReferences"] = Json::array(
        {jobs::ControllerOwnerRef("apps/v1", "StatefulSet", name, StsMeta(sts, "uid"))});
    Json pod_spec = tmpl.value("spec", Json::object());
    if (!pod_spec.is_object()) pod_spec = Json::object();
    pod_spec["hostname"] = pod_name;
    if (const std::string svc = spec.value("serviceName", ""); !svc.empty()) {
      pod_spec["subdomain"] = svc;
    }
    Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", pod_spec}};
    if (kueue) jobs::DefaultStatefulSetPod(sts, pod);
    out.create_pods.push_back(std::move(pod));
    ++existing;
    if (!parallel) break;
  }

  const Json old = sts.value("status", Json::object());
  Json status = old.is_object() ? old : Json::object();
  status["observedGeneration"] = sts["metadata"].value("generation", 1);
  // Pods still there count until they are gone (Kueue's webhook refuses a
  // scale up from zero while they do).
  int64_t present = static_cast<int64_t>(out.create_pods.size());
  present += static_cast<int64_t>(by_ordinal.size());
  status["replicas"] = present;
  status["currentReplicas"] = existing;
  status["updatedReplicas"] = existing;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = ready;
  status["currentRevision"] = revision;
  status["updateRevision"] = revision;
  status["collisionCount"] = 0;
  if (status != old) out.status = status;
  return out;
}

}  // namespace kuota::standalone
