#include "control/events.h"

#include "control/meta_string.h"

namespace kuota::control {

nlohmann::json MakeEvent(Time now, const nlohmann::json& involved, const std::string& type,
                         const std::string& reason, const std::string& message,
                         const std::string& component) {
  const std::string ts = FormatRfc3339(now);
  const std::string ns = MetaString(involved, "namespace").empty()
                             ? std::string("default")
                             : MetaString(involved, "namespace");
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"generateName", MetaString(involved, "name") + "."}, {"namespace", ns}}},
          {"involvedObject",
           {{"apiVersion", involved.value("apiVersion", "")},
            {"kind", involved.value("kind", "")},
            {"name", MetaString(involved, "name")},
            {"namespace", MetaString(involved, "namespace")},
            {"uid", MetaString(involved, "uid")}}},
          {"reason", reason},
          {"message", message},
          {"type", type},
          {"count", 1},
          {"firstTimestamp", ts},
          {"lastTimestamp", ts},
          {"source", {{"component", component}}},
          {"reportingComponent", component}};
}

void RecordEvent(store::ObjectStore& store, const Clock& clock, const nlohmann::json& involved,
                 const std::string& type, const std::string& reason, const std::string& message,
                 const std::string& component) {
  (void)store.Create("events", MakeEvent(clock.Now(), involved, type, reason, message, component));
}

}  // namespace kuota::control
