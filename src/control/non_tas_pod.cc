#include "control/non_tas_pod.h"

#include <initializer_list>
#include <string>

namespace kuota::control {
namespace {

using Json = nlohmann::json;

// Kueue's IsTAS: a pod carrying one of these annotations was placed by TAS.
constexpr const char* kTasAnnotations[] = {
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-unconstrained-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
    "kueue.x-k8s.io/podset-slice-required-topology-constraints",
};

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string StringMember(const Json& object, const char* key) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// Copies the listed members of `from` that are present into `to`.
void CopyMembers(const Json& from, Json& to, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (const Json* v = Member(from, key)) to[key] = *v;
  }
}

Json ContainersProjection(const Json& containers) {
  Json out = Json::array();
  if (!containers.is_array()) return out;
  for (const Json& c : containers) {
    Json p = Json::object();
    CopyMembers(c, p, {"name", "resources", "restartPolicy"});
    if (!p.contains("name")) p["name"] = "";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

bool IsNonTasPod(const Json& pod) {
  const Json* spec = Member(pod, "spec");
  if (spec == nullptr || StringMember(*spec, "nodeName").empty()) return false;
  const Json* status = Member(pod, "status");
  const std::string phase = status == nullptr ? "" : StringMember(*status, "phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  const Json* meta = Member(pod, "metadata");
  const Json* annotations = meta == nullptr ? nullptr : Member(*meta, "annotations");
  if (annotations != nullptr && annotations->is_object()) {
    for (const char* key : kTasAnnotations) {
      if (annotations->contains(key)) return false;
    }
  }
  return true;
}

Json NonTasPodProjection(const Json& pod) {
  Json meta = Json::object();
  if (const Json* m = Member(pod, "metadata"))
    CopyMembers(*m, meta, {"name", "namespace", "labels"});
  Json spec = Json::object();
  if (const Json* s = Member(pod, "spec")) {
    CopyMembers(*s, spec, {"nodeName", "overhead", "resources"});
    if (const Json* c = Member(*s, "containers")) spec["containers"] = ContainersProjection(*c);
    if (const Json* c = Member(*s, "initContainers")) {
      spec["initContainers"] = ContainersProjection(*c);
    }
  }
  Json out = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", std::move(meta)},
              {"spec", std::move(spec)}};
  if (const Json* status = Member(pod, "status")) {
    if (const Json* phase = Member(*status, "phase")) out["status"] = {{"phase", *phase}};
  }
  return out;
}

}  // namespace kuota::control
