#include "jobs/pod_kind.h"

#include <cstdio>
#include <cstdlib>

#include "jobs/job_fields.h"
#include "jobs/leader_worker_set.h"
#include "jobs/pod_set_update.h"
#include "jobs/topology_request.h"

namespace kuota::jobs {
namespace {

const Json& Meta(const Json& pod) {
  static const Json kEmpty = Json::object();
  auto m = pod.find("metadata");
  return m != pod.end() && m->is_object() ? *m : kEmpty;
}

bool HasMetaKey(const Json& pod, const char* map, const char* key) {
  const Json& meta = Meta(pod);
  auto m = meta.find(map);
  return m != meta.end() && m->is_object() && m->contains(key);
}

// FNV-1a, 64 bits: stable across processes and builds.
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The parts of a container that decide where and how big it is scheduled.
Json ContainerShape(const Json& c) {
  Json out = Json::object();
  if (!c.is_object()) return out;
  for (const char* f : {"image", "resources", "ports"}) {
    if (c.contains(f)) out[f] = c[f];
  }
  return out;
}

// A positive decimal integer, or 0.
int64_t PositiveInt(const std::string& s) {
  if (s.empty() || s.size() > 9) return 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
  }
  return std::strtoll(s.c_str(), nullptr, 10);
}

// Removes Kueue's admission gate from a pod spec's schedulingGates (and the
// list itself when that was the only gate).
void DropAdmissionGate(Json& spec) {
  if (!spec.contains("schedulingGates") || !spec["schedulingGates"].is_array()) return;
  Json kept = Json::array();
  for (const auto& g : spec["schedulingGates"]) {
    if (!(g.is_object() && g.value("name", "") == kAdmissionGate)) kept.push_back(g);
  }
  if (kept.empty()) {
    spec.erase("schedulingGates");
  } else {
    spec["schedulingGates"] = kept;
  }
}

}  // namespace

bool IsPodIntegrationCandidate(const Json& pod) {
  // A StatefulSet's pods are suspended by their parent alone (Kueue's pod
  // webhook gates them; its StatefulSet pod reconciler names their queue).
  if (MetaMapValue(pod, "annotations", kPodSuspendingParentAnnotation) == "statefulset") {
    return true;
  }
  if (MetaMapValue(pod, "labels", kQueueNameLabel).empty()) return false;
  // A Deployment's or LeaderWorkerSet's pods: Kueue's webhook on the parent
  // marked its template, so its controller's pods are managed.
  if (!MetaMapValue(pod, "annotations", kPodSuspendingParentAnnotation).empty()) return true;
  const Json& meta = Meta(pod);
  auto refs = meta.find("ownerReferences");
  if (refs != meta.end() && refs->is_array()) {
    for (const auto& r : *refs) {
      if (r.is_object() && r.value("controller", false)) return false;
    }
  }
  return true;
}

bool IsManagedPod(const Json& pod) { return MetaMapValue(pod, "labels", kManagedLabel) == "true"; }

Status ValidateManagedPod(const Json& pod) {
  const std::string field =
      std::string("metadata.annotations[") + kPodGroupTotalCountAnnotation + "]";
  const std::string group = PodGroupName(pod);
  if (group.empty()) {
    if (HasMetaKey(pod, "annotations", kPodGroupTotalCountAnnotation)) {
      return Status::Invalid(field + ": Forbidden: only allowed together with the label " +
                             kPodGroupNameLabel);
    }
    return ValidateTopologyAnnotations(Meta(pod), "metadata");
  }
  if (!HasMetaKey(pod, "annotations", kPodGroupTotalCountAnnotation)) return Required(field);
  const std::string count = MetaMapValue(pod, "annotations", kPodGroupTotalCountAnnotation);
  if (PositiveInt(count) == 0) {
    const Json& value = Meta(pod).at("annotations").at(kPodGroupTotalCountAnnotation);
    return InvalidValue(field, value, "must be a positive integer");
  }
  return ValidateTopologyAnnotations(Meta(pod), "metadata");
}

