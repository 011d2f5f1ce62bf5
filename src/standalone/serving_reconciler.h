// ServingReconciler: kuotad's stand-in for kube-controller-manager's
// Deployment and StatefulSet controllers on this machine. Lists and watches
// apps/v1 Deployments and StatefulSets and the pods they own and, for each
// one that changed, applies ReconcileDeployment / ReconcileStatefulSet:
// creates and deletes pods, writes the status through the status
// subresource. Pods of a deleted Deployment or StatefulSet are deleted too
// (background cascading deletion). Kueue's part (gating, Workloads,
// admission) is the pod integration's: the pods it makes carry what Kueue's
// webhooks put on their templates. A StoreLoop: Start/Stop/WaitIdle are
// thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "standalone/store_loop.h"
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

class ServingReconciler : public StoreLoop {
 public:
  // `store` and `clock` must outlive the reconciler.
  ServingReconciler(store::ObjectStore& store, const Clock& clock,
                    ServingReconcilerOptions options);
  ~ServingReconciler() override;

 private:
  // StoreLoop: Deployments, StatefulSets and their pods; a key is
  // "resource/ns/name" of a Deployment or StatefulSet.
  Status List() override;
  void Handle(const store::WatchEvent& ev) override;
  bool Reconcile(const std::string& key) override;
  void ReconcileObject(const std::string& key);
  void CascadeDelete(const std::string& uid, const std::string& ns);

  store::ObjectStore& store_;
  const Clock& clock_;
  ServingReconcilerOptions options_;

  // Loop-thread state.
  std::map<std::string, Json> objects_;                      // "resource/ns/name" -> object
  std::map<std::string, std::string> by_uid_;                // uid -> key
  std::map<std::string, std::map<std::string, Json>> pods_;  // owner uid -> pod name -> Pod
};

}  // namespace kuota::standalone
