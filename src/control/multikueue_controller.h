// MultiKueueController: Kueue's MultiKueue admission check controller
// (controllerName kueue.x-k8s.io/multikueue), the manager side, over either
// driver's store. For each Workload holding quota in a ClusterQueue whose
// admission checks include a MultiKueue check, it puts copies of the Workload
// on the check's workers (its MultiKueueConfig's clusters; Kueue's AllAtOnce
// or Incremental dispatcher), and the first copy a worker admits wins: the
// others are removed, the job is created on that worker (multikueue_objects.h),
// the check turns Ready ("The workload was admitted on \"w1\"") with
// status.clusterName, and the worker's job status is copied to the manager's
// job until it finishes. A LeaderWorkerSet's group Workloads go to one
// worker (Kueue's multi-workload adapter): group 0's is dispatched once every
// group's exists, the others follow it there, and one copy of the set is
// made there. A Workload that no longer holds quota, finished, or
// is gone has its copies and job removed from the workers. A worker
// unreachable for longer than workerLostTimeout sets the check to Retry
// ("Admitting remote lost"), which evicts the Workload so that it is
// dispatched again; copies left on workers without a Workload here are
// collected every gcInterval. Also writes the Active condition of
// MultiKueue AdmissionChecks (Kueue's reasons and messages) and the
// MultiKueueClusters' (multikueue_clusters.h), and counts Kueue's
// kueue_multikueue_workloads_{dispatched,admitted}_total.
// Polls on its own thread (one pass per tick; while no MultiKueue check
// exists, a pass every idle_ticks ticks that lists the checks and clusters). Start and Stop are
// thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/configuration.h"
#include "base/clock.h"
#include "control/multikueue_clusters.h"
#include "control/multikueue_remote.h"
#include "metrics/registry.h"
#include "store/object_store.h"

namespace kuota::control {

struct MultiKueueOptions {
  api::MultiKueueSettings settings;
  std::string controller_namespace = "kueue-system";  // where the kubeconfig Secrets are
  std::chrono::milliseconds tick{500};
  int idle_ticks = 10;  // without any MultiKueue check: look every 10 ticks (5 s)
  Duration probe_every{1000};
  // Kueue's Incremental dispatcher: clusters nominated per round, and how
  // long a round waits for an admission before nominating more.
  int incremental_step = 3;
  Duration incremental_round{300'000};
  metrics::Registry* metrics = nullptr;  // must outlive the controller; null: none
};

class MultiKueueController {
 public:
  // `store` and `clock` must outlive the controller.
  MultiKueueController(store::ObjectStore& store, const Clock& clock, RemoteClusterFactory factory,
                       MultiKueueOptions options);
  ~MultiKueueController();
  MultiKueueController(const MultiKueueController&) = delete;
  MultiKueueController& operator=(const MultiKueueController&) = delete;

  void Start();
  void Stop();  // idempotent
  // One pass (the thread runs it every tick; tests call it directly). False
  // when there was nothing to do: no MultiKueue check and nothing dispatched
  // (the thread then waits `idle_ticks` ticks before looking again).
  bool RunOnce();

 private:
  using Json = nlohmann::json;
  // What one MultiKueue check of a ClusterQueue dispatches to.
  struct CheckUse {
    std::string check;                  // the AdmissionCheck's name
    std::vector<std::string> clusters;  // its MultiKueueConfig's, in order
  };
  // A manager Workload's dispatch as this controller remembers it.
  struct Dispatch {
    std::set<std::string> clusters;  // workers that may hold a copy
    std::optional<Time> nominated_at;
  };

  void Run();
  // AdmissionChecks of this controller: their Active conditions, and which
  // ClusterQueues use them. False when there is no MultiKueue check at all.
  bool ReadChecks(std::map<std::string, CheckUse>& by_cluster_queue);
  // The objects of `resource` in `ns` on worker `cluster` that carry this
  // manager's origin label, by name: listed once per pass (one request per
  // worker, kind and namespace instead of one per workload); nullptr when
  // the worker could not be read.
  const std::map<std::string, Json>* RemoteObjects(const std::string& cluster,
                                                   RemoteCluster& remote,
                                                   const std::string& resource,
                                                   const std::string& ns);
  void SyncWorkload(const Json& wl, const CheckUse* use);
  // Why Kueue would reject dispatching `wl` (its owner's kind has no managedBy,
  // or the job is not managed by MultiKueue); empty when it may go.
  std::string CannotDispatch(const Json& wl);
  // Removes the copies (and jobs) of `key` from every worker; true when none is left.
  bool RemoveRemotes(const std::string& ns, const std::string& name, Dispatch& d);
  void RemoveRemote(RemoteCluster& remote, const std::string& ns, const std::string& name);
  // The winner's job: created when missing, its status copied to the manager's.
  void SyncJob(RemoteCluster& remote, const Json& wl, const std::string& cluster);
  // Kueue's plain-pod adapter: the Workload's pods created on the winner,
  // their status copied to the manager's pods (which stay gated there).
  void SyncPods(RemoteCluster& remote, const Json& wl, const std::string& cluster,
                const std::vector<std::string>& pods);
  // Writes the check's entry (state, message) and the cluster names; false on a failed write.
  bool WriteCheck(const Json& wl, const std::string& check, const std::string& state,
                  const std::string& message, const std::optional<std::string>& cluster_name,
                  const std::optional<std::vector<std::string>>& nominated);
  void CollectGarbage(const std::map<std::string, CheckUse>& uses);
  std::vector<std::string> Nominate(const CheckUse& use, Dispatch& d);
  // Kueue's multi-workload rule for `wl`, one of a LeaderWorkerSet's group
  // Workloads: false while it waits (not every group's Workload exists yet,
  // or a lower-numbered one has not gone to a worker); true with `follow`
  // set to the worker its siblings went to, or unset when it is the one to
  // dispatch first.
  bool ComponentMayGo(const Json& wl, std::optional<std::string>* follow);

  store::ObjectStore& store_;
  const Clock& clock_;
  MultiKueueOptions options_;
  WorkerClusters workers_;
  std::map<std::string, Dispatch> dispatched_;  // "ns/name" of manager Workloads
  std::optional<Time> last_gc_;
  // This pass's reads of the workers (RemoteObjects); nullopt: the read failed.
  std::map<std::string, std::optional<std::map<std::string, Json>>> snapshot_;
  // This pass's group Workloads of multi-workload jobs, by the job's uid.
  std::map<std::string, std::vector<const Json*>> components_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Whether LocalQueue `local_queue` of `ns` feeds a ClusterQueue with an
// AdmissionCheck of controllerName kueue.x-k8s.io/multikueue (the job
// webhook's managedBy default).
bool QueueUsesMultiKueue(store::ObjectStore& store, const std::string& ns,
                         const std::string& local_queue);

}  // namespace kuota::control