void DefaultManagedPodOnCreate(Json& pod) {
  Json& meta = pod["metadata"];
  if (!meta.contains("labels") || !meta["labels"].is_object()) meta["labels"] = Json::object();
  // A LeaderWorkerSet's pod is only gated: Kueue's LWS controller labels it
  // managed once it names its group's Workload (LeaderWorkerSetKind::
  // DefaultGroupPod); managed before that, it would make a Workload of its own.
  // So is a StatefulSet's until Kueue's StatefulSet pod reconciler names its group.
  const std::string parent = MetaMapValue(pod, "annotations", kPodSuspendingParentAnnotation);
  if (parent != kLeaderWorkerSetFramework &&
      (parent != "statefulset" || !PodGroupName(pod).empty())) {
    meta["labels"][kManagedLabel] = "true";
  }
  if (HasMetaKey(pod, "annotations", kPodGroupPodIndexLabelAnnotation)) {
    // Kueue copies the value even when the named label is absent ("").
    const std::string from = MetaMapValue(pod, "annotations", kPodGroupPodIndexLabelAnnotation);
    meta["labels"][kPodGroupPodIndexLabel] = MetaMapValue(pod, "labels", from.c_str());
  }
  // A parent's controller (Kueue's StatefulSet pod reconciler) names the role itself.
  const bool parent_role = HasMetaKey(pod, "annotations", kPodSuspendingParentAnnotation) &&
                           HasMetaKey(pod, "annotations", kRoleHashAnnotation);
  if (!PodGroupName(pod).empty() && !parent_role) {
    if (!meta.contains("annotations") || !meta["annotations"].is_object()) {
      meta["annotations"] = Json::object();
    }
    meta["annotations"].erase(kRoleHashAnnotation);
    meta["annotations"][kRoleHashAnnotation] = PodRoleHash(pod);
  }
  Json& spec = pod["spec"];
  if (!spec.contains("schedulingGates") || !spec["schedulingGates"].is_array()) {
    spec["schedulingGates"] = Json::array();
  }
  for (const auto& g : spec["schedulingGates"]) {
    if (g.is_object() && g.value("name", "") == kAdmissionGate) return;
  }
  spec["schedulingGates"].push_back({{"name", kAdmissionGate}});
}

std::string PodGroupName(const Json& pod) {
  return MetaMapValue(pod, "labels", kPodGroupNameLabel);
}

int64_t PodGroupTotalCount(const Json& pod) {
  return PositiveInt(MetaMapValue(pod, "annotations", kPodGroupTotalCountAnnotation));
}

std::string PodRoleHash(const Json& pod) {
  std::string stored = MetaMapValue(pod, "annotations", kRoleHashAnnotation);
  if (!stored.empty()) return stored;
  const Json spec = pod.value("spec", Json::object());
  Json shape = Json::object();
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    Json out = Json::array();
    for (const auto& c : spec[list]) out.push_back(ContainerShape(c));
    shape[list] = out;
  }
  for (const char* f :
       {"nodeSelector", "affinity", "tolerations", "runtimeClassName", "priority",
        "priorityClassName", "topologySpreadConstraints", "overhead", "resourceClaims"}) {
    if (spec.contains(f)) shape[f] = spec[f];
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(Fnv1a(shape.dump())));
  return std::string(hex, 8);
}

std::string PodPhase(const Json& pod) {
  auto st = pod.find("status");
  if (st == pod.end() || !st->is_object()) return "";
  auto p = st->find("phase");
  return p != st->end() && p->is_string() ? p->get<std::string>() : "";
}

bool PodIsTerminal(const Json& pod) {
  const std::string p = PodPhase(pod);
  return p == "Succeeded" || p == "Failed";
}

