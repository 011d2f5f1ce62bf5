// LoopMetrics: where the controller's loop spends its time, as Prometheus
// counters (Kuota's own, beside Kueue's): seconds per step of a round —
// waiting for the first event, handling events, scheduling cycles, writing
// queue statuses, answering visibility queries — and, across steps, the
// seconds spent waiting for Workload status batches to commit. Rates of these
// say whether a slow control plane is its events, its engine or its writes.
// Called from the controller thread only.
#pragma once

#include <chrono>
#include <string>

#include "metrics/registry.h"

namespace kuota::control {

class LoopMetrics {
 public:
  enum class Step { kWait, kEvents, kSchedule, kQueueStatus, kQueries };

  // Declares the counters in `registry` (which must outlive this).
  explicit LoopMetrics(metrics::Registry& registry);

  void Round() { registry_.Add("kuota_controller_rounds_total", {}); }
  void Spent(Step step, std::chrono::steady_clock::duration d);
  void StatusFlush(std::chrono::steady_clock::duration d);

 private:
  metrics::Registry& registry_;
};

}  // namespace kuota::control
