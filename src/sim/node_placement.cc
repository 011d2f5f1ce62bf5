#include "sim/node_placement.h"

#include <algorithm>
#include <set>

namespace kuota::sim {
namespace {

bool HasLabels(const api::Labels& have, const api::Labels& want) {
  for (const auto& [k, v] : want) {
    auto it = have.find(k);
    if (it == have.end() || it->second != v) return false;
  }
  return true;
}

bool Tolerated(const api::Taint& taint, const std::vector<const api::Toleration*>& tolerations) {
  if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") return true;
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const api::Toleration* t) { return t->Tolerates(taint); });
}

}  // namespace

NodePlacement::NodePlacement(std::vector<SimNode> nodes) {
  std::sort(nodes.begin(), nodes.end(),
            [](const SimNode& a, const SimNode& b) { return a.name < b.name; });
  for (SimNode& n : nodes) {
    NodeState st;
    for (const auto& [res, q] : n.allocatable) st.free[res] = q.milli();
    st.node = std::move(n);
    nodes_.push_back(std::move(st));
  }
}

bool NodePlacement::Place(const engine::WorkloadInfo& wl,
                          const std::map<std::string, api::ResourceFlavor>& flavors) {
  if (placed(wl.key)) return true;
  std::vector<Claim> claims;
  auto undo = [&] {
    for (const Claim& c : claims) {
      for (const auto& [res, v] : c.taken) nodes_[c.node].free[res] += v;
    }
  };
  for (const engine::PodSetAdmission& psa : wl.admission) {
    const engine::PodSetInfo* info = nullptr;
    for (const auto& ps : wl.pod_sets) {
      if (ps.name == psa.name) info = &ps;
    }
    if (info == nullptr || info->spec == nullptr) continue;
    // What every pod of the set must find on its node.
    api::Labels labels = info->spec->node_selector;
    std::vector<const api::Toleration*> tolerations;
    for (const auto& t : info->spec->tolerations) tolerations.push_back(&t);
    std::set<std::string> flavor_names;
    for (const auto& [res, flavor] : psa.flavors) flavor_names.insert(flavor);
    for (const std::string& name : flavor_names) {
      auto it = flavors.find(name);
      if (it == flavors.end()) continue;
      for (const auto& [k, v] : it->second.node_labels) labels[k] = v;
      for (const auto& t : it->second.tolerations) tolerations.push_back(&t);
    }
    std::vector<std::pair<std::string, int64_t>> per_pod;
    for (const auto& [res, v] : info->per_pod) {
      if (res != "pods" && v > 0) per_pod.emplace_back(res, v);
    }
    per_pod.emplace_back("pods", 1000);
    // A pod set placed by topology puts its pods on the domains assigned
    // (each domain's level labels); any other, anywhere it fits.
    std::vector<std::pair<api::Labels, int32_t>> groups;
    const api::TopologyAssignment* ta = nullptr;
    if (wl.object.status.admission) {
      for (const auto& a : wl.object.status.admission->pod_set_assignments) {
        if (a.name == psa.name && a.topology_assignment) ta = &*a.topology_assignment;
      }
    }
    if (ta != nullptr) {
      for (const auto& d : ta->domains) {
        api::Labels at = labels;
        for (size_t l = 0; l < ta->levels.size() && l < d.values.size(); ++l) {
          at[ta->levels[l]] = d.values[l];
        }
        groups.emplace_back(std::move(at), d.count);
      }
    } else {
      groups.emplace_back(labels, psa.count);
    }
    for (const auto& [want, count] : groups)
      for (int32_t pod = 0; pod < count; ++pod) {
        bool done = false;
        for (size_t i = 0; i < nodes_.size() && !done; ++i) {
          NodeState& n = nodes_[i];
          if (!HasLabels(n.node.labels, want)) continue;
          if (!std::all_of(n.node.taints.begin(), n.node.taints.end(),
                           [&](const api::Taint& t) { return Tolerated(t, tolerations); })) {
            continue;
          }
          bool fits = true;
          for (const auto& [res, v] : per_pod) {
            auto it = n.free.find(res);
            // A node that does not list `pods` is not limited in pod count.
            if (it == n.free.end() ? res != "pods" : it->second < v) fits = false;
          }
          if (!fits) continue;
          Claim c;
          c.node = i;
          for (const auto& [res, v] : per_pod) {
            auto it = n.free.find(res);
            if (it == n.free.end()) continue;
            it->second -= v;
            c.taken.emplace_back(res, v);
          }
          claims.push_back(std::move(c));
          done = true;
        }
        if (!done) {
          undo();
          return false;
        }
      }
  }
  placed_[wl.key] = std::move(claims);
  return true;
}

void NodePlacement::Release(const std::string& key) {
  auto it = placed_.find(key);
  if (it == placed_.end()) return;
  for (const Claim& c : it->second) {
    for (const auto& [res, v] : c.taken) nodes_[c.node].free[res] += v;
  }
  placed_.erase(it);
}

}  // namespace kuota::sim
