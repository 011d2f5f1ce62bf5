// RemoteCluster: a MultiKueue worker as the manager sees it — an object
// store over the worker's API (a Kubernetes cluster or another kuotad) and a
// check that the worker answers and accepts the manager's credential. The
// control layer knows workers only through this interface; each driver
// hands the MultiKueue controller a factory (kube/remote_cluster.h builds
// one from a kubeconfig).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::control {

class RemoteCluster {
 public:
  virtual ~RemoteCluster() = default;
  // The worker's objects, by the same resource keys as the local store.
  virtual store::ObjectStore& Store() = 0;
  // Ok when the worker answers and accepts the credential; else why not
  // (Unauthenticated, Unavailable, ...).
  virtual Status Probe() = 0;
};

// Opens a worker from a kubeconfig's text; an error names what is wrong
// with it (no server, a CA file path, ...).
using RemoteClusterFactory =
    std::function<Result<std::unique_ptr<RemoteCluster>>(const std::string& kubeconfig)>;

}  // namespace kuota::control
