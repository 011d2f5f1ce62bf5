// StatefulSetController: what kube-controller-manager's StatefulSet
// controller does for one apps/v1 StatefulSet, as kuotad plays it: pods
// "<set>-<ordinal>" for ordinals 0..replicas-1 with the
// statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and
// controller-revision-hash labels, hostname the pod's name and subdomain the
// set's serviceName; OrderedReady makes ordinal i once 0..i-1 are ready,
// Parallel all at once; a deleted or ended pod is made again under its name
// once it is gone; ordinals >= replicas are deleted. With Kueue's
// statefulset integration (`kueue`) each pod is made with the labels Kueue's
// StatefulSet pod reconciler gives it (jobs::DefaultStatefulSetPod). Writes
// the status kubectl reads (replicas, readyReplicas, currentReplicas,
// updatedReplicas, availableReplicas, current/updateRevision,
// observedGeneration). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "standalone/deployment_controller.h"

namespace kuota::standalone {

Result<ServingActions> ReconcileStatefulSet(const nlohmann::json& sts,
                                            const std::vector<nlohmann::json>& pods,
                                            const std::string& now, bool kueue);

}  // namespace kuota::standalone
