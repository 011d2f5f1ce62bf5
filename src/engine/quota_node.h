// QuotaNode: one node of the quota tree (a ClusterQueue or a Cohort) and the
// node math Kueue shares between them: subtree quota, guaranteed (unlendable)
// quota, usage stored locally or in the parent, available and potentially
// available capacity under borrowing and lending limits.
// Values are milli-units indexed by FrId. Single-threaded (engine-owned).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/flavor_resource.h"

namespace kuota::engine {

class CohortNode;

struct FrQuota {
  int64_t nominal = 0;
  std::optional<int64_t> borrowing_limit;  // absent: unlimited
  std::optional<int64_t> lending_limit;    // absent: everything lendable
};

class QuotaNode {
 public:
  explicit QuotaNode(std::string name) : name_(std::move(name)) {}
  virtual ~QuotaNode() = default;
  QuotaNode(const QuotaNode&) = delete;
  QuotaNode& operator=(const QuotaNode&) = delete;

  const std::string& name() const { return name_; }
  virtual bool is_cluster_queue() const = 0;

  CohortNode* parent() const { return parent_; }
  bool has_parent() const { return parent_ != nullptr; }

  // Quota declared on this node itself (spec.resourceGroups).
  const FrQuota& quota(FrId fr) const;
  bool has_quota(FrId fr) const;
  // Sum of this node's own nominal quota and what its children lend to it.
  int64_t subtree_quota(FrId fr) const { return At(subtree_quota_, fr); }
  // Usage of this node: for a ClusterQueue, the sum of its workloads'; for a
  // cohort, what its children store in it (usage above their guaranteed quota).
  int64_t usage(FrId fr) const { return At(usage_, fr); }
  // Quota that this node keeps for itself and never lends to its parent
  // (kept by QuotaTree whenever the quotas or the subtree quota change).
  int64_t guaranteed_quota(FrId fr) const { return At(guaranteed_, fr); }

  // What can still be used here: local guaranteed room plus what the parent
  // can give, capped by the borrowing limit.
  int64_t Available(FrId fr) const;
  // Available(fr) were this node's usage `usage` and its parent's Available
  // `parent_available` (ignored at a root).
  int64_t AvailableGiven(FrId fr, int64_t usage, int64_t parent_available) const;
  // What could be used here if every workload in the tree were gone.
  int64_t PotentialAvailable(FrId fr) const;
  // True when usage exceeds the subtree quota (borrowing from the parent).
  bool IsBorrowing(FrId fr) const { return usage(fr) > subtree_quota(fr); }

  // Usage bookkeeping; propagates to ancestors what spills over guaranteed quota.
  void AddUsage(FrId fr, int64_t value);
  void RemoveUsage(FrId fr, int64_t value);
  // What RemoveUsage(fr, value) takes from the parent's usage: the part of
  // this node's usage above its guaranteed quota, at most `value`.
  int64_t RemovedFromParent(FrId fr, int64_t value) const {
    const int64_t stored_in_parent = usage(fr) - guaranteed_quota(fr);
    return stored_in_parent <= 0 ? 0 : std::min(value, stored_in_parent);
  }

  // Iterates all frs that have quota or usage here.
  int32_t fr_capacity() const { return static_cast<int32_t>(subtree_quota_.size()); }

  const std::vector<FrId>& quota_frs() const { return quota_frs_; }

 protected:
  friend class QuotaTree;
  // Recomputes guaranteed_ from quota_ and subtree_quota_.
  void RefreshGuaranteed();
  static int64_t At(const std::vector<int64_t>& v, FrId fr) {
    return static_cast<size_t>(fr) < v.size() ? v[static_cast<size_t>(fr)] : 0;
  }
  static int64_t& Slot(std::vector<int64_t>& v, FrId fr) {
    if (static_cast<size_t>(fr) >= v.size()) v.resize(static_cast<size_t>(fr) + 1, 0);
    return v[static_cast<size_t>(fr)];
  }

  std::string name_;
  CohortNode* parent_ = nullptr;        // borrowed; the QuotaTree owns all nodes
  std::vector<FrQuota> quota_;          // indexed by FrId
  std::vector<char> has_quota_;         // indexed by FrId
  std::vector<FrId> quota_frs_;         // frs with declared quota
  std::vector<int64_t> subtree_quota_;  // indexed by FrId
  std::vector<int64_t> usage_;          // indexed by FrId
  std::vector<int64_t> guaranteed_;     // indexed by FrId
};

}  // namespace kuota::engine
