// PodState: what the Job controller reads from one of its pods (phase,
// deletion, readiness, container restarts, completion index, when it was
// created and when it finished), tolerant of missing or malformed fields.
// Also the order in which surplus active pods are removed (Kubernetes'
// controller.ActivePods order). Pure functions; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/time.h"

namespace kuota::jobctl {

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };

struct PodState {
  std::string name;
  PodPhase phase = PodPhase::kPending;  // a missing or unknown phase reads as Pending
  bool deleting = false;                // metadata.deletionTimestamp is set
  bool ready = false;                   // condition Ready is "True"
  bool assigned = false;                // spec.nodeName is set
  int64_t restarts = 0;                 // sum of (init) container restartCounts
  std::optional<int32_t> index;         // completion index (annotation, else label)
  std::optional<Time> created;          // metadata.creationTimestamp
  std::optional<Time> ready_since;      // Ready condition's lastTransitionTime when ready
  // When a terminal pod finished: the latest container terminated.finishedAt,
  // else the Ready=False condition's time, else deletionTimestamp, else
  // status.startTime, else creationTimestamp; nullopt when none is readable.
  std::optional<Time> finished;

  bool terminal() const { return phase == PodPhase::kSucceeded || phase == PodPhase::kFailed; }
  // Counts toward status.active: not terminal and not being deleted.
  bool active() const { return !terminal() && !deleting; }
};

// Reads `pod`; never fails (unreadable fields keep their defaults).
PodState ReadPodState(const nlohmann::json& pod);

// True when `pod` has a controller ownerReference to the object with `uid`.
bool IsControlledBy(const nlohmann::json& pod, std::string_view uid);

// True when `a` should be removed before `b` when there are too many active
// pods: unassigned before assigned, Pending before Unknown before Running, not
// ready before ready, ready more recently first, more restarts first, newer
// first; ties broken by name so the order is total and deterministic.
bool RemoveBefore(const PodState& a, const PodState& b);

}  // namespace kuota::jobctl
