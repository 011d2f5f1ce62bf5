#include "engine/topology_assigner.h"

#include <algorithm>

namespace kuota::engine {
namespace {

std::string LeafIdOf(const api::TopologyAssignment& ta, const api::TopologyDomainAssignment& d) {
  if (!ta.levels.empty() && ta.levels.back() == api::kHostnameLabel && !d.values.empty()) {
    return d.values.back();
  }
  std::string id;
  for (const auto& v : d.values) {
    if (!id.empty()) id += ',';
    id += v;
  }
  return id;
}

bool ExplicitlyRequested(const api::PodSet& ps) {
  if (!ps.topology_request) return false;
  const auto& tr = *ps.topology_request;
  return tr.unconstrained || tr.required || tr.preferred || tr.pod_set_slice_required_topology ||
         tr.pod_set_slice_size;
}

}  // namespace

void AddTopologyUsage(const std::vector<TasUse>& usage) {
  for (const auto& u : usage) {
    AddUsage(u.cell->usage, u.amount, 1);
    if (u.cell->owner != nullptr) u.cell->owner->Touch(u.cell);
  }
}

void RemoveTopologyUsage(const std::vector<TasUse>& usage) {
  for (const auto& u : usage) {
    AddUsage(u.cell->usage, u.amount, -1);
    if (u.cell->owner != nullptr) u.cell->owner->Touch(u.cell);
  }
}

bool TopologyAssigner::TasOnly(const ClusterQueueNode& cq) const {
  bool any = false;
  for (const auto& group : cq.resource_groups()) {
    for (const auto& f : group.flavors) {
      auto it = flavors_.find(f.name);
      if (it == flavors_.end() || it->second.topology_name.empty()) return false;
      any = true;
    }
  }
  return any;
}

bool TopologyAssigner::Requested(const api::PodSet& ps, const ClusterQueueNode& cq) const {
  return ExplicitlyRequested(ps) || TasOnly(cq);
}

bool TopologyAssigner::AnyRequested(const WorkloadInfo& wl, const ClusterQueueNode& cq) const {
  for (const auto& ps : wl.object.spec.pod_sets) {
    if (ExplicitlyRequested(ps)) return true;
  }
  return !wl.object.spec.pod_sets.empty() && TasOnly(cq);
}

std::string TopologyAssigner::FlavorMismatch(const ClusterQueueNode& cq, const api::PodSet& ps,
                                             const PodSetInfo& info,
                                             const api::ResourceFlavor& flavor,
                                             const std::vector<std::string>& covered) const {
  const std::string& name = flavor.metadata.name;
  if (ExplicitlyRequested(ps)) {
    if (flavor.topology_name.empty()) {
      // A plain flavor may still give resources the topology flavor does not.
      bool overlap = false;
      for (const auto& [res, v] : info.per_pod) {
        if (std::find(covered.begin(), covered.end(), res) != covered.end()) overlap = true;
      }
      if (!overlap) return "";
      return "Flavor \"" + name + "\" does not support TopologyAwareScheduling";
    }
    const TopologyTree* tree = tas_.Tree(name);
    if (tree == nullptr) return "Flavor \"" + name + "\" information missing in TAS cache";
    if (!TopologyPlacer::HasLevels(*tree, &*ps.topology_request)) {
      return "Flavor \"" + name + "\" does not contain the requested level";
    }
    return "";
  }
  if (TasOnly(cq)) {
    // Implied: every flavor has a topology; the tree must exist to place it.
    if (tas_.Tree(name) == nullptr)
      return "Flavor \"" + name + "\" information missing in TAS cache";
    return "";
  }
  if (!flavor.topology_name.empty()) {
    return "Flavor \"" + name + "\" supports only TopologyAwareScheduling";
  }
  return "";
}

std::optional<TopologyAssigner::Failure> TopologyAssigner::Place(const WorkloadInfo& wl,
                                                                 const ClusterQueueNode& cq,
                                                                 Assignment& a,
                                                                 bool simulate_empty) {
  assumed_.clear();
  const bool tas_only = TasOnly(cq);
  const auto& spec_sets = wl.object.spec.pod_sets;
  const size_t n = std::min(a.pod_sets.size(), spec_sets.size());
  // Each topology pod set's flavor and request; "" for the others.
  std::vector<std::string> flavor(n);
  std::vector<TopologyPodSetRequest> req(n);
  auto group_of = [&](size_t i) -> const std::string* {
    const auto& tr = spec_sets[i].topology_request;
    return tr && tr->pod_set_group_name ? &*tr->pod_set_group_name : nullptr;
  };
  for (size_t i = 0; i < n; ++i) {
    PodSetAssignmentResult& psa = a.pod_sets[i];
    psa.topology.reset();
    const api::PodSet& ps = spec_sets[i];
    const bool explicit_tas = ExplicitlyRequested(ps);
    if (!explicit_tas && !tas_only) continue;
    if (psa.failed || psa.count == 0) continue;
    for (const auto& [res, ra] : psa.flavors) {
      if (tas_.Tree(ra.flavor) == nullptr) continue;
      if (!flavor[i].empty() && flavor[i] != ra.flavor) {
        return Failure{i, "more than one flavor with a topology assigned to pod set " + ps.name};
      }
      flavor[i] = ra.flavor;
    }
    if (flavor[i].empty() && !psa.flavors.empty()) {
      return Failure{i, "no flavor with a topology assigned to pod set " + ps.name};
    }
    req[i].request = explicit_tas ? &*ps.topology_request : nullptr;
    req[i].implied = !explicit_tas;
    req[i].count = psa.count;
    req[i].per_pod = tas_.Vector(wl.pod_sets[i].per_pod);
    req[i].spec = &ps.template_.spec;
  }
  // A pod set with no requests in a group takes its partner's flavor (a
  // LeaderWorkerSet leader asking for nothing still needs a place).
  for (size_t i = 0; i < n; ++i) {
    if (!flavor[i].empty() || req[i].count == 0 || group_of(i) == nullptr) continue;
    for (size_t j = 0; j < n; ++j) {
      if (j != i && group_of(j) && *group_of(j) == *group_of(i) && !flavor[j].empty()) {
        flavor[i] = flavor[j];
      }
    }
  }
  std::vector<bool> done(n, false);
  auto record = [&](size_t i, const TopologyTree& tree, api::TopologyAssignment ta,
                    const std::vector<std::pair<int, int32_t>>& leaves) {
    PodSetTopology out;
    out.flavor = flavor[i];
    out.assignment = std::move(ta);
    for (const auto& [leaf, pods] : leaves) {
      const TopologyLeaf& l = tree.leaves[static_cast<size_t>(leaf)];
      TasUse use;
      use.cell = l.cell;
      AddUsage(use.amount, req[i].per_pod, pods);
      out.usage.push_back(std::move(use));
      out.leaves.push_back(&l);
    }
    a.pod_sets[i].topology = std::move(out);
  };
  auto assume = [&](size_t i) {
    for (const auto& u : a.pod_sets[i].topology->usage) AddUsage(assumed_[u.cell], u.amount, 1);
  };
  for (size_t i = 0; i < n; ++i) {
    if (done[i] || flavor[i].empty()) continue;
    done[i] = true;
    // Kueue's pod set groups: two pod sets of one flavor with the same
    // podSetGroupName are placed together, the smaller one as the leader.
    size_t partner = n;
    if (const std::string* g = group_of(i)) {
      for (size_t j = i + 1; j < n; ++j) {
        if (!done[j] && flavor[j] == flavor[i] && group_of(j) && *group_of(j) == *g) {
          partner = j;
          break;
        }
      }
    }
    const TopologyTree& tree = *tas_.Tree(flavor[i]);
    std::string reason;
    if (partner == n) {
      std::optional<TopologyPlacement> placed =
          placer_.Place(tree, req[i], assumed_, simulate_empty, &reason);
      if (!placed) return Failure{i, std::move(reason)};
      record(i, tree, std::move(placed->assignment), placed->leaves);
      assume(i);
      continue;
    }
    done[partner] = true;
    size_t workers = i, leader = partner;
    if (req[leader].count > req[workers].count) std::swap(workers, leader);
    std::optional<TopologyPlacement> placed =
        placer_.Place(tree, req[workers], assumed_, simulate_empty, &reason, &req[leader]);
    if (!placed) return Failure{i, std::move(reason)};
    record(workers, tree, std::move(placed->assignment), placed->leaves);
    record(leader, tree, std::move(placed->leader_assignment), placed->leader_leaves);
    assume(workers);
    assume(leader);
  }
  return std::nullopt;
}

bool TopologyAssigner::StillFits(const Assignment& a) const {
  std::map<const TopologyLeaf*, std::vector<int64_t>> want;
  for (const auto& psa : a.pod_sets) {
    if (!psa.topology) continue;
    for (size_t k = 0; k < psa.topology->usage.size(); ++k) {
      AddUsage(want[psa.topology->leaves[k]], psa.topology->usage[k].amount, 1);
    }
  }
  for (const auto& [leaf, amount] : want) {
    for (size_t r = 0; r < amount.size(); ++r) {
      if (amount[r] <= 0) continue;
      const int64_t cap = r < leaf->capacity.size() ? leaf->capacity[r] : 0;
      const int64_t used = r < leaf->cell->usage.size() ? leaf->cell->usage[r] : 0;
      if (cap - used < amount[r]) return false;
    }
  }
  return true;
}

bool TopologyAssigner::HasTopology(const Assignment& a) {
  return std::any_of(a.pod_sets.begin(), a.pod_sets.end(),
                     [](const PodSetAssignmentResult& p) { return p.topology.has_value(); });
}

std::vector<TasUse> TopologyUsageOf(TasState& tas, const WorkloadInfo& wl,
                                    const api::Admission& admission) {
  std::vector<TasUse> out;
  for (const auto& psa : admission.pod_set_assignments) {
    if (!psa.topology_assignment) continue;
    const PodSetInfo* info = nullptr;
    for (const auto& p : wl.pod_sets) {
      if (p.name == psa.name) info = &p;
    }
    if (info == nullptr) continue;
    const std::vector<int64_t> per_pod = tas.Vector(info->per_pod);
    for (const auto& d : psa.topology_assignment->domains) {
      TasUse use;
      use.cell = tas.Cell(LeafIdOf(*psa.topology_assignment, d));
      AddUsage(use.amount, per_pod, d.count);
      out.push_back(std::move(use));
    }
  }
  return out;
}

}  // namespace kuota::engine
