// ClusterQueueNode: the engine's view of one ClusterQueue: its quota node, the
// resource groups resolved to FrIds, its policies, the workloads that hold
// quota in it, and whether it is active. Its pending heap is a PendingQueue.
// Single-threaded (engine-owned).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_queue.h"
#include "engine/backfill.h"
#include "engine/minimum_runtime.h"
#include "engine/pending_queue.h"
#include "engine/quota_node.h"

namespace kuota::engine {

struct WorkloadInfo;

struct FlavorInGroup {
  std::string name;
  std::vector<FrId> frs;  // parallel to ResourceGroupInfo::covered
};

struct ResourceGroupInfo {
  std::vector<std::string> covered;
  std::vector<FlavorInGroup> flavors;
};

class ClusterQueueNode final : public QuotaNode {
 public:
  explicit ClusterQueueNode(std::string name) : QuotaNode(std::move(name)) {}
  bool is_cluster_queue() const override { return true; }

  const api::ClusterQueueSpec& spec() const { return spec_; }
  const std::vector<ResourceGroupInfo>& resource_groups() const { return groups_; }
  // Index of the group covering `resource`, or -1.
  int GroupOf(std::string_view resource) const;
  bool covers_pods() const { return covers_pods_; }

  // Active means it may admit: not stopped, every flavor and check exists, and
  // its cohort is not on a cycle. `inactive_reason`/`message` say why not.
  bool active() const { return inactive_reason_.empty(); }
  const std::string& inactive_reason() const { return inactive_reason_; }
  const std::string& inactive_message() const { return inactive_message_; }

  double fair_weight() const { return spec_.fair_sharing.weight; }
  // Its kuota.dev/minimum-runtime annotations (none when malformed: kuotad's
  // admission refuses those).
  const MinimumRuntime& minimum_runtime() const { return minimum_runtime_; }
  // Its kuota.dev/backfill annotations (backfill.h), and the reservation of
  // its first blocked head (the scheduler keeps it).
  const BackfillPolicy& backfill() const { return backfill_; }
  Reservation& reservation() { return reservation_; }
  const Reservation& reservation() const { return reservation_; }

  PendingQueue& pending() { return pending_; }
  const PendingQueue& pending() const { return pending_; }

  // Workloads holding quota here (reserved or admitted), in no fixed order.
  const std::vector<WorkloadInfo*>& admitted() const { return admitted_; }
  void AddAdmitted(WorkloadInfo* wl);
  void RemoveAdmitted(WorkloadInfo* wl);

 private:
  friend class QuotaTree;
  friend class Engine;
  api::ClusterQueueSpec spec_;
  MinimumRuntime minimum_runtime_;
  BackfillPolicy backfill_;
  Reservation reservation_;
  std::vector<ResourceGroupInfo> groups_;
  std::map<std::string, int, std::less<>> group_of_;
  bool covers_pods_ = false;  // "pods" is in group_of_
  std::string inactive_reason_;
  std::string inactive_message_;
  PendingQueue pending_;
  std::vector<WorkloadInfo*> admitted_;  // borrowed; the Engine owns workloads
};

}  // namespace kuota::engine
