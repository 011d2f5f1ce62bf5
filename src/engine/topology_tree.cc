#include "engine/topology_tree.h"

#include <algorithm>
#include <cstdlib>

namespace kuota::engine {
namespace {

bool RequirementMatches(const api::NodeSelectorRequirement& r, const api::Labels& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  if (r.op == "In") {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  }
  if (r.op == "NotIn") {
    return !has || std::find(r.values.begin(), r.values.end(), it->second) == r.values.end();
  }
  if (r.op == "Exists") return has;
  if (r.op == "DoesNotExist") return !has;
  if (r.op == "Gt" || r.op == "Lt") {
    if (!has || r.values.size() != 1) return false;
    char* end = nullptr;
    const long long lv = std::strtoll(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0') return false;
    const long long rv = std::strtoll(r.values[0].c_str(), &end, 10);
    if (end == r.values[0].c_str() || *end != '\0') return false;
    return r.op == "Gt" ? lv > rv : lv < rv;
  }
  return false;
}

bool NodeInFlavor(const api::Node& node, const api::ResourceFlavor& flavor,
                  const std::vector<std::string>& levels) {
  const auto& labels = node.metadata.labels;
  for (const auto& [k, v] : flavor.node_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& level : levels) {
    if (labels.count(level) == 0) return false;
  }
  return true;
}

}  // namespace

bool NodeMatchesPod(const api::PodSpec& spec, const api::Labels& node_labels) {
  return NodeSelectorMatches(spec, node_labels) && NodeAffinityMatches(spec, node_labels);
}

bool NodeSelectorMatches(const api::PodSpec& spec, const api::Labels& node_labels) {
  for (const auto& [k, v] : spec.node_selector) {
    auto it = node_labels.find(k);
    if (it == node_labels.end() || it->second != v) return false;
  }
  return true;
}

bool NodeAffinityMatches(const api::PodSpec& spec, const api::Labels& node_labels) {
  const auto& terms = spec.node_affinity.required_terms;
  if (!terms || terms->empty()) return true;
  for (const auto& term : *terms) {  // terms are ORed, expressions ANDed
    bool match = true;
    for (const auto& req : term.match_expressions) {
      if (!RequirementMatches(req, node_labels)) {
        match = false;
        break;
      }
    }
    if (match) return true;
  }
  return false;
}

bool TaintsTolerated(const api::Node& node, const api::PodSpec& spec,
                     const std::vector<api::Toleration>& flavor_tolerations,
                     std::string* untolerated) {
  for (const auto& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    auto tolerates = [&](const api::Toleration& t) { return t.Tolerates(taint); };
    if (std::any_of(spec.tolerations.begin(), spec.tolerations.end(), tolerates)) continue;
    if (std::any_of(flavor_tolerations.begin(), flavor_tolerations.end(), tolerates)) continue;
    if (untolerated != nullptr) {
      *untolerated = taint.key;
      if (!taint.value.empty()) *untolerated += "=" + taint.value;
      *untolerated += ":" + taint.effect;
    }
    return false;
  }
  return true;
}

int TopologyTree::LevelIndex(std::string_view label) const {
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] == label) return static_cast<int>(i);
  }
  return -1;
}

size_t TasState::ResourceIndex(const std::string& name) {
  auto [it, inserted] = resource_index_.emplace(name, resource_names_.size());
  if (inserted) resource_names_.push_back(name);
  return it->second;
}

TasCell* TasState::Cell(const std::string& leaf_id) {
  auto& cell = cells_[leaf_id];
  if (!cell) {
    cell = std::make_unique<TasCell>();
    cell->owner = this;
  }
  return cell.get();
}

void TasState::Touch(const TasCell* cell) {
  constexpr size_t kMaxLog = 1 << 16;
  if (log_.size() >= kMaxLog) {
    log_base_ += log_.size();
    log_.clear();
  }
  log_.push_back(cell);
}

std::vector<int64_t> TasState::Vector(
    const std::vector<std::pair<std::string, int64_t>>& requests) {
  std::vector<int64_t> out;
  auto put = [&](const std::string& name, int64_t v) {
    const size_t i = ResourceIndex(name);
    if (out.size() <= i) out.resize(i + 1, 0);
    out[i] += v;
  };
  for (const auto& [name, v] : requests) {
    if (name != "pods") put(name, v);
  }
  put("pods", 1000);
  return out;
}

const TopologyTree* TasState::Tree(const std::string& flavor) const {
  auto it = trees_.find(flavor);
  return it == trees_.end() ? nullptr : it->second.get();
}

