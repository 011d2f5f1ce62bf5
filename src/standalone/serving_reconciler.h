// ServingReconciler: kuotad's stand-in for kube-controller-manager's
// Deployment and StatefulSet controllers on this machine. Lists and watches
// apps/v1 Deployments and StatefulSets and the pods they own and, for each
// one that changed, applies ReconcileDeployment / ReconcileStatefulSet:
// creates and deletes pods, writes the status through the status
// subresource. Pods of a deleted Deployment or StatefulSet are deleted too
// (background cascading deletion). Kueue's part (gating, Workloads,
// admission) is the pod integration's: the pods it makes carry what Kueue's
// webhooks put on their templates. Owns one thread; Start/Stop are
// thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct ServingReconcilerOptions {
  // Finalizer put on every pod created (see JobReconcilerOptions); empty: none.
  std::string pod_finalizer;
  // Kueue's statefulset framework is enabled: a queued set's pods get Kueue's
  // pod group labels (jobs::DefaultStatefulSetPod).
  bool statefulset_kueue = false;
  // Kueue's pod integration is enabled: the pods made here get what its pod
  // webhook gives a queued pod on create (the admission gate), as they would
  // through the API.
  bool pod_webhook = false;
  std::chrono::milliseconds idle_tick{200};
};

class ServingReconciler {
 public:
  // `store` and `clock` must outlive the reconciler.
  ServingReconciler(store::ObjectStore& store, const Clock& clock,
                    ServingReconcilerOptions options);
  ~ServingReconciler();
  ServingReconciler(const ServingReconciler&) = delete;
  ServingReconciler& operator=(const ServingReconciler&) = delete;

  // Lists the objects and pods and starts the loop thread.
  Status Start();
  // Ends the loop and joins its thread. Idempotent.
  void Stop();

 private:
  using Json = nlohmann::json;
  Status Sync();
  void Run();
  void Handle(const store::WatchEvent& ev);
  void Reconcile(const std::string& key);
  void CascadeDelete(const std::string& uid, const std::string& ns);

  store::ObjectStore& store_;
  const Clock& clock_;
  ServingReconcilerOptions options_;
  std::unique_ptr<store::Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  // Loop-thread state.
  std::map<std::string, Json> objects_;                      // "resource/ns/name" -> object
  std::map<std::string, std::string> by_uid_;                // uid -> key
  std::map<std::string, std::map<std::string, Json>> pods_;  // owner uid -> pod name -> Pod
  std::set<std::string> dirty_;
};

}  // namespace kuota::standalone
