#include "engine/fair_sharing.h"

#include <algorithm>
#include <map>

#include "engine/cluster_queue_node.h"
#include "engine/cohort_node.h"
#include "engine/quota_tree.h"

namespace kuota::engine {

int CompareShare(const Share& a, const Share& b) {
  if (a.infinite && b.infinite) {
    if (a.unweighted == b.unweighted) return 0;
    return a.unweighted < b.unweighted ? -1 : 1;
  }
  if (a.infinite) return 1;
  if (b.infinite) return -1;
  if (a.value == b.value) return 0;
  return a.value < b.value ? -1 : 1;
}

double FairWeight(const QuotaNode& node) {
  if (node.is_cluster_queue()) return static_cast<const ClusterQueueNode&>(node).fair_weight();
  return static_cast<const CohortNode&>(node).fair_weight();
}

Share DominantResourceShare(const QuotaNode& node, const FlavorResourceTable& frs) {
  Share out;
  if (!node.has_parent()) return out;
  const QuotaNode* root = QuotaTree::Root(&node);
  std::map<std::string, int64_t> borrowed;
  std::map<std::string, int64_t> lendable;
  const int32_t n = std::max(node.fr_capacity(), root->fr_capacity());
  for (FrId fr = 0; fr < n && fr < frs.size(); ++fr) {
    const std::string& res = frs.Name(fr).resource;
    int64_t b = SatSub(node.usage(fr), node.subtree_quota(fr));
    if (b > 0) borrowed[res] = SatAdd(borrowed[res], b);
    if (root->subtree_quota(fr) != 0) {
      lendable[res] = SatAdd(lendable[res], node.parent()->PotentialAvailable(fr));
    }
  }
  double best = 0;
  bool borrowing = false;
  for (const auto& [res, b] : borrowed) {
    borrowing = true;
    auto it = lendable.find(res);
    if (it == lendable.end() || it->second <= 0) continue;
    double ratio = static_cast<double>(b) * 1000.0 / static_cast<double>(it->second);
    best = std::max(best, ratio);
  }
  out.unweighted = best;
  double w = FairWeight(node);
  if (w == 0) {
    out.infinite = borrowing;
    out.value = 0;
    return out;
  }
  out.value = best / w;
  return out;
}

}  // namespace kuota::engine
