// QuotaTree: owns every ClusterQueueNode and CohortNode, builds the cohort
// tree from ClusterQueue and Cohort specs (implicit cohorts, parent cycles
// detached and reported), computes subtree quotas and heights, and answers
// the tree questions the scheduler asks (borrowing height, hierarchy walks).
// Single-threaded (engine-owned).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/admission_check.h"
#include "api/cluster_queue.h"
#include "api/cohort.h"
#include "api/resource_flavor.h"
#include "engine/cluster_queue_node.h"
#include "engine/cohort_node.h"
#include "engine/flavor_resource.h"

namespace kuota::engine {

struct WorkloadInfo;

class QuotaTree {
 public:
  explicit QuotaTree(FlavorResourceTable& frs) : frs_(frs) {}

  struct Inputs {
    const std::map<std::string, api::ClusterQueue>* cluster_queues;
    const std::map<std::string, api::Cohort>* cohorts;
    const std::map<std::string, api::ResourceFlavor>* flavors;
    const std::map<std::string, api::AdmissionCheck>* admission_checks;
  };

  // Rebuilds structure and quotas from the specs. ClusterQueueNodes that still
  // exist keep their identity (pending queue, admitted list); usage is
  // recomputed from their admitted workloads. Returns the names of
  // ClusterQueues that were removed (their nodes are destroyed).
  std::vector<std::string> Rebuild(const Inputs& in,
                                   std::vector<std::unique_ptr<ClusterQueueNode>>* removed);

  ClusterQueueNode* FindClusterQueue(const std::string& name) const;
  CohortNode* FindCohort(const std::string& name) const;
  const std::map<std::string, std::unique_ptr<ClusterQueueNode>>& cluster_queues() const {
    return cqs_;
  }
  const std::map<std::string, std::unique_ptr<CohortNode>>& cohorts() const { return cohorts_; }

  // The root of the tree that holds `node` (itself when it has no parent).
  static const QuotaNode* Root(const QuotaNode* node);
  // Kueue's FindHeightOfLowestSubtreeThatFits: 0 when `value` fits in the
  // ClusterQueue's nominal quota, else the height of the lowest ancestor whose
  // subtree has room. `may_reclaim_in_hierarchy` is true when that ancestor
  // is not the root.
  static int BorrowingHeight(const ClusterQueueNode& cq, FrId fr, int64_t value,
                             bool* may_reclaim_in_hierarchy);
  // Calls fn for every ClusterQueue under `node`.
  static void ForEachClusterQueue(const QuotaNode* node,
                                  const std::function<void(ClusterQueueNode*)>& fn);

 private:
  void ResolveGroups(ClusterQueueNode& node, const std::vector<api::ResourceGroup>& groups);
  void SetQuotas(QuotaNode& node, const std::vector<api::ResourceGroup>& groups);
  CohortNode* EnsureCohort(const std::string& name);
  void ComputeSubtree(CohortNode* c);

  FlavorResourceTable& frs_;
  std::map<std::string, std::unique_ptr<ClusterQueueNode>> cqs_;
  std::map<std::string, std::unique_ptr<CohortNode>> cohorts_;
};

}  // namespace kuota::engine
