// Fair sharing: Kueue's dominant resource share (DRS) of a ClusterQueue or
// Cohort: how much it borrows beyond its subtree quota relative to what its
// parent could lend, divided by its fairSharing weight. Used to order
// admissions and to pick fair-sharing preemption targets.
// Stateless functions over the quota tree; single-threaded like the engine.
#pragma once

#include <string>

#include "engine/flavor_resource.h"
#include "engine/quota_node.h"

namespace kuota::engine {

struct Share {
  double value = 0;       // weighted share (x1000); meaningless when infinite
  bool infinite = false;  // weight 0 and borrowing
  double unweighted = 0;  // the share before dividing by the weight

  bool IsZero() const { return !infinite && value == 0; }
};

// -1, 0, +1 like Kueue's CompareDRS.
int CompareShare(const Share& a, const Share& b);

// The DRS of `node` with its current usage (0 for a node without parent).
Share DominantResourceShare(const QuotaNode& node, const FlavorResourceTable& frs);

// Fair-sharing weight of a node (ClusterQueue or Cohort).
double FairWeight(const QuotaNode& node);

}  // namespace kuota::engine
