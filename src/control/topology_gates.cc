#include "control/topology_gates.h"

#include <string>

#include "control/topology_ungating.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

// "spec.replicatedJobs[0].template.spec.template" -> its JSON pointer.
Json::json_pointer TemplatePointerOf(const std::string& dotted) {
  std::string out;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    std::string escaped;
    for (char c : token) {
      if (c == '~') {
        escaped += "~0";
      } else if (c == '/') {
        escaped += "~1";
      } else {
        escaped += c;
      }
    }
    out += "/" + escaped;
    token.clear();
  };
  for (char c : dotted) {
    if (c == '.' || c == '[' || c == ']') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return Json::json_pointer(out);
}

// The template of `wl`'s pod set `index` in `job`, or nullptr.
Json* GatedTemplateOf(const jobs::JobKind& kind, Json& job, size_t index) {
  const Json::json_pointer ptr = TemplatePointerOf(kind.PodSetTemplateField(job, index));
  if (!job.contains(ptr)) return nullptr;
  Json& t = job[ptr];
  return t.is_object() ? &t : nullptr;
}

Json& GateObjectAt(Json& parent, const char* key) {
  Json& v = parent[key];
  if (!v.is_object()) v = Json::object();
  return v;
}

// A pod set asked for no topology of its own: Kueue marks its pods
// unconstrained so that they count as placed by topology.
bool ImpliedTopology(const api::PodSet& ps) {
  const auto& req = ps.topology_request;
  return !req || (!req->required && !req->preferred && !req->unconstrained);
}

const api::PodSetAssignment* TopologyAssignmentOf(const api::Workload& wl,
                                                  const std::string& name) {
  if (!wl.status.admission) return nullptr;
  for (const auto& psa : wl.status.admission->pod_set_assignments) {
    if (psa.name == name) return &psa;
  }
  return nullptr;
}

// Erases `key` from `map` (labels or annotations) unless `keep` has it, in
// which case its value is put back.
void RestoreGateKey(Json& meta, const char* field, const std::string& key,
                    const api::Labels& keep) {
  auto f = meta.find(field);
  if (f == meta.end() || !f->is_object()) return;
  if (auto k = keep.find(key); k != keep.end()) {
    (*f)[key] = k->second;
  } else {
    f->erase(key);
  }
}

}  // namespace

bool AdmittedByTopology(const api::Workload& wl) {
  if (!wl.status.admission) return false;
  for (const auto& psa : wl.status.admission->pod_set_assignments) {
    if (psa.topology_assignment) return true;
  }
  return false;
}

void AddTopologyGates(const jobs::JobKind& kind, const api::Workload& wl, Json& started) {
  if (!AdmittedByTopology(wl) || kind.TopologyGatesInPlacement()) return;
  for (size_t i = 0; i < wl.spec.pod_sets.size(); ++i) {
    const api::PodSet& ps = wl.spec.pod_sets[i];
    Json* tmpl = GatedTemplateOf(kind, started, i);
    if (tmpl == nullptr) continue;
    Json& meta = GateObjectAt(*tmpl, "metadata");
    GateObjectAt(meta, "annotations")[kWorkloadAnnotation] = wl.metadata.name;
    GateObjectAt(meta, "labels")[kPodSetLabel] = ps.name;
    const api::PodSetAssignment* psa = TopologyAssignmentOf(wl, ps.name);
    if (psa == nullptr || !psa->topology_assignment) continue;
    if (ImpliedTopology(ps))
      GateObjectAt(meta, "annotations")[kUnconstrainedTopologyAnnotation] = "true";
    Json& gates = GateObjectAt(*tmpl, "spec")["schedulingGates"];
    if (!gates.is_array()) gates = Json::array();
    bool present = false;
    for (const Json& g : gates)
      present = present || (g.is_object() && g.value("name", "") == kTopologySchedulingGate);
    if (!present) gates.push_back({{"name", kTopologySchedulingGate}});
  }
}

void AddTopologyGatesToPlacement(const api::Workload& wl,
                                 std::vector<jobs::PodSetPlacement>& placement) {
  if (!AdmittedByTopology(wl)) return;
  for (const api::PodSet& ps : wl.spec.pod_sets) {
    for (jobs::PodSetPlacement& p : placement) {
      if (p.name != ps.name) continue;
      p.annotations[kWorkloadAnnotation] = wl.metadata.name;
      p.labels[kPodSetLabel] = ps.name;
      const api::PodSetAssignment* psa = TopologyAssignmentOf(wl, ps.name);
      if (psa == nullptr || !psa->topology_assignment) continue;
      if (ImpliedTopology(ps)) p.annotations[kUnconstrainedTopologyAnnotation] = "true";
      p.scheduling_gates.push_back(kTopologySchedulingGate);
    }
  }
}

void RemoveTopologyGates(const jobs::JobKind& kind, const api::Workload& wl, Json& stopped) {
  if (kind.TopologyGatesInPlacement()) return;
  for (size_t i = 0; i < wl.spec.pod_sets.size(); ++i) {
    const api::PodSet& ps = wl.spec.pod_sets[i];
    Json* tmpl = GatedTemplateOf(kind, stopped, i);
    if (tmpl == nullptr) continue;
    if (auto meta = tmpl->find("metadata"); meta != tmpl->end() && meta->is_object()) {
      RestoreGateKey(*meta, "annotations", kWorkloadAnnotation, ps.template_.annotations);
      RestoreGateKey(*meta, "annotations", kUnconstrainedTopologyAnnotation,
                     ps.template_.annotations);
      RestoreGateKey(*meta, "labels", kPodSetLabel, ps.template_.labels);
    }
    auto spec = tmpl->find("spec");
    if (spec == tmpl->end() || !spec->is_object()) continue;
    auto gates = spec->find("schedulingGates");
    if (gates == spec->end() || !gates->is_array()) continue;
    Json kept = Json::array();
    for (const Json& g : *gates) {
      if (!(g.is_object() && g.value("name", "") == kTopologySchedulingGate)) kept.push_back(g);
    }
    if (kept.empty()) {
      spec->erase("schedulingGates");
    } else {
      *gates = std::move(kept);
    }
  }
}

}  // namespace kuota::control
