// KuotaAdmissionHook: what Kueue's webhooks and Kubernetes' admission do on
// writes to kuotad: strict decoding and validation of Kueue kinds (errors
// name the field path), CRD-style defaulting, each job kind's own validation
// (its operator's webhook), suspending a managed job on create, and gating a
// queued plain pod on create (Kueue's pod webhook). Stateless apart from its
// options; thread-safe.
#pragma once

#include "control/job_management.h"
#include "server/api_server.h"

namespace kuota::control {

class KuotaAdmissionHook final : public server::AdmissionHook {
 public:
  KuotaAdmissionHook() = default;
  explicit KuotaAdmissionHook(JobManagement management) : management_(std::move(management)) {}
  Status Admit(const server::ResourceInfo& resource, Operation op, const server::Json* old_object,
               server::Json* object) override;
  // Volcano Queue fields the quota tree cannot honour.
  std::vector<std::string> Warnings(const server::ResourceInfo& resource,
                                    const server::Json& object) override;

 private:
  JobManagement management_;
};

// Applies the defaults Kueue's CRDs declare (queueingStrategy, preemption,
// flavorFungibility, stopPolicy, podSet count, active) to a stored object.
void ApplyKueueDefaults(const std::string& kind, server::Json& object);

}  // namespace kuota::control
