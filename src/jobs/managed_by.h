// Which controller runs a job: the kinds' managedBy fields (batch/v1 Job,
// JobSet, RayJob, RayCluster, RayService, Trainer's TrainJob and CodeFlare's
// AppWrapper: spec.managedBy; Kubeflow's jobs:
// spec.runPolicy.managedBy) and Kueue's MultiKueue value. A job whose
// managedBy is kueue.x-k8s.io/multikueue runs on a worker cluster: the
// manager queues it but never creates its pods. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "jobs/job_kind.h"

namespace kuota::jobs {

// Kueue's MultiKueue admission check controller, and the managedBy value of
// the jobs it dispatches.
inline constexpr const char* kMultiKueueControllerName = "kueue.x-k8s.io/multikueue";

// Where `kind` keeps managedBy; nullopt for kinds without one (Volcano
// Jobs, plain pods).
std::optional<Json::json_pointer> ManagedByPointer(const JobKind& kind);

// The job's managedBy; empty when unset or the kind has none.
std::string ManagedBy(const JobKind& kind, const Json& job);

// True when the job is managed by MultiKueue.
bool ManagedByMultiKueue(const JobKind& kind, const Json& job);

}  // namespace kuota::jobs
