// TopologyTree and TasState: topology-aware scheduling's view of capacity.
// A TopologyTree is one ResourceFlavor's nodes arranged by its Topology's
// levels (block > rack > host): domains per level, and leaves (the lowest
// level) with their free capacity. TasState keeps one tree per topology
// flavor, the usage of placed workloads per leaf (shared by every flavor
// whose tree holds that leaf, as the nodes are the same machines), and the
// resource index both use. Single-threaded (engine-owned).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/node.h"
#include "api/resource_flavor.h"
#include "api/topology.h"

namespace kuota::engine {

// The usage of topology-placed workloads on one leaf, milli-units by
// resource index ("pods" counts 1000 per pod). Lives as long as TasState.
class TasState;
struct TasCell {
  std::vector<int64_t> usage;
  TasState* owner = nullptr;  // told of every change (placement caches read the log)
};

struct TopologyDomain {
  std::vector<std::string> values;  // one per level from the top to this domain's
  int level = 0;
  int parent = -1;
  std::vector<int> children;
  int leaf = -1;  // index into leaves for the lowest level
};

struct TopologyLeaf {
  int domain = 0;
  std::string id;  // hostname (hostname-lowest topologies) or the values joined by ","
  std::vector<int64_t> capacity;    // allocatable less non-topology pods, by resource index
  TasCell* cell = nullptr;          // borrowed from TasState
  const api::Node* node = nullptr;  // hostname-lowest topologies: the node (borrowed)
};

class TopologyTree {
 public:
  std::string topology_name;
  std::vector<std::string> levels;  // node labels, highest first
  bool lowest_is_hostname = false;
  std::vector<TopologyDomain> domains;
  std::vector<std::vector<int>> per_level;  // domain indices per level
  std::vector<TopologyLeaf> leaves;
  std::vector<api::Toleration> tolerations;  // the flavor's
  bool any_taints = false;                   // some node has a NoSchedule/NoExecute taint
  std::unordered_map<const TasCell*, int> leaf_of_cell;

  int LevelIndex(std::string_view label) const;
};

class TasState {
 public:
  // Rebuilds every flavor's tree from the objects (usage cells are kept).
  void Rebuild(const std::map<std::string, api::ResourceFlavor>& flavors,
               const std::map<std::string, api::Topology>& topologies,
               const std::map<std::string, api::Node>& nodes,
               const std::map<std::string, api::Pod>& pods);

  // The tree of a flavor with a topology, or null.
  const TopologyTree* Tree(const std::string& flavor) const;
  // A flavor names a topology (whether or not the Topology exists yet).
  bool IsTopologyFlavor(const api::ResourceFlavor& flavor) const {
    return !flavor.topology_name.empty();
  }

  // Some flavor names a topology: otherwise topology-aware scheduling has
  // nothing to do and flavor assignment skips it.
  bool active() const { return active_; }

  // Bumped by every Rebuild: trees (and what was cached about them) change.
  uint64_t generation() const { return generation_; }
  // The log of cells whose usage changed, by sequence number: [log_begin,
  // log_end). Old entries are dropped; a reader behind log_begin starts over.
  void Touch(const TasCell* cell);
  uint64_t log_begin() const { return log_base_; }
  uint64_t log_end() const { return log_base_ + log_.size(); }
  const TasCell* LogAt(uint64_t seq) const { return log_[seq - log_base_]; }

  // The index of a resource, added when new.
  size_t ResourceIndex(const std::string& name);
  size_t resource_count() const { return resource_names_.size(); }
  const std::string& ResourceName(size_t i) const { return resource_names_[i]; }
  // The cell of a leaf id, made when new.
  TasCell* Cell(const std::string& leaf_id);
  // Per-pod requests (plus one pod) by resource index.
  std::vector<int64_t> Vector(const std::vector<std::pair<std::string, int64_t>>& requests);

 private:
  std::map<std::string, std::unique_ptr<TopologyTree>> trees_;
  bool active_ = false;
  uint64_t generation_ = 0;
  std::vector<const TasCell*> log_;
  uint64_t log_base_ = 0;
  std::unordered_map<std::string, size_t> resource_index_;
  std::vector<std::string> resource_names_;
  std::unordered_map<std::string, std::unique_ptr<TasCell>> cells_;
};

// Kubernetes' node affinity in full: nodeSelector and required terms
// against a node's labels.
bool NodeMatchesPod(const api::PodSpec& spec, const api::Labels& node_labels);
bool NodeSelectorMatches(const api::PodSpec& spec, const api::Labels& node_labels);
bool NodeAffinityMatches(const api::PodSpec& spec, const api::Labels& node_labels);
// The node's NoSchedule/NoExecute taints are all tolerated by the pod or the
// flavor; else the first taint not tolerated is written to `untolerated`.
bool TaintsTolerated(const api::Node& node, const api::PodSpec& spec,
                     const std::vector<api::Toleration>& flavor_tolerations,
                     std::string* untolerated);

}  // namespace kuota::engine
