// ClusterQueue (kueue.x-k8s.io/v1beta1): a pool of quota per flavor and
// resource, the policies that govern admission and preemption into it, and
// its place in a cohort. What users write; the engine's quota node is
// engine::ClusterQueueNode. Plain struct.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/label_selector.h"
#include "api/object_meta.h"
#include "api/resource_group.h"

namespace kuota::api {

enum class QueueingStrategy { kBestEffortFIFO, kStrictFIFO };

// withinClusterQueue values
enum class WithinClusterQueuePolicy { kNever, kLowerPriority, kLowerOrNewerEqualPriority };
// reclaimWithinCohort values
enum class ReclaimWithinCohortPolicy { kNever, kLowerPriority, kAny };
// borrowWithinCohort.policy values
enum class BorrowWithinCohortPolicy { kNever, kLowerPriority };

struct BorrowWithinCohort {
  BorrowWithinCohortPolicy policy = BorrowWithinCohortPolicy::kNever;
  std::optional<int32_t> max_priority_threshold;
};

struct ClusterQueuePreemption {
  WithinClusterQueuePolicy within_cluster_queue = WithinClusterQueuePolicy::kNever;
  ReclaimWithinCohortPolicy reclaim_within_cohort = ReclaimWithinCohortPolicy::kNever;
  BorrowWithinCohort borrow_within_cohort;
};

enum class FungibilityAction { kMayStopSearch, kTryNextFlavor };
enum class FungibilityPreference { kUnset, kBorrowingOverPreemption, kPreemptionOverBorrowing };

struct FlavorFungibility {
  FungibilityAction when_can_borrow = FungibilityAction::kMayStopSearch;
  FungibilityAction when_can_preempt = FungibilityAction::kTryNextFlavor;
  FungibilityPreference preference = FungibilityPreference::kUnset;
};

enum class StopPolicy { kNone, kHold, kHoldAndDrain };

struct AdmissionCheckStrategyRule {
  std::string name;
  std::vector<std::string> on_flavors;  // empty: all flavors
};

struct ClusterQueueSpec {
  std::string cohort;
  std::vector<ResourceGroup> resource_groups;
  QueueingStrategy queueing_strategy = QueueingStrategy::kBestEffortFIFO;
  // Absent selector matches no namespace; an empty one matches all.
  std::optional<LabelSelector> namespace_selector;
  ClusterQueuePreemption preemption;
  FlavorFungibility flavor_fungibility;
  FairSharing fair_sharing;
  std::vector<std::string> admission_checks;
  std::vector<AdmissionCheckStrategyRule> admission_checks_strategy;
  StopPolicy stop_policy = StopPolicy::kNone;
  // admissionScope.admissionMode: UsageBasedAdmissionFairSharing orders this
  // ClusterQueue's workloads by their LocalQueues' recent usage (with the
  // Configuration's admissionFairSharing).
  bool usage_based_admission_fair_sharing = false;
};

struct ClusterQueue {
  ObjectMeta metadata;
  ClusterQueueSpec spec;
};

}  // namespace kuota::api
