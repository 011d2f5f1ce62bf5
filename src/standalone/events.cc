#include "standalone/events.h"

#include "base/time.h"

namespace kuota::standalone {
namespace {

std::string Meta(const nlohmann::json& obj, const char* field) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

}  // namespace

void RecordEvent(store::ObjectStore& store, const Clock& clock, const nlohmann::json& involved,
                 const std::string& type, const std::string& reason, const std::string& message,
                 const std::string& component) {
  const std::string now = FormatRfc3339(clock.Now());
  const std::string ns =
      Meta(involved, "namespace").empty() ? std::string("default") : Meta(involved, "namespace");
  nlohmann::json ev = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"generateName", Meta(involved, "name") + "."}, {"namespace", ns}}},
      {"involvedObject",
       {{"apiVersion", involved.value("apiVersion", "")},
        {"kind", involved.value("kind", "")},
        {"name", Meta(involved, "name")},
        {"namespace", Meta(involved, "namespace")},
        {"uid", Meta(involved, "uid")}}},
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
