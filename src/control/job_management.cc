#include "control/job_management.h"

#include "jobs/job_fields.h"
#include "jobs/leader_worker_set.h"
#include "jobs/pod_kind.h"
#include "jobs/registry.h"
#include "jobs/serving_workloads.h"

namespace kuota::control {

JobManagement::JobManagement() {
  for (const auto& k : jobs::JobKinds()) frameworks_.insert(k->Framework());
  // Kueue's chart enables its serving integrations by default too.
  frameworks_.insert(jobs::kDeploymentFramework);
  frameworks_.insert(jobs::kStatefulSetFramework);
}

Result<JobManagement> JobManagement::FromConfig(const api::Configuration& config) {
  JobManagement m;
  m.without_queue_name_ = config.manage_jobs_without_queue_name;
  if (!config.integrations.frameworks) return m;
  m.frameworks_.clear();
  const auto& list = *config.integrations.frameworks;
  for (size_t i = 0; i < list.size(); ++i) {
    const bool serving =
        list[i] == jobs::kDeploymentFramework || list[i] == jobs::kStatefulSetFramework;
    if (jobs::FindFramework(list[i]) == nullptr && list[i] != jobs::kPodFramework && !serving) {
      std::string known;
      for (const auto& k : jobs::JobKinds()) {
        known += (known.empty() ? "\"" : ", \"") + k->Framework() + "\"";
      }
      for (const char* f :
           {jobs::kPodFramework, jobs::kDeploymentFramework, jobs::kStatefulSetFramework}) {
        known += std::string(", \"") + f + "\"";
      }
      return Status::Invalid("integrations.frameworks[" + std::to_string(i) +
                             "]: Unsupported value: \"" + list[i] +
                             "\": supported values: " + known);
    }
    m.frameworks_.insert(list[i]);
  }
  return m;
}

JobManagement JobManagement::None() {
  JobManagement m;
  m.frameworks_.clear();
  return m;
}

bool JobManagement::Enabled(const jobs::JobKind& kind) const {
  return frameworks_.count(kind.Framework()) > 0;
}

bool JobManagement::OwnerManaged(const nlohmann::json& job) const {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return false;
  auto refs = meta->find("ownerReferences");
  if (refs == meta->end() || !refs->is_array()) return false;
  for (const nlohmann::json& r : *refs) {
    if (!r.is_object() || r.value("controller", false) != true) continue;
    for (const auto& k : jobs::JobKinds()) {
      if (r.value("apiVersion", "") == k->ApiVersion() && r.value("kind", "") == k->Kind()) {
        return Enabled(*k);
      }
    }
  }
  return false;
}

bool JobManagement::Manages(const jobs::JobKind& kind, const nlohmann::json& job) const {
  if (!Enabled(kind)) return false;
  // Kueue queues the outermost managed job only (an AppWrapper's components
  // run on its Workload).
  if (OwnerManaged(job)) return false;
  return without_queue_name_ || !kind.LocalQueueName(job).empty();
}

bool JobManagement::PodsEnabled() const { return frameworks_.count(jobs::kPodFramework) > 0; }

bool JobManagement::PodIntegrationRuns() const {
  // Kueue's ImplicitlyEnabledFrameworkNames: a LeaderWorkerSet's groups, a
  // StatefulSet's pods and a Deployment's are pod groups or plain pods, so
  // the pod integration runs for their pods.
  return PodsEnabled() || frameworks_.count(jobs::kLeaderWorkerSetFramework) > 0 ||
         frameworks_.count(jobs::kDeploymentFramework) > 0 ||
         frameworks_.count(jobs::kStatefulSetFramework) > 0;
}

bool JobManagement::ManagesPod(const nlohmann::json& pod) const {
  if (!PodIntegrationRuns() || !jobs::IsPodIntegrationCandidate(pod)) return false;
  // Implicitly enabled, the integration takes only the pods a parent's
  // webhook suspended (Kueue's Pod.Skip).
  return frameworks_.count(jobs::kPodFramework) > 0 ||
         !jobs::MetaMapValue(pod, "annotations", jobs::kPodSuspendingParentAnnotation).empty();
}

}  // namespace kuota::control
