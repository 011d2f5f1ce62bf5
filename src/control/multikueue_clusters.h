// WorkerClusters: the MultiKueue manager's connections to its workers, one
// per MultiKueueCluster: reads each one's kubeconfig (spec.clusterSource.
// kubeConfig: a Secret's "kubeconfig" key in the controller's namespace, or
// a file path), opens the worker through the driver's RemoteClusterFactory,
// probes it, and writes the MultiKueueCluster's Active condition as Kueue's
// controller does (True "Active"/"Connected"; False "BadConfig" when the
// kubeconfig cannot be loaded, "ClientConnectionFailed" when the worker
// cannot be reached or refuses the credential). Remembers since when each
// worker has been unreachable (Kueue's workerLostTimeout counts from then).
// Used by the MultiKueue controller's thread only; not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "control/multikueue_remote.h"
#include "store/object_store.h"

namespace kuota::control {

struct WorkerCluster {
  std::string name;
  std::string kubeconfig;                 // as last loaded
  std::unique_ptr<RemoteCluster> remote;  // null when it could not be opened
  bool active = false;
  std::string reason, message;     // of the Active condition
  std::optional<Time> lost_since;  // unreachable since (not reset by a failed retry)
  std::optional<Time> last_probe;
};

class WorkerClusters {
 public:
  // `local` and `clock` must outlive this.
  WorkerClusters(store::ObjectStore& local, const Clock& clock, RemoteClusterFactory factory,
                 std::string controller_namespace);

  // Reads every MultiKueueCluster, (re)opens the ones whose kubeconfig
  // changed, probes each at most once per `probe_every`, and writes Active
  // conditions that changed. Forgets clusters that are gone.
  void Refresh(Duration probe_every);

  // The worker `name` when it is known and active; nullptr otherwise.
  RemoteCluster* Active(const std::string& name);
  const WorkerCluster* Find(const std::string& name) const;
  const std::map<std::string, WorkerCluster>& all() const { return clusters_; }
  bool empty() const { return clusters_.empty(); }

  // A request to the worker failed as `why`: when it says the worker is
  // unreachable, the worker is inactive until a probe succeeds.
  void ReportFailure(const std::string& name, const Status& why);

 private:
  Result<std::string> LoadKubeconfig(const nlohmann::json& cluster) const;
  void SetState(WorkerCluster& c, bool active, std::string reason, std::string message);
  void WriteCondition(const nlohmann::json& cluster, const WorkerCluster& c);

  store::ObjectStore& local_;
  const Clock& clock_;
  RemoteClusterFactory factory_;
  std::string namespace_;
  std::map<std::string, WorkerCluster> clusters_;
};

// Whether `why` (a failed request) means the worker could not be reached.
bool IsUnreachable(const Status& why);

}  // namespace kuota::control
