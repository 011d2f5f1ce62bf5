// JobManagement: which jobs Kueue's rules apply to in kuotad, from the
// Configuration's integrations.frameworks and manageJobsWithoutQueueName. A
// job of a kind not enabled is left alone by queueing (not suspended, no
// Workload); the local runtime still runs it, as the kind's operator would.
// Immutable after construction; thread-safe.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "api/configuration.h"
#include "base/result.h"
#include "jobs/job_kind.h"

namespace kuota::control {

class JobManagement {
 public:
  // Every job kind Kuota knows (not "pod", as in Kueue), jobs that name a
  // queue.
  JobManagement();
  // Invalid, naming integrations.frameworks[i], for a framework Kuota does
  // not know.
  static Result<JobManagement> FromConfig(const api::Configuration& config);
  // No framework at all: nothing is managed (kuotad --serve-only, an API
  // server without Kueue's webhooks).
  static JobManagement None();

  bool Enabled(const jobs::JobKind& kind) const;
  // Whether Kueue's rules apply to `job` (of `kind`): its kind is enabled,
  // it names a queue (or manageJobsWithoutQueueName) and no managed job owns
  // it (OwnerManaged).
  bool Manages(const jobs::JobKind& kind, const nlohmann::json& job) const;
  // Kueue's IsOwnerManagedByKueueForObject: `job`'s controlling owner is of
  // an enabled kind (a component an AppWrapper created), so the owner's
  // Workload covers it and it gets none of its own.
  bool OwnerManaged(const nlohmann::json& job) const;
  // Whether the plain-Pod integration ("pod") is enabled.
  bool PodsEnabled() const;
  // Whether it runs at all: enabled, or, as Kueue's
  // ImplicitlyEnabledFrameworkNames, turned on by the LeaderWorkerSet's (for
  // the pods a parent suspended only: ManagesPod).
  bool PodIntegrationRuns() const;
  // Whether Kueue's pod webhook applies to `pod`: the integration is enabled,
  // the pod names a queue (a label; manageJobsWithoutQueueName does not
  // reach plain pods in kuotad) and no controller owns it, or a parent's
  // webhook suspended it (kueue.x-k8s.io/pod-suspending-parent; the only
  // pods it takes when only implicitly enabled).
  bool ManagesPod(const nlohmann::json& pod) const;
  const std::set<std::string>& frameworks() const { return frameworks_; }

 private:
  std::set<std::string> frameworks_;
  bool without_queue_name_ = false;
};

}  // namespace kuota::control
