// Controller: runs the engine inside kuotad over the stored objects, the way
// Kueue's controller runs over a cluster: lists and watches the store, feeds
// Kueue objects into the engine, creates a Workload for each queued Job, runs
// scheduling cycles, and writes the decisions back: Workload status
// (QuotaReserved, Admitted, Evicted, Preempted, Pending with the reason), Job
// unsuspension with the flavors' node labels and tolerations (suspension and
// restore on eviction), managed plain pods ungated or deleted the same way
// (pod_group_controller.h), ClusterQueue and LocalQueue status, and Events.
// Workload statuses are written in batches, one store transaction each (in
// decision order, each over the resourceVersion it read); Events go through
// an EventRecorder, off the controller's thread and coalesced.
// Owns one engine and one thread; Start and Stop are thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/configuration.h"
#include "base/clock.h"
#include "control/elastic_ungater.h"
#include "control/event_recorder.h"
#include "control/job_management.h"
#include "control/kueue_metrics.h"
#include "control/leader_worker_set_workloads.h"
#include "control/loop_metrics.h"
#include "control/object_errors.h"
#include "control/pod_group_controller.h"
#include "control/pod_resources.h"
#include "control/topology_ungater.h"
#include "engine/engine.h"
#include "metrics/registry.h"
#include "server/pending_workloads_source.h"
#include "store/object_store.h"

