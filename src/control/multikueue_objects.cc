#include "control/multikueue_objects.h"

#include "api/object.h"
#include "jobs/managed_by.h"
#include "jobs/registry.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json MkObjectMember(const Json& object, const char* key) {
  if (!object.is_object()) return Json::object();
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : Json::object();
}

// The copy of `local` (of apiVersion/kind) for a worker: its name,
// namespace, labels plus the origin (and the prebuilt Workload's name when
// given), annotations plus the manager's uid, and its spec.
Json RemoteCopy(const Json& local, const std::string& api_version, const std::string& kind,
                const std::string& origin, const std::string& workload_name) {
  const Json meta = MkObjectMember(local, "metadata");
  Json labels = MkObjectMember(meta, "labels");
  labels[kMultiKueueOriginLabel] = origin;
  if (!workload_name.empty()) labels[kPrebuiltWorkloadLabel] = workload_name;
  Json annotations = MkObjectMember(meta, "annotations");
  annotations[kMultiKueueOriginUidAnnotation] = meta.value("uid", "");
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata",
           {{"name", meta.value("name", "")},
            {"namespace", meta.value("namespace", "")},
            {"labels", std::move(labels)},
            {"annotations", std::move(annotations)}}},
          {"spec", MkObjectMember(local, "spec")}};
}

}  // namespace

Json RemoteWorkloadFor(const Json& local, const std::string& origin) {
  return RemoteCopy(local, api::kKueueV1beta2, "Workload", origin, "");
}

Json RemoteJobFor(const jobs::JobKind& kind, const Json& local, const std::string& workload_name,
                  const std::string& origin) {
  Json job = RemoteCopy(local, kind.ApiVersion(), kind.Kind(), origin, workload_name);
  if (std::optional<Json::json_pointer> p = jobs::ManagedByPointer(kind)) {
    if (job.contains(*p)) job[p->parent_pointer()].erase(p->back());
  }
  return job;
}

Json RemotePodFor(const Json& local, const std::string& workload_name, const std::string& origin) {
  Json pod = RemoteCopy(local, "v1", "Pod", origin, workload_name);
  pod["spec"].erase("nodeName");
  return pod;
}

std::vector<std::string> OwnerPodsOf(const Json& wl) {
  std::vector<std::string> out;
  for (const Json& ref : server::FieldValue(wl, {"metadata", "ownerReferences"})) {
    if (ref.is_object() && ref.value("apiVersion", "") == "v1" && ref.value("kind", "") == "Pod") {
      out.push_back(ref.value("name", ""));
    }
  }
  return out;
}

std::optional<OwnerJob> OwnerJobOf(const Json& wl) {
  const Json meta = MkObjectMember(wl, "metadata");
  auto refs = meta.find("ownerReferences");
  if (refs == meta.end() || !refs->is_array()) return std::nullopt;
  for (const Json& ref : *refs) {
    if (!ref.is_object() || !ref.value("controller", false)) continue;
    const std::string api = ref.value("apiVersion", ""), kind = ref.value("kind", "");
    for (const auto& k : jobs::JobKinds()) {
      if (k->Kind() == kind && k->ApiVersion() == api) {
        return OwnerJob{k.get(), ref.value("name", ""), ref.value("uid", "")};
      }
    }
  }
  return std::nullopt;
}

const Json* CheckEntry(const Json& wl, const std::string& check) {
  if (!wl.is_object()) return nullptr;
  auto status = wl.find("status");
  if (status == wl.end() || !status->is_object()) return nullptr;
  auto checks = status->find("admissionChecks");
  if (checks == status->end() || !checks->is_array()) return nullptr;
  for (const Json& c : *checks) {
    if (c.is_object() && c.value("name", "") == check) return &c;
  }
  return nullptr;
}

}  // namespace kuota::control
