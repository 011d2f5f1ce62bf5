// Job controller: the decisions of Kubernetes' batch/v1 Job controller as one
// pure function. Given a Job, the pods it owns and the time, ReconcileJob says
// which pods to create and delete, the Job's new status (conditions, counters,
// start and completion times, completedIndexes), the events to record, when
// to be called again, and whether the Job's TTL has run out. It keeps no state,
// starts no threads and reads no clock: the same input gives the same output.
// Thread-safe (no shared state).
//
// Semantics follow Kubernetes 1.31+: parallelism and completions (nil =
// work queue), NonIndexed and Indexed completion modes, restartPolicy Never
// (a Failed pod is replaced after an exponential pod-failure backoff) and
// OnFailure (containers restart in place; restarts count against
// backoffLimit), backoffLimit, activeDeadlineSeconds, suspend/resume,
// ttlSecondsAfterFinished and spec.managedBy. A Job that meets its success
// criteria first gets SuccessCriteriaMet=True (reason CompletionsReached) and
// its remaining active pods deleted; Complete=True and status.completionTime
// follow once no pod is terminating. A failing Job likewise gets
// FailureTarget=True (BackoffLimitExceeded or DeadlineExceeded), then
// Failed=True with the same reason and message. Not implemented:
// podFailurePolicy, backoffLimitPerIndex / maxFailedIndexes, successPolicy and
// podReplacementPolicy: Failed (replacements are created as soon as a pod is
// terminating, as with the default TerminatingOrFailed); such fields are ignored.
//
// The counting contract (instead of Kubernetes' pod finalizers and
// status.uncountedTerminatedPods):
//  - The caller passes every pod the Job owns as stored now, including the
//    pods created by its previous actions (read your writes): a pod created
//    but not passed in would be created again.
//  - The pod runner keeps terminal (Succeeded/Failed) pods in the store until
//    the Job itself is deleted; it never deletes finished pods on its own.
//  - The controller deletes only active pods (surplus, suspended, or a
//    finishing Job's); such a pod, once it has metadata.deletionTimestamp,
//    counts in status.terminating while it runs and is never counted as
//    failed, even if it ends in phase Failed. (One that ends Succeeded before
//    the kill lands did its work and counts as succeeded.)
//  - So status.succeeded and status.failed are recomputed from the pods on
//    every call, never added to: nothing is double counted. They never go
//    below the values already in the Job's status (a succeeded pod that a user
//    deleted stays counted), and for an Indexed Job status.completedIndexes
//    keeps every index it already lists.
//  - Pods whose controller ownerReference is not this Job (by uid) are ignored.
// The caller calls again whenever the Job or one of its pods changes, and at
// requeue_at at the latest.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/time.h"

namespace kuota::jobctl {

using Json = nlohmann::json;

struct JobControllerOptions {
  // Delay before replacing a failed pod: base * 2^(failures since the last
  // success - 1), capped at max, counted from the last failure.
  Duration pod_failure_backoff_base{10'000};
  Duration pod_failure_backoff_max{360'000};
  // At most this many pods are created, and as many surplus pods deleted, per
  // call (Kubernetes' MaxPodCreateDeletePerSync); requeue_at asks for the rest.
  // A suspended or finishing Job's pods are all deleted at once.
  int max_pods_per_sync = 500;
};

// An Event to record on the Job (involvedObject = the Job).
struct EventNote {
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string message;
  bool operator==(const EventNote&) const = default;
};

struct JobActions {
  // Complete Pod objects to create (metadata.generateName, namespace, labels,
  // annotations, ownerReferences, spec). After creating one, record
  // PodCreatedEvent(name) with the name the store gave it.
  std::vector<Json> create_pods;
  // Names of active pods (in the Job's namespace) to terminate gracefully and
  // delete: set deletionTimestamp, SIGTERM, remove once stopped. A
  // SuccessfulDelete event for each is in `events`.
  std::vector<std::string> delete_pods;
  // The Job's new .status, when it differs from the current one.
  std::optional<Json> status;
  // Call again no later than this (deadline, pod-failure backoff, TTL, or
  // `now` when more pods remain to create or delete than one call does).
  std::optional<Time> requeue_at;
  // ttlSecondsAfterFinished has run out: delete the Job and its pods.
  bool delete_job = false;
  // Events in order: SuccessfulDelete, Suspended, Resumed, Completed,
  // TooManySucceededPods, BackoffLimitExceeded, DeadlineExceeded.
  std::vector<EventNote> events;

  // True when there is nothing to do.
  bool empty() const {
    return create_pods.empty() && delete_pods.empty() && !status && !requeue_at && !delete_job &&
           events.empty();
  }
};

// Decides what the Job controller does for `job` (a batch/v1 Job as stored)
// owning `pods`, at `now`. Fails with Invalid, naming the field path, when the
// Job is malformed (e.g. `spec.completions: Invalid value: -1: must be greater
// than or equal to 0`); the caller should record that as a Warning event. A
// Job managed by another controller (spec.managedBy), or being deleted, gets
// no actions. Unreadable pod fields are read as absent, never an error.
Result<JobActions> ReconcileJob(const Json& job, const std::vector<Json>& pods, Time now,
                                const JobControllerOptions& options = {});

// The Normal SuccessfulCreate event, "Created pod: <name>", for a pod created
// from JobActions::create_pods once the store has named it.
EventNote PodCreatedEvent(std::string_view pod_name);

}  // namespace kuota::jobctl
