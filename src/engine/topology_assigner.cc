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
  for (const auto& u : usage) AddUsage(u.cell->usage, u.amount, 1);
}

void RemoveTopologyUsage(const std::vector<TasUse>& usage) {
  for (const auto& u : usage) AddUsage(u.cell->usage, u.amount, -1);
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
  for (size_t i = 0; i < a.pod_sets.size() && i < spec_sets.size(); ++i) {
    PodSetAssignmentResult& psa = a.pod_sets[i];
    psa.topology.reset();
    const api::PodSet& ps = spec_sets[i];
    const bool explicit_tas = ExplicitlyRequested(ps);
    if (!explicit_tas && !tas_only) continue;
    if (psa.failed || psa.count == 0) continue;
    // The pod set's one topology flavor.
    std::string flavor;
    for (const auto& [res, ra] : psa.flavors) {
      if (tas_.Tree(ra.flavor) == nullptr) continue;
      if (!flavor.empty() && flavor != ra.flavor) {
        return Failure{i, "more than one flavor with a topology assigned to pod set " + ps.name};
      }
      flavor = ra.flavor;
    }
    if (flavor.empty()) {
      if (psa.flavors.empty()) continue;  // nothing requested: nothing to place
      return Failure{i, "no flavor with a topology assigned to pod set " + ps.name};
    }
    const TopologyTree& tree = *tas_.Tree(flavor);
    TopologyPodSetRequest req;
    req.request = explicit_tas ? &*ps.topology_request : nullptr;
    req.implied = !explicit_tas;
    req.count = psa.count;
    req.per_pod = tas_.Vector(wl.pod_sets[i].per_pod);
    req.spec = &ps.template_.spec;
    std::string reason;
    std::optional<TopologyPlacement> placed =
        placer_.Place(tree, req, assumed_, simulate_empty, &reason);
    if (!placed) return Failure{i, std::move(reason)};
    PodSetTopology out;
    out.flavor = flavor;
    out.assignment = std::move(placed->assignment);
    for (const auto& [leaf, pods] : placed->leaves) {
      const TopologyLeaf& l = tree.leaves[static_cast<size_t>(leaf)];
      TasUse use;
      use.cell = l.cell;
      AddUsage(use.amount, req.per_pod, pods);
      AddUsage(assumed_[l.cell], req.per_pod, pods);
      out.usage.push_back(std::move(use));
      out.leaves.push_back(&l);
    }
    psa.topology = std::move(out);
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