bool PodIsDeleting(const Json& pod) {
  const Json& meta = Meta(pod);
  auto d = meta.find("deletionTimestamp");
  return d != meta.end() && !d->is_null();
}

bool PodIsGated(const Json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  auto gates = spec->find("schedulingGates");
  if (gates == spec->end() || !gates->is_array()) return false;
  for (const auto& g : *gates) {
    if (g.is_object() && g.value("name", "") == kAdmissionGate) return true;
  }
  return false;
}

Json PodSetTemplateOf(const Json& pod) {
  Json tmpl = Json::object();
  const Json& meta = Meta(pod);
  Json tm = Json::object();
  for (const char* f : {"labels", "annotations"}) {
    auto m = meta.find(f);
    if (m == meta.end() || !m->is_object()) continue;
    Json kept = Json::object();
    for (const auto& [k, v] : m->items()) {
      if (k.rfind("kueue.x-k8s.io/", 0) != 0) kept[k] = v;
    }
    if (!kept.empty()) tm[f] = kept;
  }
  if (!tm.empty()) tmpl["metadata"] = tm;
  Json spec = pod.value("spec", Json::object());
  DropAdmissionGate(spec);
  spec.erase("nodeName");
  tmpl["spec"] = spec;
  return tmpl;
}

void SetPodPriority(const Json& pod, Json& workload) {
  const std::string wpc = MetaMapValue(pod, "labels", kPriorityClassLabel);
  if (!wpc.empty()) {
    SetPriorityClassRef(workload, wpc, true);
    return;
  }
  const Json spec = pod.value("spec", Json::object());
  auto pc = spec.find("priorityClassName");
  if (pc != spec.end() && pc->is_string() && !pc->get<std::string>().empty()) {
    SetPriorityClassRef(workload, pc->get<std::string>(), false);
  }
}

Result<Json> PodSetOfPod(const Json& pod, const std::string& name) {
  Json pod_set = {{"name", name}, {"count", 1}, {"template", PodSetTemplateOf(pod)}};
  KUOTA_ASSIGN_OR_RETURN(
      Json topology, BuildTopologyRequest(Meta(pod), {.pod_index_label = kPodGroupPodIndexLabel}));
  if (!topology.is_null()) pod_set["topologyRequest"] = std::move(topology);
  return pod_set;
}

Result<Json> BuildSinglePodWorkload(const Json& pod) {
  const Json& meta = Meta(pod);
  const std::string name = meta.value("name", "");
  const std::string ns = meta.value("namespace", "");
  const std::string uid = meta.value("uid", "");
  if (name.empty() || uid.empty()) return Status::Invalid("pod has no name or uid yet");
  KUOTA_ASSIGN_OR_RETURN(Json pod_set, PodSetOfPod(pod, "main"));
  Json wl = MakeJobWorkload("Pod", "v1", "Pod", name, ns, uid,
                            MetaMapValue(pod, "labels", kQueueNameLabel), Json::array({pod_set}));
  SetPodPriority(pod, wl);
  return wl;
}

Json UngatePod(const Json& pod, const PodSetPlacement& placement) {
  Json out = pod;
  ApplyObjectMetadata(out, placement);
  Json& spec = out["spec"];
  DropAdmissionGate(spec);
  if (!placement.node_selector.empty()) {
    if (!spec.contains("nodeSelector") || !spec["nodeSelector"].is_object()) {
      spec["nodeSelector"] = Json::object();
    }
    for (const auto& [k, v] : placement.node_selector) spec["nodeSelector"][k] = v;
  }
  if (placement.tolerations.is_array() && !placement.tolerations.empty()) {
    if (!spec.contains("tolerations") || !spec["tolerations"].is_array()) {
      spec["tolerations"] = Json::array();
    }
    for (const auto& t : placement.tolerations) spec["tolerations"].push_back(t);
  }
  return out;
}

}  // namespace kuota::jobs
