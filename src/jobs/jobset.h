// JobSetKind: the jobset.x-k8s.io/v1alpha2 JobSet as a group job (Kueue's
// "jobset.x-k8s.io/jobset" integration). Pod sets as Kueue builds them: one
// per replicated job, named after it, count = replicas x pods per Job
// (parallelism, capped by completions), no partial admission. The suspend
// flag is spec.suspend. startupPolicy InOrder (or dependsOn) puts each
// replicated job in a later stage than the one before it; otherwise every pod
// starts in stage 0.
//
// Validation is the CRD schema and JobSet's webhook: replicatedJobs required
// and non-empty with unique DNS-1123 names, replicas >= 0, a Job template
// with a pod template (template.spec.template) and a Job restartPolicy
// (OnFailure or Never), generated Job names of at most 63 characters, the
// success policy (operator All / Any, known target names) and the failure
// policy (maxRestarts >= 0, rules with known actions, targets and reasons).
// Default adds JobSet's defaults (successPolicy All, startupPolicy
// AnyOrder, completionMode Indexed, restartPolicy OnFailure, network with DNS
// hostnames), on every create; Kueue's suspension is DefaultOnCreate's.
//
// Pods: the runtime's flat replica index i of a replicated job maps to Job
// index i / P and completion index i % P (P = pods per Job); the pod is named
// "<jobset>-<rjob>-<jobIndex>-<podIndex>" (the Job's pod hostname). Labels and
// annotations as JobSet gives them (jobset.sigs.k8s.io/jobset-name,
// replicatedjob-name, job-index, job-global-index, replicatedjob-replicas,
// global-replicas, restart-attempt, jobset-uid) and as the Job controller does
// (batch.kubernetes.io/job-name, job-completion-index);
// JOB_COMPLETION_INDEX for Indexed Jobs; hostname and subdomain with DNS
// hostnames enabled; the coordinator label holds the local address.
//
// Policies: a failed or evicted pod counts as its Job failing (Job
// backoffLimit is not modelled). Without a failure policy the JobSet fails;
// with one, the first rule that targets the pod's replicated job (and whose
// reasons are empty or include BackoffLimitExceeded) decides: FailJobSet
// fails it, RestartJobSet(AndIgnoreMaxRestarts) restarts the whole JobSet,
// RestartJob(AndIgnoreMaxRestarts) restarts the pod; no rule restarts the
// JobSet. Restarts are bounded by failurePolicy.maxRestarts (0 without one).
// Success policy: All (default) or Any of the target replicated jobs' Jobs
// succeeded.
//
// Status: conditions Completed / Failed / Suspended / StartupPolicyInProgress /
// StartupPolicyCompleted (metav1.Condition, with JobSet's reasons and
// messages), restarts, restartsCountTowardsMax, terminalState, and
// replicatedJobsStatus[] {name, ready, succeeded, failed, active, suspended}
// counted in Jobs from the pod counts (P pods per Job, as if a Job's pods
// progress together). PodsReady: ready + succeeded Jobs equal the Jobs
// wanted, as Kueue reads it.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

class JobSetKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  void Default(Json& job) const override;
  std::vector<PodSetDef> PodSets(const Json& job) const override;
  // "<jobset>-<rjob>-<jobIndex>-<podIndex>".
  std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  // spec.failurePolicy.maxRestarts; 0 without a failure policy.
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  bool PodsReady(const Json& job) const override;

  // Pods per Job of replicated job `rjob`: parallelism (default 1) capped
  // by completions.
  static int64_t PodsPerJob(const Json& rjob);
};

}  // namespace kuota::jobs
