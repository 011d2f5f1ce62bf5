// DeploymentController: what kube-controller-manager's Deployment and
// ReplicaSet controllers do for one apps/v1 Deployment, as kuotad plays them:
// the Deployment owns its pods directly (no ReplicaSet is made; `kubectl get
// rs` lists none), named "<deployment>-<pod-template-hash>-<5 chars>" and
// labelled with the template's pod-template-hash. Keeps spec.replicas
// active pods: creates the missing ones (deleted or failed pods are replaced;
// a queued Deployment's come back gated and queue again), deletes the extra
// ones (gated ones first, then the newest) and those of an older template;
// writes the status kubectl reads (replicas, updatedReplicas,
// readyReplicas, availableReplicas, observedGeneration, the Available and
// Progressing conditions). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::standalone {

// What a serving workload's controller decided for one object.
struct ServingActions {
  std::vector<nlohmann::json> create_pods;
  std::vector<std::string> delete_pods;  // pod names
  std::optional<nlohmann::json> status;  // the new status, when it changed
};

// The template's hash, as the pod-template-hash label carries it.
std::string PodTemplateHash(const nlohmann::json& pod_template);

// `pods` are the pods the Deployment owns, as stored; `now` is RFC 3339.
Result<ServingActions> ReconcileDeployment(const nlohmann::json& deployment,
                                           const std::vector<nlohmann::json>& pods,
                                           const std::string& now);

// Shared with the StatefulSet controller: whether a pod is Running with its
// Ready condition True; whether it is active (neither ended nor being deleted).
bool ServingPodReady(const nlohmann::json& pod);
bool ServingPodActive(const nlohmann::json& pod);
// `conditions` with condition `type` set (lastTransitionTime kept when its
// status did not change).
nlohmann::json SetServingCondition(nlohmann::json conditions, const std::string& type,
                                   const std::string& status, const std::string& reason,
                                   const std::string& message, const std::string& now);

}  // namespace kuota::standalone
