// The rules Kueue applies only when an object changes, checked on an update as
// kube-apiserver and Kueue's webhooks check them: the CRDs' transition rules
// (CEL on oldSelf: a Workload's queueName, priorityClassRef and
// maximumExecutionTimeSeconds while quota is reserved or admitted, its
// status.clusterName once set; LocalQueue spec.clusterQueue, AdmissionCheck
// spec.controllerName; the topology rules of tas_update_rules.h), then
// Kueue's ValidateWorkloadUpdate (pod sets and admission immutable while
// quota is reserved, reclaimable pod counts, podSetUpdates of Ready checks,
// clusterName among the nominated, admission gates only removed). The rules
// that hold on create too run when the object is decoded (api/validation).
// Both objects in their stored (v1beta1) form; messages in Kueue v1beta2's
// words. Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::control {

// OK for kinds with no update rules; otherwise one Invalid status listing
// every error (joined by "; "). A transition rule that fails is reported
// alone, as kube-apiserver refuses the write before calling the webhook.
Status ValidateKueueUpdate(const std::string& kind, const nlohmann::json& old_object,
                           const nlohmann::json& object);

}  // namespace kuota::control
