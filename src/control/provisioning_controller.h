// ProvisioningController: Kueue's ProvisioningRequest admission check
// controller (controllerName kueue.x-k8s.io/provisioning-request) over a
// store::ObjectStore, so kuotad runs it on one machine and on a cluster
// alike. For each Workload holding quota in a ClusterQueue whose admission
// checks include such a check, it creates the cluster autoscaler's
// ProvisioningRequest <workload>-<check>-<attempt> and one PodTemplate per pod
// set (ppt-<request>-<podset>), and writes the check's state in the
// Workload's status.admissionChecks from the request's conditions
// (provisioning_request.h): Pending, Ready with podSetUpdates (the pods'
// consume-provisioning-request annotations), Retry with Kueue's backoff (a
// new attempt after the engine's eviction and requeue), Rejected. It also
// sets each such AdmissionCheck's Active condition, and deletes the requests
// of finished, evicted or deleted workloads.
//
// Why its own thread over the store, not a step of Controller's loop: Kueue's
// check controllers are separate controllers that talk to the scheduler only
// through the Workload's status.admissionChecks, which the engine already
// reads (Ready admits, Retry evicts, Rejected deactivates); over the store
// this controller needs no hook into the engine, and its reads and writes
// (Lists, creations) stay off the scheduling loop. It wakes on Workload
// events and looks again every `resync` (requests' conditions, backoffs).
// Start and Stop are called by one thread (the driver's); SyncOnce must not
// run while the thread does (tests call it without Start).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/result.h"
#include "base/status.h"
#include "control/event_recorder.h"
#include "control/provisioning_request.h"
#include "store/object_store.h"

namespace kuota::control {

struct ProvisioningControllerOptions {
  // How long the controller waits for a Workload event before it looks at
  // everything again (ProvisioningRequest conditions, configs, checks).
  std::chrono::milliseconds resync{1000};
};

class ProvisioningController {
 public:
  // `store` and `clock` must outlive the controller.
  ProvisioningController(store::ObjectStore& store, const Clock& clock,
                         ProvisioningControllerOptions options = {});
  ~ProvisioningController();
  ProvisioningController(const ProvisioningController&) = delete;
  ProvisioningController& operator=(const ProvisioningController&) = delete;

  // Starts the thread. Idempotent.
  void Start();
  // Ends the thread and joins it. Idempotent.
  void Stop();

  // One pass over every AdmissionCheck and Workload (the thread's step).
  // Errors of one object are reported and do not stop the pass; the
  // returned status is the first store error met.
  Status SyncOnce();

 private:
  struct Snapshot;
  void Run();
  void SyncAdmissionCheck(const Snapshot& snap, const nlohmann::json& check);
  Status SyncWorkload(const Snapshot& snap, const nlohmann::json& workload);
  // Creates the request `name` and its pod templates; the request as stored.
  Result<nlohmann::json> CreateRequest(const Snapshot& snap, const nlohmann::json& workload,
                                       const std::string& name, const ProvisioningConfig& config);
  // Moves each pod template of `request` from the workload's ownership to the request's.
  void AdoptPodTemplates(const nlohmann::json& workload, const nlohmann::json& request);
  void DeleteRequest(const nlohmann::json& request);
  void DeleteOrphans(const Snapshot& snap);

  store::ObjectStore& store_;
  const Clock& clock_;
  ProvisioningControllerOptions options_;
  EventRecorder events_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // started by Start, joined by Stop (callers serialize them)
};

}  // namespace kuota::control
