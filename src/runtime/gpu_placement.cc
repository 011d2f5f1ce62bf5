#include "runtime/gpu_placement.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace kuota::runtime {
namespace {

std::string JoinPlacement(const std::vector<int>& indices) {
  std::string out;
  for (int i : indices) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out;
}

}  // namespace

GpuPlacer::GpuPlacer(GpuTopology topology) : topology_(std::move(topology)) {
  if (!topology_.Validate().ok()) topology_ = GpuTopology::Flat(topology_.indices);
  const size_t n = topology_.indices.size();
  const std::vector<int> machine(n, 0);
  Hierarchy both = {{"NVLink island", GpuComponents(topology_, true, std::nullopt)}};
  Hierarchy pcie;
  for (PcieLevel l : {PcieLevel::kSwitch, PcieLevel::kHostBridge, PcieLevel::kNumaNode}) {
    both.push_back({PcieLevelName(l), GpuComponents(topology_, true, l)});
    pcie.push_back({PcieLevelName(l), GpuComponents(topology_, false, l)});
  }
  both.push_back({"machine", machine});
  pcie.push_back({"machine", machine});
  hierarchies_ = {std::move(both), std::move(pcie)};
}

std::vector<GpuPlacer::Pool> GpuPlacer::Parts(const Hierarchy& h, size_t level,
                                              const Pool& pool) const {
  std::vector<Pool> parts;
  std::map<int, size_t> at;  // group -> its part
  for (int p : pool) {
    auto [it, fresh] = at.emplace(h[level].group_of[p], parts.size());
    if (fresh) parts.emplace_back();
    parts[it->second].push_back(p);
  }
  return parts;
}

size_t GpuPlacer::BestFit(const Hierarchy& h, size_t level, const std::vector<Pool>& parts,
                          const Pool& pool) const {
  // (free here, free in each wider group, lowest position): smallest wins.
  auto key = [&](const Pool& part) {
    std::vector<int> k = {static_cast<int>(part.size())};
    for (size_t m = level + 1; m < h.size(); ++m) {
      const int g = h[m].group_of[part.front()];
      k.push_back(static_cast<int>(
          std::count_if(pool.begin(), pool.end(), [&](int p) { return h[m].group_of[p] == g; })));
    }
    k.push_back(part.front());
    return k;
  };
  size_t best = 0;
  std::vector<int> best_key = key(parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<int> k = key(parts[i]);
    if (k < best_key) {
      best = i;
      best_key = std::move(k);
    }
  }
  return best;
}

GpuPlacer::Pool GpuPlacer::Pick(const Pool& pool, int k, size_t hierarchy) const {
  if (k <= 0) return {};
  if (static_cast<int>(pool.size()) <= k) return pool;
  const Hierarchy& h = hierarchies_[hierarchy];
  for (size_t l = 0; l < h.size(); ++l) {
    std::vector<Pool> holders;
    for (Pool& part : Parts(h, l, pool)) {
      if (static_cast<int>(part.size()) >= k) holders.push_back(std::move(part));
    }
    if (holders.empty()) continue;
    Pool best = std::move(holders[BestFit(h, l, holders, pool)]);
    if (static_cast<int>(best.size()) == k) return best;
    return Spread(best, k, hierarchy, l);
  }
  return Pool(pool.begin(), pool.begin() + k);  // not reached: the machine holds the pool
}