void TasState::Rebuild(const std::map<std::string, api::ResourceFlavor>& flavors,
                       const std::map<std::string, api::Topology>& topologies,
                       const std::map<std::string, api::Node>& nodes,
                       const std::map<std::string, api::Pod>& pods) {
  trees_.clear();
  ++generation_;
  active_ = false;
  for (const auto& [name, flavor] : flavors) active_ = active_ || !flavor.topology_name.empty();
  // What pods outside Kueue's quota use, by node.
  std::map<std::string, std::vector<int64_t>> pod_usage;
  for (const auto& [key, pod] : pods) {
    if (pod.node_name.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    std::vector<std::pair<std::string, int64_t>> reqs;
    for (const auto& [name, q] : api::PodRequests(pod.spec)) reqs.emplace_back(name, q.milli());
    std::vector<int64_t> v = Vector(reqs);
    auto& acc = pod_usage[pod.node_name];
    if (acc.size() < v.size()) acc.resize(v.size(), 0);
    for (size_t i = 0; i < v.size(); ++i) acc[i] += v[i];
  }
  for (const auto& [name, node] : nodes) {
    for (const auto& [res, q] : node.allocatable) ResourceIndex(res);
  }
  for (const auto& [flavor_name, flavor] : flavors) {
    if (flavor.topology_name.empty()) continue;
    auto topo = topologies.find(flavor.topology_name);
    if (topo == topologies.end() || topo->second.levels.empty()) continue;
    auto tree = std::make_unique<TopologyTree>();
    tree->topology_name = flavor.topology_name;
    tree->levels = topo->second.levels;
    tree->lowest_is_hostname = tree->levels.back() == api::kHostnameLabel;
    tree->tolerations = flavor.tolerations;
    tree->per_level.resize(tree->levels.size());
    const size_t n_levels = tree->levels.size();
    // Domains by their joined values, per level.
    std::vector<std::map<std::string, int>> index(n_levels);
    for (const auto& [node_name, node] : nodes) {
      if (node.unschedulable || !node.ready) continue;
      if (!NodeInFlavor(node, flavor, tree->levels)) continue;
      std::vector<std::string> values;
      for (const auto& level : tree->levels) values.push_back(node.metadata.labels.at(level));
      int parent = -1;
      std::string joined;
      for (size_t l = 0; l < n_levels; ++l) {
        if (l > 0) joined += ',';
        joined += values[l];
        // Hostname leaves are known by the hostname alone.
        const std::string key =
            (l + 1 == n_levels && tree->lowest_is_hostname) ? values[l] : joined;
        auto [it, inserted] = index[l].emplace(key, static_cast<int>(tree->domains.size()));
        if (inserted) {
          TopologyDomain d;
          d.values.assign(values.begin(), values.begin() + static_cast<long>(l) + 1);
          d.level = static_cast<int>(l);
          d.parent = parent;
          tree->domains.push_back(std::move(d));
          if (parent >= 0)
            tree->domains[static_cast<size_t>(parent)].children.push_back(it->second);
          tree->per_level[l].push_back(it->second);
          if (l + 1 == n_levels) {
            TopologyLeaf leaf;
            leaf.domain = it->second;
            leaf.id = key;
            leaf.cell = Cell(key);
            tree->leaf_of_cell[leaf.cell] = static_cast<int>(tree->leaves.size());
            leaf.node = tree->lowest_is_hostname ? &node : nullptr;
            tree->domains[static_cast<size_t>(it->second)].leaf =
                static_cast<int>(tree->leaves.size());
            tree->leaves.push_back(std::move(leaf));
          }
        }
        parent = it->second;
      }
      TopologyLeaf& leaf =
          tree->leaves[static_cast<size_t>(tree->domains[static_cast<size_t>(parent)].leaf)];
      if (leaf.capacity.size() < resource_names_.size())
        leaf.capacity.resize(resource_names_.size(), 0);
      for (const auto& [res, q] : node.allocatable) leaf.capacity[ResourceIndex(res)] += q.milli();
      for (const auto& t : node.taints) {
        if (t.effect == "NoSchedule" || t.effect == "NoExecute") tree->any_taints = true;
      }
      if (auto used = pod_usage.find(node_name); used != pod_usage.end()) {
        if (leaf.capacity.size() < used->second.size())
          leaf.capacity.resize(used->second.size(), 0);
        for (size_t i = 0; i < used->second.size(); ++i) leaf.capacity[i] -= used->second[i];
      }
    }
    trees_[flavor_name] = std::move(tree);
  }
}

}  // namespace kuota::engine
