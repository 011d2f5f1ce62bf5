// AppWrapperReconciler: kuotad's stand-in for CodeFlare's AppWrapper
// controller (workload.codeflare.dev/v1beta2). It walks each AppWrapper
// through the controller's phases: Suspended until Kueue's admission clears
// spec.suspend, Resuming (each component created from its template, owned by
// the AppWrapper, with kAppWrapperLabel and the admitted podSetInfos
// injected at every pod set's path; the component's own controller in kuotad
// runs it), Running (status from the components and from the pods labelled
// with the AppWrapper: PodsReady, Succeeded when every expected pod
// succeeded, Unhealthy and a reset or Failed when a component fails or is
// gone, or pods fail past the failure grace period), Suspending (components
// deleted, back to Suspended when they and their pods are gone), Resetting
// (components deleted, a pause, Resuming again, at most retryLimit times),
// Succeeded (components deleted once its success TTL passed) and Failed
// (components deleted). The fault-tolerance durations and limits
// are the controller's defaults unless the AppWrapper's annotations say
// otherwise. A deleted AppWrapper's components are deleted. AppWrappers
// whose spec.managedBy names another controller (MultiKueue) are left
// alone. A StoreLoop: Start/Stop/WaitIdle are thread-safe.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "standalone/store_loop.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct AppWrapperReconcilerOptions {
  // The controller's fault-tolerance defaults (its FaultToleranceConfig),
  // each overridden per AppWrapper by its workload.codeflare.dev.appwrapper/*
  // annotation.
  std::chrono::milliseconds admission_grace{60'000};
  std::chrono::milliseconds warmup_grace{300'000};
  std::chrono::milliseconds failure_grace{60'000};
  std::chrono::milliseconds retry_pause{90'000};
  int64_t retry_limit = 3;
  // How long a Succeeded AppWrapper keeps its components (7 days).
  std::chrono::milliseconds success_ttl{7LL * 24 * 3600 * 1000};
  // How long the loop waits for events before checking timers.
  std::chrono::milliseconds idle_tick{200};
};

class AppWrapperReconciler : public StoreLoop {
 public:
  // `store` and `clock` must outlive the reconciler.
  AppWrapperReconciler(store::ObjectStore& store, const Clock& clock,
                       AppWrapperReconcilerOptions options = {});
  ~AppWrapperReconciler() override;

 private:
  // StoreLoop: AppWrappers, their components and pods; a key is the
  // AppWrapper's "ns/name".
  Status List() override;
  void Handle(const store::WatchEvent& ev) override;
  // One step of the AppWrapper "ns/name"'s phases; true when it changed
  // something and should be looked at again at once.
  bool Reconcile(const std::string& key) override;
  // Creates the components not created yet: Ok, or an error and whether
  // it is fatal (the AppWrapper fails) rather than retried.
  Status CreateComponents(Json& aw, bool* fatal);
  // Deletes the components; true once they and their pods are all gone.
  bool DeleteComponents(const Json& aw);
  // Writes `aw`'s status (the object follows the store).
  bool WriteStatus(Json& aw);
  void Event(const Json& aw, const std::string& reason, const std::string& message);

  store::ObjectStore& store_;
  const Clock& clock_;
  AppWrapperReconcilerOptions options_;
};

}  // namespace kuota::standalone
