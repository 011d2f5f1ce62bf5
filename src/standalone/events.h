// Events: writes a core/v1 Event about an object to the store, so that
// `kubectl describe` and `kubectl get events` tell the story. Shared by
// kuotad's controllers. Thread-safe (the store is).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "store/object_store.h"

namespace kuota::standalone {

// Records an Event (type "Normal" or "Warning") about `involved` (an object
// with apiVersion, kind and metadata name/namespace/uid), reported by
// `component`. Failures are ignored: an Event is best effort, as in kube.
void RecordEvent(store::ObjectStore& store, const Clock& clock, const nlohmann::json& involved,
                 const std::string& type, const std::string& reason, const std::string& message,
                 const std::string& component);

}  // namespace kuota::standalone
