#include "engine/topology_placer.h"

#include "api/quantity.h"

#include <algorithm>
#include <climits>
#include <map>

namespace kuota::engine {
namespace {

// How many times `per_pod` fits in `free` (0 when a requested resource is
// missing or short); `limiting` is the resource that decides it.
int32_t CountIn(const std::vector<int64_t>& per_pod, const std::vector<int64_t>& free,
                size_t* limiting) {
  int64_t best = INT32_MAX;
  *limiting = SIZE_MAX;
  for (size_t i = 0; i < per_pod.size(); ++i) {
    if (per_pod[i] == 0) continue;
    const int64_t cap = i < free.size() ? free[i] : 0;
    const int64_t n = std::max<int64_t>(0, std::min<int64_t>(cap / per_pod[i], INT32_MAX));
    if (n < best) {
      best = n;
      *limiting = i;
    }
  }
  return static_cast<int32_t>(best);
}

std::string NotFit(const std::string& topology, int32_t fit, int32_t total, int32_t slice_size) {
  const char* unit = slice_size == 1 ? "pod" : "slice";
  if (fit <= 0) {
    return "topology \"" + topology + "\" doesn't allow to fit any of " + std::to_string(total) +
           " " + unit + "(s)";
  }
  return "topology \"" + topology + "\" allows to fit only " + std::to_string(fit) + " out of " +
         std::to_string(total) + " " + unit + "(s)";
}

}  // namespace

void AddUsage(std::vector<int64_t>& usage, const std::vector<int64_t>& per_pod, int64_t k) {
  if (usage.size() < per_pod.size()) usage.resize(per_pod.size(), 0);
  for (size_t i = 0; i < per_pod.size(); ++i) usage[i] += per_pod[i] * k;
}

bool TopologyPlacer::HasLevels(const TopologyTree& tree, const api::PodSetTopologyRequest* req) {
  if (req == nullptr) return true;  // implied: the lowest level
  for (const auto* key : {&req->required, &req->preferred, &req->pod_set_slice_required_topology}) {
    if (*key && tree.LevelIndex(**key) < 0) return false;
  }
  return true;
}

std::vector<int> TopologyPlacer::Sorted(std::vector<int> domains, bool least_free) const {
  const TopologyTree& t = *tree_;
  std::sort(domains.begin(), domains.end(), [&](int a, int b) {
    const State& x = st_[static_cast<size_t>(a)];
    const State& y = st_[static_cast<size_t>(b)];
    if (x.slices != y.slices) return least_free ? x.slices < y.slices : x.slices > y.slices;
    if (x.pods != y.pods) return x.pods < y.pods;
    const auto& da = t.domains[static_cast<size_t>(a)];
    const auto& db = t.domains[static_cast<size_t>(b)];
    if (t.lowest_is_hostname && da.parent == db.parent && da.leaf >= 0 && db.leaf >= 0) {
      return da.values.back() < db.values.back();
    }
    return da.values < db.values;
  });
  return domains;
}

bool TopologyPlacer::BeforeWithLeader(int a, int b, bool least_free) const {
  const TopologyTree& t = *tree_;
  const State& x = st_[static_cast<size_t>(a)];
  const State& y = st_[static_cast<size_t>(b)];
  if (x.leaders != y.leaders) return x.leaders > y.leaders;
  if (x.slices_wl != y.slices_wl) {
    return least_free ? x.slices_wl < y.slices_wl : x.slices_wl > y.slices_wl;
  }
  if (x.pods_wl != y.pods_wl) return x.pods_wl < y.pods_wl;
  const auto& da = t.domains[static_cast<size_t>(a)];
  const auto& db = t.domains[static_cast<size_t>(b)];
  if (t.lowest_is_hostname && da.parent == db.parent && da.leaf >= 0 && db.leaf >= 0) {
    return da.values.back() < db.values.back();
  }
  return da.values < db.values;
}

std::vector<int> TopologyPlacer::SortedWithLeader(std::vector<int> domains, bool least_free) const {
  std::sort(domains.begin(), domains.end(),
            [&](int a, int b) { return BeforeWithLeader(a, b, least_free); });
  return domains;
}

int TopologyPlacer::SingleFit(const std::vector<int>& domains, int32_t slice_count, int32_t leaders,
                              bool least_free) const {
  auto count = [&](int d) {
    const State& s = st_[static_cast<size_t>(d)];
    return leaders > 0 ? s.slices_wl : s.slices;
  };
  int best = -1;
  if (least_free) {  // the first, in ascending order, that holds it
    for (int d : domains) {
      if (st_[static_cast<size_t>(d)].leaders < leaders || count(d) < slice_count) continue;
      if (best < 0 || BeforeWithLeader(d, best, true)) best = d;
    }
    return best;
  }
  int top = -1;  // the first in descending order: if it cannot hold it, none can
  for (int d : domains) {
    if (top < 0 || BeforeWithLeader(d, top, false)) top = d;
  }
  const State& t = st_[static_cast<size_t>(top)];
  if (t.slices_wl < slice_count || t.leaders < leaders) return -1;
  for (int d : domains) {  // the tightest that holds it, the first of equals
    if (st_[static_cast<size_t>(d)].leaders < leaders || count(d) < slice_count) continue;
    if (best < 0 || count(d) < count(best) ||
        (count(d) == count(best) && BeforeWithLeader(d, best, false))) {
      best = d;
    }
  }
  return best;
}

int TopologyPlacer::BestFit(const std::vector<int>& domains, size_t from, int32_t needed,
                            int32_t leaders, bool slices) const {
  int best = domains[from];
  int32_t best_count = INT32_MAX;
  bool found = false;
  for (size_t i = from; i < domains.size(); ++i) {
    const State& s = st_[static_cast<size_t>(domains[i])];
    if (s.leaders < leaders) continue;
    const int32_t c =
        slices ? (leaders > 0 ? s.slices_wl : s.slices) : (leaders > 0 ? s.pods_wl : s.pods);
    if (c >= needed && c < best_count) {  // the first of the tightest
      best = domains[i];
      best_count = c;
      found = true;
    }
  }
  return found ? best : domains[from];
}

std::vector<int> TopologyPlacer::PrioritizeLeader(std::vector<int> domains, int32_t count,
                                                  int32_t leaders, int32_t slice_size,
                                                  bool slices) const {
  if (leaders == 0 || domains.size() < 2) return domains;
  const int32_t required = slices ? count / slice_size : count;
  int64_t available = 0;
  for (int d : domains) {
    const State& s = st_[static_cast<size_t>(d)];
    available += slices ? s.slices : s.pods;
  }
  // The first domain that can take the leader without leaving the workers
  // short goes first; the others keep their order.
  for (size_t i = 0; i < domains.size(); ++i) {
    const State& s = st_[static_cast<size_t>(domains[i])];
    if (s.leaders < leaders) continue;
    const int32_t penalty = slices ? s.slices - s.slices_wl : s.pods - s.pods_wl;
    if (available - penalty < required) continue;
    std::rotate(domains.begin(), domains.begin() + static_cast<long>(i),
                domains.begin() + static_cast<long>(i) + 1);
    return domains;
  }
  return domains;
}

std::vector<int> TopologyPlacer::Minimum(std::vector<int> domains, int32_t count, int32_t leaders,
                                         int32_t slice_size, bool least_free, bool slices) {
  domains = PrioritizeLeader(std::move(domains), count, leaders, slice_size, slices);
  std::vector<int> result;
  int32_t remaining = slices ? count / slice_size : count;
  int32_t remaining_leaders = leaders;
  const int32_t unit = slices ? slice_size : 1;
  for (size_t i = 0; i < domains.size(); ++i) {
    int dom = domains[i];
    if (remaining_leaders > 0) {
      // Kueue's consumeWithLeaders: the leader goes with the first workers.
      auto with_leader = [&](int d) -> int32_t& {
        State& x = st_[static_cast<size_t>(d)];
        return slices ? x.slices_wl : x.pods_wl;
      };
      auto primary = [&](int d) -> int32_t& {
        State& x = st_[static_cast<size_t>(d)];
        return slices ? x.slices : x.pods;
      };
      if (!least_free && with_leader(dom) >= remaining &&
          st_[static_cast<size_t>(dom)].leaders >= remaining_leaders) {
        dom = BestFit(domains, i, remaining, remaining_leaders, slices);
      }
      State& s = st_[static_cast<size_t>(dom)];
      if (with_leader(dom) >= remaining && s.leaders >= remaining_leaders) {
        primary(dom) = remaining;
        s.leaders = remaining_leaders;
        s.pods = remaining * unit;
        result.push_back(dom);
        return result;
      }
      if (with_leader(dom) > remaining) with_leader(dom) = remaining;
      if (s.leaders > remaining_leaders) s.leaders = remaining_leaders;
      primary(dom) = with_leader(dom);
      s.pods = with_leader(dom) * unit;
      remaining_leaders -= s.leaders;
      remaining -= with_leader(dom);
      result.push_back(dom);
      continue;
    }
    auto units = [&](int d) -> int32_t& {
      State& x = st_[static_cast<size_t>(d)];
      return slices ? x.slices : x.pods;
    };
    if (!least_free && units(dom) >= remaining) dom = BestFit(domains, i, remaining, 0, slices);
    State& s = st_[static_cast<size_t>(dom)];
    s.leaders = 0;
    if (units(dom) >= remaining) {
      units(dom) = remaining;
      s.pods = remaining * unit;
      result.push_back(dom);
      return result;
    }
    s.pods = units(dom) * unit;
    remaining -= units(dom);
    result.push_back(dom);
  }
  return result;  // not reached when the level search said the domains hold the pods
}

void TopologyPlacer::Fill(const TopologyTree& tree, const TopologyPodSetRequest& req,
                          const TopologyPodSetRequest* leader, const AssumedUsage& assumed,
                          bool simulate_empty, int32_t slice_size, int slice_level,
                          std::vector<int32_t>* leaf_state, Exclusions* ex) {
  tree_ = &tree;
  st_.assign(tree.domains.size(), State{});
  if (leaf_state != nullptr) leaf_state->assign(tree.leaves.size(), kLeafFits);
  std::vector<int64_t> free;
  for (size_t li = 0; li < tree.leaves.size(); ++li) {
    const TopologyLeaf& leaf = tree.leaves[li];
    auto exclude = [&] {
      if (leaf_state != nullptr) (*leaf_state)[li] = kLeafExcluded;
    };
    // Kueue's order: taints, then nodeSelector, then required affinity.
    if (leaf.node != nullptr && req.spec != nullptr) {
      std::string taint;
      if (!TaintsTolerated(*leaf.node, *req.spec, tree.tolerations, &taint)) {
        ++ex->taints[taint];
        exclude();
        continue;
      }
      if (!NodeSelectorMatches(*req.spec, leaf.node->metadata.labels)) {
        ++ex->selector;
        exclude();
        continue;
      }
      if (!NodeAffinityMatches(*req.spec, leaf.node->metadata.labels)) {
        ++ex->affinity;
        exclude();
        continue;
      }
    }
    free = leaf.capacity;
    if (free.size() < req.per_pod.size()) free.resize(req.per_pod.size(), 0);
    if (!simulate_empty) {
      for (size_t i = 0; i < leaf.cell->usage.size() && i < free.size(); ++i) {
        free[i] -= leaf.cell->usage[i];
      }
    }
    if (auto it = assumed.find(leaf.cell); it != assumed.end()) {
      for (size_t i = 0; i < it->second.size() && i < free.size(); ++i) free[i] -= it->second[i];
    }
    size_t limiting = SIZE_MAX;
    State& ls = st_[static_cast<size_t>(leaf.domain)];
    ls.pods = CountIn(req.per_pod, free, &limiting);
    if (ls.pods == 0 && limiting != SIZE_MAX) {
      ++ex->resources[limiting];
      if (leaf_state != nullptr) (*leaf_state)[li] = static_cast<int32_t>(limiting);
    }
    ls.pods_wl = ls.pods;
    if (leader != nullptr) {
      size_t unused = 0;
      if (free.size() < leader->per_pod.size()) free.resize(leader->per_pod.size(), 0);
      if (CountIn(leader->per_pod, free, &unused) > 0) {
        ls.leaders = 1;
        for (size_t i = 0; i < leader->per_pod.size(); ++i) free[i] -= leader->per_pod[i];
      }
      ls.pods_wl = CountIn(req.per_pod, free, &unused);
    }
  }
  const bool leader_required = leader != nullptr;
  // Domains are stored parents first: roll up from the end. With a leader,
  // a domain's room "with the leader" is its children's room less the
  // smallest price one of them pays to take the leader.
  for (size_t i = tree.domains.size(); i-- > 0;) {
    const TopologyDomain& d = tree.domains[i];
    State& s = st_[i];
    if (d.leaf < 0) {
      int64_t pods = 0, slices = 0;
      bool contributor = false;
      int64_t min_pod_diff = INT32_MAX, min_slice_diff = INT32_MAX;
      int32_t leaders = 0;
      for (int c : d.children) {
        const State& cs = st_[static_cast<size_t>(c)];
        pods += cs.pods;
        slices += cs.slices;
        if (!leader_required || cs.leaders > 0) {
          contributor = true;
          min_pod_diff = std::min<int64_t>(min_pod_diff, cs.pods - cs.pods_wl);
          min_slice_diff = std::min<int64_t>(min_slice_diff, cs.slices - cs.slices_wl);
        }
        leaders = std::max(leaders, cs.leaders);
      }
      s.pods = static_cast<int32_t>(std::min<int64_t>(pods, INT32_MAX));
      s.slices = static_cast<int32_t>(std::min<int64_t>(slices, INT32_MAX));
      s.pods_wl = contributor ? static_cast<int32_t>(s.pods - min_pod_diff) : 0;
      s.slices_wl = contributor ? static_cast<int32_t>(s.slices - min_slice_diff) : 0;
      s.leaders = leaders;
    }
    if (d.level == slice_level) {
      s.slices = s.pods / slice_size;
      s.slices_wl = s.pods_wl / slice_size;
    } else if (d.level > slice_level) {
      s.slices = 0;
      s.slices_wl = 0;
    }
  }
}

namespace {

// Whether a pod spec filters nodes at all (selector, affinity, tolerations),
// and a key that tells two specs' filters apart.
std::string FilterKey(const api::PodSpec* spec) {
  if (spec == nullptr) return "";
  std::string key;
  for (const auto& [k, v] : spec->node_selector) key += "s" + k + "=" + v + ";";
  if (spec->node_affinity.required_terms) {
    for (const auto& term : *spec->node_affinity.required_terms) {
      key += "t";
      for (const auto& r : term.match_expressions) {
        key += r.key + " " + r.op;
        for (const auto& v : r.values) key += "," + v;
        key += ";";
      }
    }
  }
  for (const auto& t : spec->tolerations) {
    key += "o" + t.key + " " + t.op + " " + t.value + " " + t.effect + ";";
  }
  return key;
}

// How many times `per_pod` fits in what a leaf has left; `limiting` as CountIn's.
int32_t LeafPods(const TopologyLeaf& leaf, const std::vector<int64_t>& per_pod, bool simulate_empty,
                 const std::vector<int64_t>* assumed, size_t* limiting) {
  int64_t best = INT32_MAX;
  *limiting = SIZE_MAX;
  for (size_t i = 0; i < per_pod.size(); ++i) {
    if (per_pod[i] == 0) continue;
    int64_t free = i < leaf.capacity.size() ? leaf.capacity[i] : 0;
    if (!simulate_empty && i < leaf.cell->usage.size()) free -= leaf.cell->usage[i];
    if (assumed != nullptr && i < assumed->size()) free -= (*assumed)[i];
    const int64_t n = std::max<int64_t>(0, std::min<int64_t>(free / per_pod[i], INT32_MAX));
    if (n < best) {
      best = n;
      *limiting = i;
    }
  }
  return static_cast<int32_t>(best);
}

void CountLeafState(std::map<size_t, int>& resources, int32_t state, int delta) {
  if (state < 0) return;
  auto& n = resources[static_cast<size_t>(state)];
  n += delta;
  if (n == 0) resources.erase(static_cast<size_t>(state));
}

}  // namespace

void TopologyPlacer::SetLeafPods(std::vector<State>& states, const TopologyTree& tree, int leaf,
                                 int32_t pods, int32_t slice_size, int slice_level) const {
  int d = tree.leaves[static_cast<size_t>(leaf)].domain;
  int32_t pod_delta = pods - states[static_cast<size_t>(d)].pods;
  int32_t slice_delta = 0;
  for (; d >= 0; d = tree.domains[static_cast<size_t>(d)].parent) {
    State& s = states[static_cast<size_t>(d)];
    const int level = tree.domains[static_cast<size_t>(d)].level;
    s.pods += pod_delta;
    if (level == slice_level) {
      const int32_t before = s.slices;
      s.slices = s.pods / slice_size;
      slice_delta = s.slices - before;
    } else if (level < slice_level) {
      s.slices += slice_delta;
    }
    s.pods_wl = s.pods;
    s.slices_wl = s.slices;
  }
}

void TopologyPlacer::FillCached(const TopologyTree& tree, const TopologyPodSetRequest& req,
                                const AssumedUsage& assumed, bool simulate_empty,
                                int32_t slice_size, int slice_level, Exclusions* ex) {
  if (cache_generation_ != names_->generation()) {
    cache_.clear();
    cache_generation_ = names_->generation();
  }
  std::string key(reinterpret_cast<const char*>(&tree), sizeof(&tree));
  key += simulate_empty ? 'E' : 'U';
  key += std::to_string(slice_size) + "/" + std::to_string(slice_level) + "/";
  for (int64_t v : req.per_pod) key += std::to_string(v) + ",";
  // Filters matter only where nodes are known one by one.
  if (tree.lowest_is_hostname) key += FilterKey(req.spec);
  auto [it, fresh] = cache_.try_emplace(std::move(key));
  ShapeCache& c = it->second;
  if (fresh || c.log_pos < names_->log_begin()) {
    static const AssumedUsage kNone;
    c.ex = Exclusions{};
    Fill(tree, req, nullptr, kNone, simulate_empty, slice_size, slice_level, &c.leaf_state, &c.ex);
    c.states = st_;
  } else if (!simulate_empty) {
    for (uint64_t seq = c.log_pos; seq < names_->log_end(); ++seq) {
      auto leaf = tree.leaf_of_cell.find(names_->LogAt(seq));
      if (leaf == tree.leaf_of_cell.end()) continue;
      int32_t& state = c.leaf_state[static_cast<size_t>(leaf->second)];
      if (state == kLeafExcluded) continue;
      size_t limiting = SIZE_MAX;
      const int32_t pods = LeafPods(tree.leaves[static_cast<size_t>(leaf->second)], req.per_pod,
                                    false, nullptr, &limiting);
      const int32_t now =
          pods == 0 && limiting != SIZE_MAX ? static_cast<int32_t>(limiting) : kLeafFits;
      CountLeafState(c.ex.resources, state, -1);
      CountLeafState(c.ex.resources, now, +1);
      state = now;
      SetLeafPods(c.states, tree, leaf->second, pods, slice_size, slice_level);
    }
  }
  c.log_pos = names_->log_end();
  st_ = c.states;
  *ex = c.ex;
  // Pods of this workload's earlier pod sets, on top.
  for (const auto& [cell, usage] : assumed) {
    auto leaf = tree.leaf_of_cell.find(cell);
    if (leaf == tree.leaf_of_cell.end()) continue;
    const int32_t state = c.leaf_state[static_cast<size_t>(leaf->second)];
    if (state == kLeafExcluded) continue;
    size_t limiting = SIZE_MAX;
    const int32_t pods = LeafPods(tree.leaves[static_cast<size_t>(leaf->second)], req.per_pod,
                                  simulate_empty, &usage, &limiting);
    const int32_t now =
        pods == 0 && limiting != SIZE_MAX ? static_cast<int32_t>(limiting) : kLeafFits;
    CountLeafState(ex->resources, state, -1);
    CountLeafState(ex->resources, now, +1);
    SetLeafPods(st_, tree, leaf->second, pods, slice_size, slice_level);
  }
}

std::optional<TopologyPlacement> TopologyPlacer::Place(const TopologyTree& tree,
                                                       const TopologyPodSetRequest& req,
                                                       const AssumedUsage& assumed,
                                                       bool simulate_empty, std::string* reason,
                                                       const TopologyPodSetRequest* leader) {
  tree_ = &tree;
  const api::PodSetTopologyRequest* tr = req.request;
  const int n_levels = static_cast<int>(tree.levels.size());
  const bool slice_only = tr != nullptr && !tr->required && !tr->preferred &&
                          tr->pod_set_slice_required_topology.has_value();
  std::string level_key;
  if (tr != nullptr && tr->required) {
    level_key = *tr->required;
  } else if (tr != nullptr && tr->preferred) {
    level_key = *tr->preferred;
  } else if (slice_only) {
    level_key = tree.levels.front();
  } else if ((tr != nullptr && tr->unconstrained.value_or(false)) || req.implied) {
    level_key = tree.levels.back();
  } else {
    *reason = "topology level not specified";
    return std::nullopt;
  }
  const bool required = tr != nullptr && tr->required.has_value();
  const bool unconstrained =
      (tr != nullptr && tr->unconstrained.value_or(false)) || req.implied || slice_only;
  const bool least_free = unconstrained;  // Kueue's TASProfileMixed (on by default)
  int32_t slice_size = 1;
  if (tr != nullptr && tr->pod_set_slice_required_topology) {
    slice_size = tr->pod_set_slice_size.value_or(0);
    if (slice_size <= 0) {
      *reason = "slice topology requested, but slice size not provided";
      return std::nullopt;
    }
  }
  const int level = tree.LevelIndex(level_key);
  if (level < 0) {
    *reason = "no requested topology level: " + level_key;
    return std::nullopt;
  }
  const std::string slice_key = tr != nullptr && tr->pod_set_slice_required_topology
                                    ? *tr->pod_set_slice_required_topology
                                    : tree.levels.back();
  const int slice_level = tree.LevelIndex(slice_key);
  if (slice_level < 0) {
    *reason = "no requested topology level for slices: " + slice_key;
    return std::nullopt;
  }
  if (level > slice_level) {
    *reason = "podset slice topology " + slice_key + " is above the podset topology " + level_key;
    return std::nullopt;
  }

  // Phase 1: how many pods fit in each leaf, then in each domain above.
  Exclusions ex;
  if (leader == nullptr && names_ != nullptr) {
    FillCached(tree, req, assumed, simulate_empty, slice_size, slice_level, &ex);
  } else {
    Fill(tree, req, leader, assumed, simulate_empty, slice_size, slice_level, nullptr, &ex);
  }
  const int excluded_selector = ex.selector;
  const int excluded_affinity = ex.affinity;
  const auto& excluded_taints = ex.taints;
  const auto& excluded_resources = ex.resources;
  // Kueue's message, then (Kuota's) what a user needs to read it: the
  // level that had to hold the gang, what one pod asks, and the best room.
  auto fail = [&](int32_t fit, int32_t total, int at_level) {
    *reason = NotFit(tree.topology_name, fit, total, slice_size);
    std::string pod;
    for (size_t r = 0; r < req.per_pod.size(); ++r) {
      if (req.per_pod[r] == 0 || names_ == nullptr || r >= names_->resource_count()) continue;
      const std::string& name = names_->ResourceName(r);
      if (name == "pods") continue;
      pod += (pod.empty() ? "" : ", ") + name + " " +
             api::Quantity::FromMilli(req.per_pod[r]).ToString(api::IsBinaryResource(name));
    }
    const std::string unit =
        slice_size == 1 ? "pods" : "slices of " + std::to_string(slice_size) + " pods";
    const int excluded = excluded_selector + excluded_affinity +
                         static_cast<int>(excluded_taints.size() + excluded_resources.size());
    if (excluded > 0) {
      std::vector<std::string> parts;
      if (excluded_selector > 0) {
        parts.push_back("nodeSelector: " + std::to_string(excluded_selector));
      }
      if (excluded_affinity > 0) {
        parts.push_back("affinity: " + std::to_string(excluded_affinity));
      }
      for (const auto& [t, n] : excluded_taints) {
        parts.push_back("taint \"" + t + "\": " + std::to_string(n));
      }
      for (const auto& [r, n] : excluded_resources) {
        parts.push_back("resource \"" +
                        (names_ != nullptr && r < names_->resource_count() ? names_->ResourceName(r)
                                                                           : std::string("?")) +
                        "\": " + std::to_string(n));
      }
      std::sort(parts.begin(), parts.end());
      *reason += ". Total nodes: " + std::to_string(tree.leaves.size()) + "; excluded: ";
      for (size_t i = 0; i < parts.size(); ++i) *reason += (i ? ", " : "") + parts[i];
    }
    std::string why;
    why += " (";
    if (at_level >= 0) {
      why += "no " + tree.levels[static_cast<size_t>(at_level)] + " domain has room for " +
             std::to_string(total) + " " + unit;
      if (!pod.empty()) why += " of " + pod;
      why += ": the largest free one holds " + std::to_string(std::max(fit, 0));
    } else {
      why += "the whole topology has room for " + std::to_string(std::max(fit, 0)) + " of " +
             std::to_string(total) + " " + unit;
      if (!pod.empty()) why += " of " + pod;
    }
    why += ")";
    *reason += why;
    return std::nullopt;
  };

  // Phase 2a: the level, and the domains there that hold the pod set.
  const int32_t slice_count = req.count / slice_size;
  const int32_t leader_count = leader != nullptr ? 1 : 0;
  auto at = [&](int d) -> State& { return st_[static_cast<size_t>(d)]; };
  int fit_level = level;
  std::vector<int> fit;
  for (int l = level;; --l) {
    const auto& at_level = tree.per_level[static_cast<size_t>(l)];
    if (at_level.empty()) {
      *reason = "no topology domains at level: " + tree.levels[static_cast<size_t>(l)];
      return std::nullopt;
    }
    // The common case, without sorting the level: one domain holds it all.
    // This finds the domain the sorted search below would (the tightest
    // fit for BestFit, the least free that holds it for LeastFreeCapacity).
    if (int single = SingleFit(at_level, slice_count, leader_count, least_free); single >= 0) {
      fit = {single};
      fit_level = l;
      break;
    }
    std::vector<int> sorted = SortedWithLeader(at_level, least_free);
    int top = sorted.front();
    if (!least_free && at(top).slices_wl >= slice_count && at(top).leaders >= leader_count) {
      top = BestFit(sorted, 0, slice_count, leader_count, true);
    }
    if (least_free) {
      for (int d : sorted) {
        int32_t cap = at(d).slices;
        if (leader_count > 0) {
          if (at(d).leaders < leader_count) continue;
          cap = at(d).slices_wl;
        }
        if (cap >= slice_count) {
          fit = {d};
          break;
        }
      }
      if (!fit.empty()) {
        fit_level = l;
        break;
      }
      if (required) return fail(at(sorted.back()).pods, slice_count, l);
    }
    if (at(top).slices_wl >= slice_count && at(top).leaders >= leader_count) {
      fit = {top};
      fit_level = l;
      break;
    }
    if (required) return fail(at(top).slices, slice_count, l);
    if (l > 0 && !unconstrained) continue;
    // The top level (or an unconstrained pod set's level): several domains,
    // the leader's first.
    sorted = PrioritizeLeader(std::move(sorted), req.count, leader_count, slice_size, true);
    int32_t remaining = slice_count;
    int32_t remaining_leaders = leader_count;
    size_t idx = 0;
    for (; remaining_leaders > 0 && idx < sorted.size() && at(sorted[idx]).leaders > 0; ++idx) {
      int d = sorted[idx];
      if (!least_free && at(d).slices_wl >= remaining) {
        d = BestFit(sorted, idx, remaining, remaining_leaders, true);
      }
      fit.push_back(d);
      remaining_leaders -= at(d).leaders;
      remaining -= at(d).slices_wl;
    }
    if (remaining_leaders > 0) return fail(leader_count - remaining_leaders, slice_count, -1);
    std::vector<int> rest =
        Sorted(std::vector<int>(sorted.begin() + static_cast<long>(idx), sorted.end()), least_free);
    for (size_t i = 0; remaining > 0 && i < rest.size(); ++i) {
      int d = rest[i];
      if (!least_free && at(d).slices >= remaining) d = BestFit(rest, i, remaining, 0, true);
      fit.push_back(d);
      remaining -= at(d).slices;
    }
    if (remaining > 0) return fail(slice_count - remaining, slice_count, -1);
    fit_level = l;
    break;
  }

  // Phase 2b: down the levels, as few domains as hold the pods at each.
  std::vector<int> current =
      Minimum(fit, req.count, leader_count, slice_size, least_free, /*slices=*/true);
  int l = fit_level;
  for (; l < std::min(n_levels - 1, slice_level); ++l) {
    std::vector<int> lower;
    for (int d : current) {
      const auto& kids = tree.domains[static_cast<size_t>(d)].children;
      lower.insert(lower.end(), kids.begin(), kids.end());
    }
    current = Minimum(Sorted(std::move(lower), least_free), req.count, leader_count, slice_size,
                      least_free, true);
  }
  for (; l < n_levels - 1; ++l) {
    std::vector<int> next;
    for (int d : current) {
      std::vector<int> kids = Sorted(tree.domains[static_cast<size_t>(d)].children, least_free);
      std::vector<int> chosen = Minimum(std::move(kids), at(d).pods, at(d).leaders, 1, least_free,
                                        /*slices=*/false);
      next.insert(next.end(), chosen.begin(), chosen.end());
    }
    current = std::move(next);
  }

  TopologyPlacement out;
  std::sort(current.begin(), current.end(), [&](int a, int b) {
    const auto& da = tree.domains[static_cast<size_t>(a)];
    const auto& db = tree.domains[static_cast<size_t>(b)];
    if (tree.lowest_is_hostname && da.parent == db.parent) {
      return da.values.back() < db.values.back();
    }
    return da.values < db.values;
  });
  const size_t first_level = tree.lowest_is_hostname ? static_cast<size_t>(n_levels - 1) : 0;
  auto emit = [&](int d, int32_t pods, api::TopologyAssignment& ta,
                  std::vector<std::pair<int, int32_t>>& leaves) {
    if (pods <= 0) return;
    const TopologyDomain& dom = tree.domains[static_cast<size_t>(d)];
    api::TopologyDomainAssignment a;
    a.values.assign(dom.values.begin() + static_cast<long>(first_level), dom.values.end());
    a.count = pods;
    ta.domains.push_back(std::move(a));
    leaves.emplace_back(dom.leaf, pods);
  };
  out.assignment.levels.assign(tree.levels.begin() + static_cast<long>(first_level),
                               tree.levels.end());
  out.leader_assignment.levels = out.assignment.levels;
  for (int d : current) {
    if (leader != nullptr) emit(d, at(d).leaders, out.leader_assignment, out.leader_leaves);
    emit(d, at(d).pods, out.assignment, out.leaves);
  }
  return out;
}

}  // namespace kuota::engine
