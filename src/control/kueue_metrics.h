// KueueMetrics: Kueue's Prometheus metrics (names, types, labels and buckets
// as Kueue's pkg/metrics, so Kueue dashboards and PromQL work unchanged) over
// a metrics::Registry. The controller reports transitions as they happen
// (admission attempts, quota reserved, admitted, evicted, preempted,
// finished) and publishes the state gauges (pending per ClusterQueue active /
// inadmissible, reserving and admitted workloads, ClusterQueue status,
// reservation / usage / nominal quota / borrowing and lending limits per
// flavor and resource, weighted shares, the LocalQueue family) from the
// engine's state after its cycles. Called from the controller thread only;
// the registry is read by scrapes on other threads.
#pragma once

#include <string>

#include "engine/engine_state.h"
#include "metrics/registry.h"

namespace kuota::control {

class KueueMetrics {
 public:
  // Declares Kueue's counters and histograms in `registry` (which must
  // outlive this).
  explicit KueueMetrics(metrics::Registry& registry);

  // One scheduling cycle that had heads to try: success when it admitted
  // (or reserved quota for) at least one workload.
  void AdmissionAttempt(bool success, double seconds);
  void QuotaReserved(const std::string& cq, const std::string& ns, const std::string& lq,
                     double wait_seconds);
  void Admitted(const std::string& cq, const std::string& ns, const std::string& lq,
                double wait_seconds);
  // `reason`: Preempted, PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped,
  // Deactivated, ...
  void Evicted(const std::string& cq, const std::string& ns, const std::string& lq,
               const std::string& reason);
  // `reason`: InClusterQueue, InCohortReclamation, InCohortFairSharing,
  // InCohortReclaimWhileBorrowing.
  void Preempted(const std::string& preempting_cq, const std::string& reason);
  void Finished(const std::string& cq, const std::string& ns, const std::string& lq);
  // An elastic job's slice of `cq` replaced by its scaled-up successor.
  void ReplacedSlice(const std::string& cq);

  // Replaces the state gauges with what `state` holds now.
  void Publish(const engine::EngineState& state);

 private:
  metrics::Registry& registry_;
};

}  // namespace kuota::control
