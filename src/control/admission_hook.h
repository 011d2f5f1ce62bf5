// KuotaAdmissionHook: what Kueue's webhooks and Kubernetes' admission do on
// writes to kuotad: strict decoding and validation of Kueue kinds (errors
// name the field path), CRD-style defaulting, each job kind's own validation
// (its operator's webhook), Kueue's default LocalQueue (a job or queued pod
// created without a queue name, in a namespace with a LocalQueue named
// "default", is labelled for it: Kueue's LocalQueueDefaulting, GA), suspending
// a managed job on create, and gating a queued plain pod on create (Kueue's
// pod webhook), and Kueue's default managedBy for jobs queued to a
// MultiKueue ClusterQueue. Stateless apart from its options; thread-safe when the
// default-queue lookup is.
#pragma once

#include <functional>
#include <string>

#include "control/job_management.h"
#include "server/api_server.h"

namespace kuota::control {

class KuotaAdmissionHook final : public server::AdmissionHook {
 public:
  // Whether namespace `ns` has a LocalQueue named "default".
  using DefaultQueueLookup = std::function<bool(const std::string& ns)>;

  KuotaAdmissionHook() = default;
  // `default_queue` unset: no LocalQueue defaulting (kuotad --serve-only).
  // Whether LocalQueue `queue` of namespace `ns` feeds a ClusterQueue with a
  // MultiKueue admission check: its jobs get Kueue's default managedBy
  // kueue.x-k8s.io/multikueue (jobs/managed_by.h), so they run on a worker.
  using MultiKueueLookup = std::function<bool(const std::string& ns, const std::string& queue)>;
  explicit KuotaAdmissionHook(JobManagement management, DefaultQueueLookup default_queue = {},
                              MultiKueueLookup multikueue = {})
      : management_(std::move(management)),
        default_queue_(std::move(default_queue)),
        multikueue_(std::move(multikueue)) {}
  Status Admit(const server::ResourceInfo& resource, Operation op, const server::Json* old_object,
               server::Json* object) override;
  // Volcano Queue fields the quota tree cannot honour.
  std::vector<std::string> Warnings(const server::ResourceInfo& resource,
                                    const server::Json& object) override;

 private:
  // Kueue's ApplyDefaultForManagedBy, on create.
  void DefaultManagedBy(const jobs::JobKind& kind, server::Json& object) const;
  // Kueue's ApplyDefaultLocalQueue, on create.
  void DefaultLocalQueue(const std::string& queue_name, server::Json& object) const;

  JobManagement management_;
  DefaultQueueLookup default_queue_;
  MultiKueueLookup multikueue_;
};

// Kueue's constants.DefaultLocalQueueName.
inline constexpr const char* kDefaultLocalQueueName = "default";

// Applies the defaults Kueue's CRDs declare (queueingStrategy, preemption,
// flavorFungibility, stopPolicy, podSet count, active) to a stored object.
void ApplyKueueDefaults(const std::string& kind, server::Json& object);

}  // namespace kuota::control