namespace kuota::control {

struct ControllerOptions {
  api::Configuration config;  // Kueue manager configuration (fair sharing, ...)
  // How long the loop waits for events before running cycles anyway (backoffs).
  std::chrono::milliseconds idle_tick{200};
  // A scheduling round runs cycles for at most about this long, then the loop
  // reads the events that came meanwhile (finishes free quota, creations join
  // the queues) before the next round, as Kueue's scheduler runs beside its
  // event handlers. Without it a backlog of preemptions kept the loop in one
  // round for seconds while finished workloads still held their quota.
  std::chrono::milliseconds schedule_round{100};
  // ClusterQueue / LocalQueue status is written at most this often, and
  // paced to at most `queue_status_writes_per_second`: after a pass that wrote
  // K statuses the next waits K / rate when that is longer (1,000 queues
  // changing at once are written every second, not every 300 ms; Kueue's own
  // status writes are paced by its client's QPS limit).
  std::chrono::milliseconds status_interval{300};
  int queue_status_writes_per_second = 1000;
  // The machine pods run on (kuotad's local runtime). A workload that cannot
  // fit on it even when it is empty stays pending with that reason instead
  // of being queued. Unset: no such check (no local runtime).
  std::optional<ResourceAmounts> machine;
  // Which jobs Kueue's rules apply to (integrations.frameworks, ...).
  JobManagement jobs;
  // Non-empty: put on every Workload created for a job (Kueue's
  // kueue.x-k8s.io/resource-in-use on a cluster) and taken off once a deleted
  // Workload's quota is released, so a deletion is never missed.
  std::string workload_finalizer;
  // Where Kueue's Prometheus metrics go (kueue_metrics.h); null: none. Must
  // outlive the controller.
  metrics::Registry* metrics = nullptr;
};

class Controller : public server::PendingWorkloadsSource {
 public:
  // `store` and `clock` must outlive the controller.
  Controller(store::ObjectStore& store, const Clock& clock, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Loads everything from the store and starts the loop thread.
  Status Start();
  // Ends the loop and joins its thread. Idempotent.
  void Stop();

  // Kueue's visibility API: pending workloads in queue order, answered by the
  // loop thread (within one idle tick). Thread-safe.
  Result<std::vector<server::PendingWorkloadInfo>> ForClusterQueue(const std::string& cq) override;
  Result<std::vector<server::PendingWorkloadInfo>> ForLocalQueue(const std::string& ns,
                                                                 const std::string& lq) override;

 private:
  struct PendingQuery;
  Result<std::vector<server::PendingWorkloadInfo>> Ask(std::string cq, std::string ns,
                                                       std::string lq);
  void AnswerQueries();
  // False (and the workload's status says why) when `workload` cannot run on
  // options_.machine even when it is empty.
  bool FitsMachine(const nlohmann::json& workload);
  void CheckPodsReady();
  // Kueue's maximumExecutionTimeSeconds: an admitted workload that has run
  // that long is deactivated (spec.active false), evicting it.
  void CheckMaximumExecutionTime();
  // Writes spec.active: false for the workloads the engine deactivated, as
  // Kueue's workload controller does, so that a restart keeps them inactive.
  void PersistDeactivations();
  // Writes the stored workload `key` with spec.active: false (over the
  // version read, again on a conflict); the object as stored after.
  Result<nlohmann::json> WriteInactive(const std::string& key);
  using Json = nlohmann::json;
  Status InitialSync();
  void Run();
  void RunOnce();  // one pass of Run(); may throw (Run catches)
  void HandleEvent(const store::WatchEvent& ev);
  void ApplyObject(const std::string& resource, const Json& object);
  // ApplyObject, reporting an exception as the object's error.
  void ApplyObjectSafely(const std::string& resource, const Json& object);
  void DeleteObject(const std::string& resource, const Json& object);
  // A Workload being deleted (deletionTimestamp) that carries
  // options_.workload_finalizer: releases it as deleted and takes the
  // finalizer off. False when `object` is not such a Workload.
  bool FinalizeWorkload(const Json& object);
  void HandleJob(const std::string& resource, const Json& job);
  // True when one of `wl`'s admission checks is MultiKueue's (its pods run
  // on a worker, never here).
  bool AdmittedThroughMultiKueue(const engine::WorkloadInfo& wl);
  // Kueue's prebuilt workloads (the kueue.x-k8s.io/prebuilt-workload-name
  // label, as MultiKueue labels the jobs it creates on a worker): the job
  // takes the named Workload as its own (an owner reference) instead of
  // making one.
  void AdoptPrebuiltWorkload(const jobs::JobKind& kind, const Json& job);
  // A job whose Workload is built from another object (JobKind::
  // PendingReference: a TrainJob's runtime) gets it copied in and written
  // back; while it does not exist the job says so (Event, Invalid
  // condition) and waits in waiting_jobs_.
  void ResolveReference(const jobs::JobKind& kind, const Json& job,
                        const jobs::ReferencedObject& ref);
  // Handles again the jobs waiting for `object` of `resource`.
  void RetryWaitingJobs(const std::string& resource, const Json& object);
  // Kueue's LeaderWorkerSet controller: the set's group Workloads
  // (leader_worker_set_workloads.h), each applied to the engine as made.
  void ReconcileLeaderWorkerSet(const jobs::LeaderWorkerSetKind& kind, const Json& lws);
  // Kueue's plain-Pod integration: a managed pod changed or is gone.
  void HandlePod(const Json& pod, bool deleted);
  // A pod using its node's capacity outside Kueue's topology assignments
  // (non_tas_pod.h) is applied to the engine, and deleted from it when it
  // is gone, terminated or no longer counts.
  void ApplyNonTasPod(const Json& pod, bool deleted);
  // Creates, finishes, starts or stops the Workload of managed pods `key`.
  void ReconcilePodWorkload(const std::string& key);
  // Kueue's pod reconciler: every active member of a pod group owns the
  // Workload the pods made (not a prebuilt one), so that a garbage collector
  // keeps it while any member is left and a pod made later (a StatefulSet's
  // next ordinal, a recreated pod) is found by its owners.
  void EnsureOwnedByMembers(const std::string& key, const jobs::PodGroup& group,
                            const engine::WorkloadInfo& wl);
  // What admission decided for each pod set of `wl`: flavors' node labels
  // and tolerations.
  std::vector<jobs::PodSetPlacement> PlacementOf(const engine::WorkloadInfo& wl);
  // Runs scheduling cycles until one changes nothing or the round's time is
  // up; true when it stopped with cycles still to run.
  bool Schedule();
  // Queues the workload's status write when the engine's status differs from
  // the one stored (recording its Events); written by FlushStatuses. A
  // workload already queued is flushed first, so every transition is
  // published, in order, each over the version the previous one wrote.
  void SyncWorkloadStatus(const std::string& key);
  // Writes the queued statuses in one store transaction, then acts on each
  // result (jobs started or stopped; on a conflict the stored workload is
  // read and decided again).
  void FlushStatuses();
  struct StatusWrite;
  void StatusWritten(StatusWrite& write, Result<Json> stored);
  // Ungates the pods of admitted topology-placed workloads (topology_ungater.h).
  void UngateTopologyPods();
  // Kueue's elastic Jobs (controller_elastic.cc, workload_slices.h): a batch
  // Job annotated kueue.x-k8s.io/elastic-job: "true" follows its workload
  // slices; scaling it never restarts its running pods.
  bool IsElasticJob(const jobs::JobKind& kind, const Json& job) const;
  void HandleElasticJob(const jobs::JobKind& kind, const Json& job);
  // Keeps elastic_slices_ (an elastic Workload added or `deleted`).
  void NoteElasticSlice(const Json& workload, bool deleted);
  void DeleteElasticSlices(const std::string& job_uid);
  // The slice of the job `job_uid` holding quota and not being evicted, or null.
  const engine::WorkloadInfo* ActiveSlice(const std::string& job_uid);
  // True when `wl` is an elastic job's slice and another slice of that job
  // holds its quota: the job runs on, whatever `wl` says.
  bool ElasticJobKeepsRunning(const engine::WorkloadInfo& wl);
  void TouchElasticPods(const engine::WorkloadInfo& wl);
  void UngateElasticPods();
  void StartJob(const std::string& workload_key);
  void StartJobUnsafe(const std::string& workload_key);  // may throw
  // Reports `err` (from a Start/StopJobUnsafe; empty: none) on the workload's
  // job.
  void ReportJobError(const std::string& workload_key, const std::string& err);
  void StopJob(const std::string& workload_key);
  void StopJobUnsafe(const std::string& workload_key);  // may throw
  void WriteQueueStatus(bool force);
  // The Active condition's lastTransitionTime for queue `id`: the one written
  // before unless the condition's status or reason changed, else `now`.
  std::string ActiveSince(const std::string& id, const Json& active, const std::string& now) const;
  void RecordEvent(const Json& involved, const std::string& type, const std::string& reason,
                   const std::string& message);
  void NoteOwnWrite(const std::string& resource, const Json& stored);
  bool IsOwnEcho(const store::WatchEvent& ev);

  store::ObjectStore& store_;
  const Clock& clock_;
  ControllerOptions options_;
  engine::Engine engine_;  // used only on the controller thread (and in Start before it)
  std::optional<KueueMetrics> metrics_;      // with options_.metrics; controller thread
  std::optional<LoopMetrics> loop_metrics_;  // likewise
  std::chrono::steady_clock::time_point last_metrics_publish_{};
  std::unique_ptr<store::Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  // Controller-thread state.
  int64_t processed_rv_ = 0;                // last store version fully handled
  ObjectErrors errors_;                     // stored objects the controller could not use
  PodGroupController pod_groups_;           // managed plain pods, by workload
  LeaderWorkerSetWorkloads lws_workloads_;  // LeaderWorkerSets' group Workloads
  TopologyUngater ungater_;  // pods of topology-placed jobs, ungated onto their domains
  // Pods of elastic Jobs, ungated up to their admitted count.
  ElasticUngater elastic_ungater_;
  // Elastic Jobs' slices: job uid -> its Workloads' keys.
  std::map<std::string, std::set<std::string>> elastic_slices_;
  std::map<std::string, int64_t> own_writes_;  // "resource/ns/name" -> rv we wrote
  std::map<std::string, Json> last_status_;    // workload key -> status as stored (or queued)
  std::vector<StatusWrite> status_batch_;      // queued status writes, in decision order
  std::set<std::string> status_batch_keys_;    // their workload keys
  bool queues_dirty_ = true;    // something changed since queue statuses were last built
  bool schedule_more_ = false;  // the last round ran out of time with cycles to run
  std::map<std::string, int64_t> applied_generation_;  // "resource/ns/name" -> generation
  std::map<std::string, size_t> topology_pods_;      // ns/name -> hash of what the engine has of it
  std::map<std::string, std::string> job_workload_;  // job uid -> workload key
  std::map<std::string, Json> queue_status_;         // "resource/name" -> status written
  std::chrono::steady_clock::time_point last_status_write_{};
  std::chrono::steady_clock::duration status_pause_{};  // after the last pass's writes
  std::map<std::string, std::string> unfit_;            // workload key -> why it cannot fit
  bool started_ = false;  // the initial list is applied: write back what changes
  std::map<std::string, std::string> workload_rv_;  // workload key -> resourceVersion seen
  int conflict_depth_ = 0;
  // "resource/ns/name" of a missing referenced object -> the jobs (resource,
  // ns, name) waiting for it.
  std::map<std::string, std::set<std::tuple<std::string, std::string, std::string>>> waiting_jobs_;

  EventRecorder events_;  // after the state above, so it is destroyed first

  std::mutex queries_mu_;
  std::vector<std::shared_ptr<PendingQuery>> queries_;  // guarded by queries_mu_
};

}  // namespace kuota::control
