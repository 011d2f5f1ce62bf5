// Kueue's serving-workload integrations of apps/v1 kinds, whose pods Kueue
// manages as plain pods: "deployment" (each pod its own single-pod Workload,
// as Kueue's deployment webhook marks the template) and "statefulset" (the
// pods one serving pod group named after the set, admitted all or nothing,
// with fast admission). The parts
// both drivers run: the webhooks' defaulting and update rules, and the
// labels Kueue's StatefulSet pod reconciler puts on a set's pods. Enabling
// either framework runs the pod integration for the pods they suspend (Kueue's
// ImplicitlyEnabledFrameworkNames).
// Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::jobs {

inline constexpr const char* kDeploymentFramework = "deployment";
inline constexpr const char* kStatefulSetFramework = "statefulset";

// "deployment" for apps/v1 Deployment, "statefulset" for StatefulSet, ""
// for any other kind name.
std::string ServingFramework(const std::string& kind);

// Kueue's webhook Default on a queued Deployment or StatefulSet (one that
// names a queue): the template gets kueue.x-k8s.io/pod-suspending-parent
// (the framework) and the queue name label, and a Deployment's also the
// managed and priority class labels, so that every pod is a queued plain
// pod. (Kueue puts no queue label on a StatefulSet's template; its pod
// reconciler labels the pods. Kuota's does too, so that the pod webhook's
// objectSelector on kueue.x-k8s.io/queue-name sees the pods at once.)
void DefaultServingWorkload(const std::string& framework, nlohmann::json& object);

// Kueue's webhook ValidateUpdate: the queue name may change only while no
// replica is ready (and never to none), the priority class likewise; a
// queued StatefulSet keeps its replicas but for scaling to and from zero
// ("spec.replicas: Invalid value: 3: field is immutable") and, once
// scaled to zero, scales up only when its pods are gone
// ("spec.replicas: Forbidden: scaling down is still in progress").
Status ValidateServingUpdate(const std::string& framework, const nlohmann::json& old_object,
                             const nlohmann::json& object);

// The Workload of a StatefulSet, as Kueue's controller names it:
// "statefulset-<name>-<hash5>" (of the set's uid).
std::string StatefulSetWorkloadName(const nlohmann::json& sts);

// Kueue's StatefulSet pod reconciler on a pod of queued `sts`: the managed,
// queue name and priority class labels, the set's Workload name as pod group
// name, the group's total count (spec.replicas), fast admission, serving,
// apps.kubernetes.io/pod-index as the pod index label and role "main". No
// change for a set that names no queue. Unlike Kueue, no
// prebuilt-workload-name label: the pod group makes the Workload itself
// (with fast admission, once the first pod exists), where Kueue's
// StatefulSet controller makes it from the set.
void DefaultStatefulSetPod(const nlohmann::json& sts, nlohmann::json& pod);

}  // namespace kuota::jobs
