// VolcanoJobKind: Volcano's batch.volcano.sh/v1alpha1 Job ("vcjob") as a
// group job. Kueue has no Volcano integration; Kuota names the framework
// "batch.volcano.sh/job" and builds the Workload the way Kueue does for its
// other multi-template kinds: one pod set per task (name = task name, count =
// replicas), all pods in one stage (Volcano gang-schedules the job), a task's
// dependsOn moving it to a later stage. minCount: with exactly one task and a
// job minAvailable below its replicas, the pod set gets minCount =
// minAvailable (Kueue's partial admission then scales spec.tasks[0].replicas);
// with several tasks the job is admitted whole (which tasks to shrink is not
// Volcano's to say).
//
// Validation is Volcano's admission webhook (minAvailable <= total replicas,
// unique DNS-1123 task names, replicas >= 0, a pod template per task, known
// policy events and actions, known plugins) with kube's field paths.
// Default adds what Volcano's mutating webhook writes (queue
// "default", schedulerName "volcano", maxRetry 3, minAvailable = sum of the
// tasks' minAvailable or replicas), on every create; Kueue's suspension is
// DefaultOnCreate's.
//
// Suspension: Volcano's Job has no suspend field (vcctl suspend aborts the job
// through a Command object). Kuota keeps the flag at `spec.suspend` (a Kuota
// extension of the schema, written by Kuota, never needed in a manifest); a
// suspended job's status reads phase Pending, reason "Suspended", so a
// preempted job is not mistaken for an Aborted (finished) one.
//
// Pods: "<job>-<task>-<index>" as Volcano names them, labels volcano.sh/
// job-name, job-namespace, queue-name, task-spec, task-index. Plugins: `env`
// gives VC_TASK_INDEX and VK_TASK_INDEX; `svc` gives every pod VC_<TASK>_HOSTS
// (one host per replica, comma separated) and VC_<TASK>_NUM for every task
// (upper case, '-' -> '_'), hostname = pod name, subdomain = job name, and, a
// Kuota addition that Volcano does not make, VC_<TASK>_<i>_SVC per replica.
// Every address is the local one (PodPosition::address). `ssh` generates no
// keys locally: Volcano mounts a generated key pair at /root/.ssh from a
// Secret, which Kuota does not create; it gives no environment.
//
// Policies (task's first, then the job's; `event`, `events` or "*"):
// RestartJob restarts the job, AbortJob and TerminateJob end it (phase Aborted
// / Terminated), CompleteJob completes it, RestartTask restarts the pod (one
// pod of the task: the runtime restarts pods, not tasks). exitCode policies
// are validated but never match (the runtime reports no exit codes).
// TaskCompleted fires when every pod of the task succeeded. Without a
// matching policy an evicted pod is recreated, a failed pod restarts unless
// restartPolicy is Never, and then it stays failed: once every pod has ended
// the job is Completed when at least minAvailable succeeded, else Failed.
//
// Status as Volcano writes it: state {phase, reason, message,
// lastTransitionTime}, minAvailable, pending / running / succeeded / failed,
// taskStatusCount {task: {phase: {Pending|Running|Succeeded|Failed: n}}},
// retryCount (the runtime's restarts, pod restarts included: maxRetry bounds
// them), conditions [{status: phase, lastTransitionTime}] appended on each
// phase change. PodsReady: running + succeeded >= minAvailable. Finished on
// Completed (succeeded), Failed, Aborted, Terminated.
//
// Queue: a job with Kueue's queue-name label goes to that LocalQueue (Kueue's
// rule); without it, to the LocalQueue "volcano-<spec.queue>" ("default" when
// unset) that kuotad makes for each Volcano Queue (docs/volcano-queues.md), so
// every Volcano Job is queued when the framework is enabled.
//
// Topology (Kueue has no Volcano integration; as its other kinds): each
// task's template may carry Kueue's kueue.x-k8s.io/podset-*-topology
// annotations, checked as Kueue's webhooks check them (pod set groups
// included); the task's pod set asks for them with podIndexLabel
// volcano.sh/task-index, the label that numbers a task's pods.
//
// Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

// The LocalQueue (and ClusterQueue) of Volcano Queue Q is "volcano-Q".
inline constexpr char kVolcanoQueuePrefix[] = "volcano-";
// The label Volcano numbers a task's pods with (0..replicas-1).
inline constexpr char kVolcanoTaskIndexLabel[] = "volcano.sh/task-index";

class VolcanoJobKind final : public GroupJobKind {
 public:
  const KindInfo& Info() const override;
  Status Validate(const Json& job) const override;
  void Default(Json& job) const override;
  // Kueue's queue-name label, else "volcano-" + spec.queue ("default" when unset).
  std::string LocalQueueName(const Json& job) const override;
  std::vector<PodSetDef> PodSets(const Json& job) const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t Restarts(const Json& job) const override;
  // spec.maxRetry, 3 when unset or 0 (Volcano's default).
  int64_t MaxRestarts(const Json& job) const override;
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  // Every pod ended with at least minAvailable succeeded, minSuccess pods
  // succeeded, or a task whose TaskCompleted policy is CompleteJob completed.
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
  // spec.priorityClassName, else the first task template's.
  std::string PodPriorityClass(const Json& job) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  bool PodsReady(const Json& job) const override;

  // spec.minAvailable, or the sum of the tasks' minAvailable (replicas when
  // unset) when it is unset or 0, as Volcano's mutating webhook defaults it.
  static int64_t MinAvailable(const Json& job);
  // The policy action that applies to `event` ("PodFailed", "TaskCompleted")
  // in task `task`: the task's policies first, then the job's; "" for none.
  static std::string PolicyAction(const Json& job, size_t task, const std::string& event);
};

}  // namespace kuota::jobs
