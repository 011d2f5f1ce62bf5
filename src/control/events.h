// Events: core/v1 Events about an object, so that `kubectl describe` and
// `kubectl get events` tell the story. MakeEvent builds one; RecordEvent
// writes it to the store at once (kuotad's loops that record few). The
// controller records through EventRecorder (event_recorder.h), off its
// thread and coalesced. Thread-safe (the store is).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/time.h"
#include "store/object_store.h"

namespace kuota::control {

// The Event (type "Normal" or "Warning") about `involved` (an object with
// apiVersion, kind and metadata name/namespace/uid), reported by
// `component` at `now`, with count 1 and a generateName.
nlohmann::json MakeEvent(Time now, const nlohmann::json& involved, const std::string& type,
                         const std::string& reason, const std::string& message,
                         const std::string& component);

// Creates MakeEvent(clock.Now(), ...) in the store. Failures are ignored: an
// Event is best effort, as in kube.
void RecordEvent(store::ObjectStore& store, const Clock& clock, const nlohmann::json& involved,
                 const std::string& type, const std::string& reason, const std::string& message,
                 const std::string& component);

}  // namespace kuota::control
