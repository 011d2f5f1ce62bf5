// EngineState: everything the engine knows: the objects it was given (by
// kind), the quota tree, and every workload's record. Shared by the Engine
// (object events) and the Scheduler (cycles). Single-threaded.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/object.h"
#include "base/clock.h"
#include "engine/admission_fair_sharing.h"
#include "engine/flavor_resource.h"
#include "engine/quota_tree.h"
#include "engine/topology_tree.h"
#include "engine/workload_info.h"

namespace kuota::engine {

struct EngineState {
  explicit EngineState(const Clock& c) : clock(c), tree(frs) {}

  const Clock& clock;
  api::Configuration config;
  FlavorResourceTable frs;
  QuotaTree tree;

  std::map<std::string, api::ResourceFlavor> flavors;
  std::map<std::string, api::ClusterQueue> cluster_queues;
  std::map<std::string, api::Cohort> cohorts;
  std::map<std::string, api::LocalQueue> local_queues;  // "ns/name"
  // Hashed: every head looks its namespace up (labels for namespaceSelector).
  std::unordered_map<std::string, api::Namespace> namespaces;
  std::map<std::string, api::WorkloadPriorityClass> workload_priority_classes;
  std::map<std::string, api::PriorityClass> priority_classes;
  std::map<std::string, api::AdmissionCheck> admission_checks;
  std::map<std::string, std::unique_ptr<WorkloadInfo>> workloads;  // "ns/name"
  // Topology-aware scheduling's inputs: Topologies by name, Nodes by name,
  // and pods outside Kueue's quota ("ns/name") that use their node.
  std::map<std::string, api::Topology> topologies;
  std::map<std::string, api::Node> nodes;
  std::map<std::string, api::Pod> pods;
  // Set when a Topology, Node, Pod or ResourceFlavor changed: the topology
  // trees are rebuilt before the next cycle.
  bool topology_dirty = true;
  TasState tas;   // topology trees and the usage on their leaves
  AfsLedger afs;  // LocalQueues' usage history (admission fair sharing)
  // Workloads the engine deactivated itself (requeuing limit, a Rejected
  // admission check), for the controller to write spec.active: false
  // (Engine::TakeDeactivated).
  std::vector<std::string> deactivated;
  // Minimum runtime before preemption (minimum_runtime.h): when a head found
  // no victims while some were protected, the earliest instant one of them
  // comes out of protection: inadmissible heads are offered again then.
  std::optional<Time> protection_wakeup;

  // Set when queues or quota objects changed: the tree is rebuilt and
  // pending workloads re-routed before the next cycle or query.
  bool dirty = true;
  uint64_t next_seq = 0;  // arrival order of workloads

  WorkloadInfo* FindWorkload(const std::string& key) const {
    auto it = workloads.find(key);
    return it == workloads.end() ? nullptr : it->second.get();
  }
};

// Sets (or replaces) a condition, keeping lastTransitionTime when the status
// does not change.
void SetCondition(std::vector<api::Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string_view message,
                  Time now);
// The same, taking the message's buffer (what was there is left in `message`).
void SetConditionTakingMessage(std::vector<api::Condition>& conditions, std::string_view type,
                               std::string_view status, std::string_view reason,
                               std::string&& message, Time now);

}  // namespace kuota::engine
