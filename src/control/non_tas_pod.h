// Which pods use node capacity that topology-aware scheduling must see, and
// what the engine reads of them. As Kueue's pod usage controller
// (pkg/controller/tas/pod_usage_controller.go, belongsToNonTASCache): a pod
// bound to a node (spec.nodeName), not terminated (phase neither Succeeded
// nor Failed) and not placed by Kueue's topology-aware scheduling (none of
// the podset required/preferred/unconstrained/slice topology annotations,
// which Kueue puts on the pods of a TAS assignment, whose usage the
// Workload's topologyAssignment already counts). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

namespace kuota::control {

bool IsNonTasPod(const nlohmann::json& pod);

// The part of `pod` the engine reads (name, namespace, labels, nodeName, the
// containers' and init containers' resources and restart policy, overhead,
// pod-level resources, phase), as a v1 Pod that decodes whatever else the
// stored pod carries.
nlohmann::json NonTasPodProjection(const nlohmann::json& pod);

}  // namespace kuota::control
