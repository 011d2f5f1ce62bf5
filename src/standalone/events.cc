#include "standalone/events.h"

#include "base/time.h"
#include "standalone/meta_string.h"

namespace kuota::standalone {
void RecordEvent(store::ObjectStore& store, const Clock& clock, const nlohmann::json& involved,
                 const std::string& type, const std::string& reason, const std::string& message,
                 const std::string& component) {
  const std::string now = FormatRfc3339(clock.Now());
  const std::string ns = MetaString(involved, "namespace").empty()
                             ? std::string("default")
                             : MetaString(involved, "namespace");
  nlohmann::json ev = {
      {"apiVersion", "v1"},
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
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"source", {{"component", component}}},
      {"reportingComponent", component}};
  (void)store.Create("events", ev);
}

}  // namespace kuota::standalone