GpuPlacer::Pool GpuPlacer::Spread(const Pool& pool, int k, size_t hierarchy, size_t level) const {
  const Hierarchy& h = hierarchies_[hierarchy];
  std::vector<Pool> children;
  size_t child_level = 0;
  for (size_t m = level; m-- > 0;) {
    children = Parts(h, m, pool);
    if (children.size() > 1) {
      child_level = m;
      break;
    }
    children.clear();
  }
  if (children.empty()) {
    // No closer level splits it: the next hierarchy decides, else the lowest.
    if (hierarchy + 1 < hierarchies_.size()) return Pick(pool, k, hierarchy + 1);
    return Pool(pool.begin(), pool.begin() + k);
  }
  Pool out;
  while (k > 0 && !children.empty()) {
    std::vector<Pool> holders;
    for (const Pool& c : children) {
      if (static_cast<int>(c.size()) >= k) holders.push_back(c);
    }
    if (!holders.empty()) {
      Pool rest = Pick(holders[BestFit(h, child_level, holders, pool)], k, hierarchy);
      out.insert(out.end(), rest.begin(), rest.end());
      break;
    }
    // None holds the rest: take the one with most free whole (ties: lowest).
    size_t largest = 0;
    for (size_t i = 1; i < children.size(); ++i) {
      if (children[i].size() > children[largest].size()) largest = i;
    }
    out.insert(out.end(), children[largest].begin(), children[largest].end());
    k -= static_cast<int>(children[largest].size());
    children.erase(children.begin() + static_cast<std::ptrdiff_t>(largest));
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t GpuPlacer::Enclosing(const Hierarchy& h, const Pool& chosen, Pool* group) const {
  for (size_t l = 0; l < h.size(); ++l) {
    const int g = h[l].group_of[chosen.front()];
    bool all =
        std::all_of(chosen.begin(), chosen.end(), [&](int p) { return h[l].group_of[p] == g; });
    if (!all) continue;
    Pool members;
    for (size_t p = 0; p < h[l].group_of.size(); ++p) {
      if (h[l].group_of[p] == g) members.push_back(static_cast<int>(p));
    }
    if (members.size() < 2 && l + 1 < h.size()) continue;  // a group of one says nothing
    *group = std::move(members);
    return l;
  }
  return h.size() - 1;
}

std::string GpuPlacer::Reason(const Pool& chosen, const Pool& pool) const {
  std::vector<int> gpus;
  for (int p : chosen) gpus.push_back(topology_.indices[p]);
  const std::string k = std::to_string(chosen.size());
  const std::string who = (chosen.size() == 1 ? "GPU " : "GPUs ") + JoinPlacement(gpus);
  if (!topology_.known) return who + ": lowest free (no GPU topology known)";
  auto named = [&](const Hierarchy& h, size_t level, const Pool& group) {
    std::vector<int> members;
    for (int p : group) members.push_back(topology_.indices[p]);
    return h[level].name + " " + FormatGpuRanges(members);
  };
  auto free_in = [&](const Pool& group) {
    return std::count_if(pool.begin(), pool.end(), [&](int p) {
      return std::find(group.begin(), group.end(), p) != group.end();
    });
  };
  const Hierarchy& both = hierarchies_[0];
  const Hierarchy& pcie = hierarchies_[1];
  Pool island, bus;
  const size_t il = Enclosing(both, chosen, &island);
  const size_t pl = Enclosing(pcie, chosen, &bus);
  const bool on_nvlink = il == 0;
  // A PCIe group is named only where it says more than the island does.
  const bool on_pcie = pl + 1 < pcie.size() && (!on_nvlink || bus.size() < island.size());
  if (!on_nvlink && !on_pcie) {
    if (chosen.size() == 1) return who + ": shares no link with another GPU";
    return who + " span the machine (no closer group had " + k + " free)";
  }
  std::string text = who + (chosen.size() == 1 ? " is in " : " share ");
  if (on_nvlink) text += named(both, il, island) + (on_pcie ? " and " : "");
  if (on_pcie) text += named(pcie, pl, bus);
  const Pool& fit = on_nvlink ? island : bus;
  return text + " (best fit: it had " + std::to_string(free_in(fit)) + " free)";
}

Result<std::vector<GpuGrant>> GpuPlacer::Place(const std::set<int>& free,
                                               const std::vector<GpuRequest>& requests) const {
  int total = 0;
  std::vector<size_t> order;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].count < 0) {
      return Status::Invalid("GPU count " + std::to_string(requests[i].count) + " for " +
                             requests[i].owner + " is negative");
    }
    if (requests[i].count == 0) continue;
    total += requests[i].count;
    order.push_back(i);
  }
  Pool pool;
  for (int index : free) {
    if (int p = topology_.PositionOf(index); p >= 0) pool.push_back(p);
  }
  std::sort(pool.begin(), pool.end());
  if (total > static_cast<int>(pool.size())) {
    return Status::Unavailable("asked for " + std::to_string(total) + ", only " +
                               std::to_string(pool.size()) + " of " +
                               std::to_string(topology_.indices.size()) + " free");
  }
  std::vector<GpuGrant> grants;
  if (order.empty()) return grants;
  // The gang's region: where its total would go.
  const Hierarchy& both = hierarchies_[0];
  Pool region = pool;
  size_t region_level = both.size() - 1;
  if (order.size() > 1) {
    for (size_t l = 0; l < both.size(); ++l) {
      std::vector<Pool> holders;
      for (Pool& part : Parts(both, l, pool)) {
        if (static_cast<int>(part.size()) >= total) holders.push_back(std::move(part));
      }
      if (holders.empty()) continue;
      region = std::move(holders[BestFit(both, l, holders, pool)]);
      region_level = l;
      break;
    }
  }
  std::string gang;  // said only where a topology made the region matter
  if (order.size() > 1 && topology_.known) {
    Pool whole;
    for (size_t p = 0; p < both[region_level].group_of.size(); ++p) {
      if (both[region_level].group_of[p] == both[region_level].group_of[region.front()]) {
        whole.push_back(static_cast<int>(p));
      }
    }
    std::vector<int> members;
    for (int p : whole) members.push_back(topology_.indices[p]);
    gang = "; its gang of " + std::to_string(order.size()) + " pods (" + std::to_string(total) +
           " GPUs) " +
           (region_level + 1 < both.size()
                ? "is kept in " + both[region_level].name + " " + FormatGpuRanges(members)
                : "spans the machine");
  }
  // Most GPUs first; ties in the order given.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].count > requests[b].count; });
  std::vector<GpuGrant> by_request(requests.size());
  for (size_t i : order) {
    Pool chosen = Pick(region, requests[i].count, 0);
    GpuGrant g;
    g.owner = requests[i].owner;
    for (int p : chosen) g.indices.push_back(topology_.indices[p]);
    g.reason = Reason(chosen, region) + gang;
    Pool rest;
    std::set_difference(region.begin(), region.end(), chosen.begin(), chosen.end(),
                        std::back_inserter(rest));
    region = std::move(rest);
    by_request[i] = std::move(g);
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].count > 0) grants.push_back(std::move(by_request[i]));
  }
  return grants;
}

}  // namespace kuota::runtime
