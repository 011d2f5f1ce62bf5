// StepPlayer: moves a what-if simulation through time. It runs scheduling
// cycles on an engine driven by a manual clock, places admitted workloads'
// pods on the file's Nodes (they become PodsReady), carries out what time
// brings — Kueue's waitForPodsReady timeout (eviction with reason
// PodsReadyTimeout, requeue with backoff) and the end of requeue backoffs —
// and applies the file's Steps at their instants. Records preemptions and
// other evictions in a Report. Single-threaded; see docs/scenario-format.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "engine/engine.h"
#include "sim/node_placement.h"
#include "sim/simulation.h"
#include "sim/timeline.h"

namespace kuota::sim {

class StepPlayer {
 public:
  // `engine`, `clock` (the engine's) and `report` must outlive the player.
  StepPlayer(engine::Engine& engine, ManualClock& clock, std::vector<SimNode> nodes,
             Report& report);

  // At the clock's instant: carries out PodsReady timeouts that are due,
  // runs `cycles` scheduling cycles (0: until they change nothing), then
  // places pods on nodes.
  void Settle(int cycles);
  // Carries out every timed event before `t` in time order (each followed by
  // cycles until nothing changes), then sets the clock to `t`. Fails if
  // events never stop coming (more than 100000 before `t`).
  Status AdvanceTo(Time t);
  // At the step's instant (AdvanceTo it first): applies the step's changes,
  // then Settle(step.cycles). Errors name the step's document and field.
  Status Apply(const Step& step);

 private:
  void RunCycles(int cycles);
  void FireTimeouts();
  void PlacePods();
  // PodsReady goes False (and pods leave their nodes) for workloads that no
  // longer hold quota.
  void ForgetStopped();
  std::optional<Time> NextEvent();
  std::set<std::string> Holders();
  // Records as evicted every workload in `before` that no longer holds quota.
  void RecordEvictions(const std::set<std::string>& before);

  engine::Engine& engine_;
  ManualClock& clock_;
  NodePlacement placement_;
  std::map<std::string, Time> placed_at_;  // workload -> Admitted time it was placed for
  // Workload -> when (in cycles run) its quota was last reserved: breaks ties
  // between workloads admitted at the same instant.
  std::map<std::string, uint64_t> reserved_order_;
  uint64_t reservations_ = 0;
  Report& report_;
};

}  // namespace kuota::sim
