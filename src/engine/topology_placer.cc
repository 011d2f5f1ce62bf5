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

int TopologyPlacer::BestFit(const std::vector<int>& domains, size_t from, int32_t needed,
                            bool slices) const {
  int best = domains[from];
  int32_t best_count = INT32_MAX;
  bool found = false;
  for (size_t i = from; i < domains.size(); ++i) {
    const State& s = st_[static_cast<size_t>(domains[i])];
    const int32_t c = slices ? s.slices : s.pods;
    if (c >= needed && c < best_count) {
      best = domains[i];
      best_count = c;
      found = true;
    }
  }
  return found ? best : domains[from];
}

std::vector<int> TopologyPlacer::Minimum(const std::vector<int>& domains, int32_t count,
                                         int32_t slice_size, bool least_free, bool slices) {
  std::vector<int> result;
  int32_t remaining = slices ? count / slice_size : count;
  for (size_t i = 0; i < domains.size(); ++i) {
    int dom = domains[i];
    auto units = [&](int d) -> int32_t& {
      State& s = st_[static_cast<size_t>(d)];
      return slices ? s.slices : s.pods;
    };
    if (!least_free && units(dom) >= remaining) dom = BestFit(domains, i, remaining, slices);
    State& s = st_[static_cast<size_t>(dom)];
    if (units(dom) >= remaining) {
      units(dom) = remaining;
      s.pods = slices ? remaining * slice_size : remaining;
      result.push_back(dom);
      return result;
    }
    if (slices) s.pods = s.slices * slice_size;
    remaining -= units(dom);
    result.push_back(dom);
  }
  return result;  // not reached when the level search said the domains hold the pods
}

std::optional<TopologyPlacement> TopologyPlacer::Place(const TopologyTree& tree,
                                                       const TopologyPodSetRequest& req,
                                                       const AssumedUsage& assumed,
                                                       bool simulate_empty, std::string* reason) {
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
  st_.assign(tree.domains.size(), State{});
  int excluded_selector = 0;
  int excluded_affinity = 0;
  std::map<std::string, int> excluded_taints;
  std::map<size_t, int> excluded_resources;
  std::vector<int64_t> free;
  for (const TopologyLeaf& leaf : tree.leaves) {
    // Kueue's order: taints, then nodeSelector, then required affinity.
    if (leaf.node != nullptr && req.spec != nullptr) {
      std::string taint;
      if (!TaintsTolerated(*leaf.node, *req.spec, tree.tolerations, &taint)) {
        ++excluded_taints[taint];
        continue;
      }
      if (!NodeSelectorMatches(*req.spec, leaf.node->metadata.labels)) {
        ++excluded_selector;
        continue;
      }
      if (!NodeAffinityMatches(*req.spec, leaf.node->metadata.labels)) {
        ++excluded_affinity;
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
    const int32_t n = CountIn(req.per_pod, free, &limiting);
    if (n == 0 && limiting != SIZE_MAX) ++excluded_resources[limiting];
    st_[static_cast<size_t>(leaf.domain)].pods = n;
  }
  // Domains are stored parents first: roll up from the end.
  for (size_t i = tree.domains.size(); i-- > 0;) {
    const TopologyDomain& d = tree.domains[i];
    State& s = st_[i];
    if (d.leaf < 0) {
      int64_t pods = 0, slices = 0;
      for (int c : d.children) {
        pods += st_[static_cast<size_t>(c)].pods;
        slices += st_[static_cast<size_t>(c)].slices;
      }
      s.pods = static_cast<int32_t>(std::min<int64_t>(pods, INT32_MAX));
      s.slices = static_cast<int32_t>(std::min<int64_t>(slices, INT32_MAX));
    }
    if (d.level == slice_level) {
      s.slices = s.pods / slice_size;
    } else if (d.level > slice_level) {
      s.slices = 0;
    }
  }
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
  int fit_level = level;
  std::vector<int> fit;
  for (int l = level;; --l) {
    const auto& at_level = tree.per_level[static_cast<size_t>(l)];
    if (at_level.empty()) {
      *reason = "no topology domains at level: " + tree.levels[static_cast<size_t>(l)];
      return std::nullopt;
    }
    std::vector<int> sorted = Sorted(at_level, least_free);
    int top = sorted.front();
    if (!least_free && st_[static_cast<size_t>(top)].slices >= slice_count) {
      top = BestFit(sorted, 0, slice_count, true);
    }
    if (least_free) {
      for (int d : sorted) {
        if (st_[static_cast<size_t>(d)].slices >= slice_count) {
          fit = {d};
          break;
        }
      }
      if (!fit.empty()) {
        fit_level = l;
        break;
      }
      if (required) return fail(st_[static_cast<size_t>(sorted.back())].pods, slice_count, l);
    }
    if (st_[static_cast<size_t>(top)].slices >= slice_count) {
      fit = {top};
      fit_level = l;
      break;
    }
    if (required) return fail(st_[static_cast<size_t>(top)].slices, slice_count, l);
    if (l > 0 && !unconstrained) continue;
    // The top level (or an unconstrained pod set's level): several domains.
    int32_t remaining = slice_count;
    for (size_t i = 0; remaining > 0 && i < sorted.size(); ++i) {
      int d = sorted[i];
      if (!least_free && st_[static_cast<size_t>(d)].slices >= remaining) {
        d = BestFit(sorted, i, remaining, true);
      }
      fit.push_back(d);
      remaining -= st_[static_cast<size_t>(d)].slices;
    }
    if (remaining > 0) return fail(slice_count - remaining, slice_count, -1);
    fit_level = l;
    break;
  }

  // Phase 2b: down the levels, as few domains as hold the pods at each.
  std::vector<int> current = Minimum(fit, req.count, slice_size, least_free, true);
  int l = fit_level;
  for (; l < std::min(n_levels - 1, slice_level); ++l) {
    std::vector<int> lower;
    for (int d : current) {
      const auto& kids = tree.domains[static_cast<size_t>(d)].children;
      lower.insert(lower.end(), kids.begin(), kids.end());
    }
    current =
        Minimum(Sorted(std::move(lower), least_free), req.count, slice_size, least_free, true);
  }
  for (; l < n_levels - 1; ++l) {
    std::vector<int> next;
    for (int d : current) {
      std::vector<int> kids = Sorted(tree.domains[static_cast<size_t>(d)].children, least_free);
      std::vector<int> chosen =
          Minimum(kids, st_[static_cast<size_t>(d)].pods, 1, least_free, false);
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
  out.assignment.levels.assign(tree.levels.begin() + static_cast<long>(first_level),
                               tree.levels.end());
  for (int d : current) {
    const int32_t pods = st_[static_cast<size_t>(d)].pods;
    if (pods <= 0) continue;
    const TopologyDomain& dom = tree.domains[static_cast<size_t>(d)];
    api::TopologyDomainAssignment a;
    a.values.assign(dom.values.begin() + static_cast<long>(first_level), dom.values.end());
    a.count = pods;
    out.assignment.domains.push_back(std::move(a));
    out.leaves.emplace_back(dom.leaf, pods);
  }
  return out;
}

}  // namespace kuota::engine
