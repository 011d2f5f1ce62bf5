// StatefulSetPods: Kueue's StatefulSet pod reconciler in the Controller (both
// drivers): a pod the StatefulSet controller made from a template Kueue's
// statefulset webhook marked (kueue.x-k8s.io/pod-suspending-parent:
// statefulset) is created gated but unmanaged; this labels it with its set's
// serving pod group (jobs::DefaultStatefulSetPod) and managed, after which
// the pod group machinery admits, starts and stops it. kuotad's own
// StatefulSet controller makes its pods labelled already. Stateless apart
// from the store it writes to; used only from the controller's thread.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::control {

// Whether `pod` is a StatefulSet's pod Kueue has yet to label.
bool NeedsStatefulSetLabels(const nlohmann::json& pod);

// Labels `pod` for its StatefulSet's pod group: the pod as stored, or
// nullopt when there is nothing to do (no owning set, the set is gone or
// names no queue). A conflict is an error; the pod's next event retries.
Result<std::optional<nlohmann::json>> LabelStatefulSetPod(store::ObjectStore& store,
                                                          const nlohmann::json& pod);

}  // namespace kuota::control
