// CohortNode: the engine's node for a Cohort in the quota tree (declared by a
// Cohort object or implied by a ClusterQueue's spec.cohort). Holds children and
// the fair-sharing weight. Single-threaded (engine-owned).
#pragma once

#include <string>
#include <vector>

#include "engine/quota_node.h"

namespace kuota::engine {

class ClusterQueueNode;

class CohortNode final : public QuotaNode {
 public:
  explicit CohortNode(std::string name) : QuotaNode(std::move(name)) {}
  bool is_cluster_queue() const override { return false; }

  const std::vector<CohortNode*>& child_cohorts() const { return child_cohorts_; }
  const std::vector<ClusterQueueNode*>& child_cluster_queues() const { return child_cqs_; }

  double fair_weight() const { return fair_weight_; }
  bool declared() const { return declared_; }
  // Height in the tree: a cohort with only ClusterQueues has height 1.
  int height() const { return height_; }
  // True when this cohort is on a parent cycle (then it and its subtree are
  // treated as detached, and their ClusterQueues inactive).
  bool in_cycle() const { return in_cycle_; }

 private:
  friend class QuotaTree;
  std::vector<CohortNode*> child_cohorts_;
  std::vector<ClusterQueueNode*> child_cqs_;
  double fair_weight_ = 1.0;
  bool declared_ = false;
  int height_ = 0;
  bool in_cycle_ = false;
};

}  // namespace kuota::engine
