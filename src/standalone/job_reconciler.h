// JobReconciler: kuotad's job controller loop, standing in for the Job
// controller and the job operators (Kubeflow, KubeRay, JobSet, Volcano, LWS) on
// this machine. Lists and watches jobs of every kind run here and Pods and,
// for each job that changed (or whose timer fired), applies the decisions of
// jobctl::ReconcileJob (batch/v1) or jobs::ReconcileGroup (the other kinds): creates and deletes
// pods, writes the Job's status (Suspended, Complete, Failed, counters), records Events, and
// deletes a Job whose TTL ran out together with its pods. Pods of a deleted Job are deleted too
// (background cascading deletion). A StoreLoop: Start/Stop/WaitIdle are thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "control/object_errors.h"
#include "jobctl/job_controller.h"
#include "jobs/group_job_kind.h"
#include "standalone/store_loop.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct JobReconcilerOptions {
  jobctl::JobControllerOptions job;
  // Finalizer put on every pod created, so that deleting a pod waits for the
  // pod runner to stop its processes; empty: none (no local runtime).
  std::string pod_finalizer;
  // How long the loop waits for events before checking timers.
  std::chrono::milliseconds idle_tick{200};
};

class JobReconciler : public StoreLoop {
 public:
  // `store` and `clock` must outlive the reconciler.
  JobReconciler(store::ObjectStore& store, const Clock& clock, JobReconcilerOptions options);
  ~JobReconciler() override;

 private:
  // StoreLoop: jobs of every kind run here and their pods; a key is
  // "resource/ns/name" of a job.
  Status List() override;
  void Handle(const store::WatchEvent& ev) override;
  bool Reconcile(const std::string& job_key) override;
  // Reported as the object's error (an Event and an Invalid condition).
  void HandleFailed(const store::WatchEvent& ev, const std::string& error) override;
  void ReconcileFailed(const std::string& job_key, const std::string& error) override;
  // Deletes pods whose job was deleted while kuotad was down.
  void AfterList() override;

  void ReconcileJob(const std::string& job_key);
  // A job of a GroupJobKind: pods and status from jobs::ReconcileGroup.
  void ReconcileGroup(const jobs::GroupJobKind& kind, const std::string& job_key);
  // A LeaderWorkerSet: its groups' pods and its status, as LWS's
  // controllers make them (jobs/leader_worker_set_pods.h).
  void ReconcileLeaderWorkerSet(const std::string& job_key);
  void CreatePods(const std::string& job_key, const Json& job, std::vector<Json> pods);
  void DeletePods(const Json& job, const std::vector<std::string>& names);
  // Writes `status` through the status subresource; `job` follows the store.
  void WriteStatus(const std::string& resource, Json& job, const Json& status);
  void CascadeDelete(const std::string& job_uid, const std::string& ns);

  store::ObjectStore& store_;
  const Clock& clock_;
  JobReconcilerOptions options_;

  // Loop-thread state.
  std::map<std::string, Json> jobs_;                         // "resource/ns/name" -> job
  std::map<std::string, std::string> job_by_uid_;            // uid -> "ns/name"
  std::map<std::string, std::map<std::string, Json>> pods_;  // job uid -> pod name -> Pod
  control::ObjectErrors errors_;  // stored objects the reconciler could not use
};

}  // namespace kuota::standalone
