#include "standalone/admission_hook.h"

#include "api/codec/decode.h"
#include "jobs/registry.h"

namespace kuota::standalone {
namespace {

// The codec prefixes errors with "document 1 (Kind "name", line 1): "; an API
// error names the object itself, so keep only the field path part.
std::string StripDocumentPrefix(const std::string& m) {
  if (m.rfind("document ", 0) != 0) return m;
  size_t close = m.find("): ");
  return close == std::string::npos ? m : m.substr(close + 3);
}

void SetDefault(server::Json& obj, const char* key, server::Json value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
}

}  // namespace

void ApplyKueueDefaults(const std::string& kind, server::Json& object) {
  if (!object.contains("spec") || !object["spec"].is_object()) {
    if (kind == "ClusterQueue" || kind == "LocalQueue" || kind == "Workload") {
      object["spec"] = server::Json::object();
    } else {
      return;
    }
  }
  server::Json& spec = object["spec"];
  if (kind == "ClusterQueue") {
    SetDefault(spec, "queueingStrategy", "BestEffortFIFO");
    SetDefault(spec, "stopPolicy", "None");
    SetDefault(spec, "preemption", server::Json::object());
    SetDefault(spec["preemption"], "withinClusterQueue", "Never");
    SetDefault(spec["preemption"], "reclaimWithinCohort", "Never");
    SetDefault(spec["preemption"], "borrowWithinCohort", {{"policy", "Never"}});
    SetDefault(spec, "flavorFungibility", server::Json::object());
    SetDefault(spec["flavorFungibility"], "whenCanBorrow", "MayStopSearch");
    SetDefault(spec["flavorFungibility"], "whenCanPreempt", "TryNextFlavor");
  } else if (kind == "LocalQueue") {
    SetDefault(spec, "stopPolicy", "None");
  } else if (kind == "Workload") {
    SetDefault(spec, "active", true);
    if (spec.contains("podSets") && spec["podSets"].is_array()) {
      for (auto& ps : spec["podSets"]) {
        if (ps.is_object()) SetDefault(ps, "count", 1);
      }
    }
  }
}

Status KuotaAdmissionHook::Admit(const server::ResourceInfo& resource, Operation op,
                                 const server::Json* /*old_object*/, server::Json* object) {
  if (op == Operation::kDelete) return Status::Ok();
  if (const jobs::JobKind* kind = jobs::FindJobKind(resource.StoreKey())) {
    if (op == Operation::kCreate) kind->DefaultOnCreate(*object);
    const server::Json& spec = object->value("spec", server::Json::object());
    if (!spec.contains("template") || !spec["template"].is_object() ||
        !spec["template"].contains("spec")) {
      return Status::Invalid("spec.template.spec: Required value");
    }
    const server::Json& pod = spec["template"]["spec"];
    if (!pod.contains("containers") || !pod["containers"].is_array() ||
        pod["containers"].empty()) {
      return Status::Invalid("spec.template.spec.containers: Required value");
    }
    std::string rp = pod.value("restartPolicy", "");
    if (rp != "Never" && rp != "OnFailure") {
      return Status::Invalid("spec.template.spec.restartPolicy: Unsupported value: \"" + rp +
                             "\": supported values: \"OnFailure\", \"Never\"");
    }
    return Status::Ok();
  }
  const bool kueue = resource.group == "kueue.x-k8s.io" ||
                     (resource.group == "scheduling.k8s.io" && resource.kind == "PriorityClass") ||
                     (resource.group.empty() && resource.kind == "Namespace");
  if (!kueue) return Status::Ok();
  ApplyKueueDefaults(resource.kind, *object);
  codec::DecodeOptions opts;
  opts.max_bytes = 3u << 20;
  auto decoded = codec::DecodeObject(object->dump(), opts);
  if (!decoded.ok()) {
    return Status(decoded.status().code(), StripDocumentPrefix(decoded.status().message()));
  }
  return Status::Ok();
}

}  // namespace kuota::standalone
