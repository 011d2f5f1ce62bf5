#include "control/object_errors.h"

#include <cstdio>

#include "base/time.h"
#include "control/events.h"
#include "control/meta_string.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

std::string Key(const std::string& resource, const Json& object) {
  return resource + "/" + MetaString(object, "namespace") + "/" + MetaString(object, "name");
}

// `object`'s status with the Invalid condition set to `message`; a status
// that is not an object (the reason it could not be read, perhaps) is replaced.
Json StatusWithCondition(const Json& object, const std::string& reason, const std::string& message,
                         const std::string& now) {
  Json status = Json::object();
  if (auto it = object.find("status"); it != object.end() && it->is_object()) status = *it;
  Json conditions = Json::array();
  if (auto it = status.find("conditions"); it != status.end() && it->is_array()) {
    for (const Json& c : *it) {
      if (c.is_object() && c.contains("type") && c["type"] == kInvalidCondition) continue;
      conditions.push_back(c);
    }
  }
  conditions.push_back({{"type", kInvalidCondition},
                        {"status", "True"},
                        {"reason", reason},
                        {"message", message},
                        {"lastTransitionTime", now}});
  status["conditions"] = std::move(conditions);
  return status;
}

}  // namespace

ObjectErrors::ObjectErrors(store::ObjectStore& store, const Clock& clock, std::string component)
    : store_(store), clock_(clock), component_(std::move(component)) {}

void ObjectErrors::Report(const std::string& resource, const Json& object,
                          const std::string& reason, const std::string& message) {
  try {
    const std::string key = Key(resource, object);
    auto [it, inserted] = last_.try_emplace(key, message);
    if (!inserted && it->second == message) return;
    it->second = message;
    ++reported_;
    std::fprintf(stderr, "kuotad: %s %s: %s\n", resource.c_str(), key.c_str(), message.c_str());
    if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object()) {
      return;  // nothing to attach an Event or a condition to
    }
    RecordEvent(store_, clock_, object, "Warning", reason, message, component_);
    Json update = {
        {"apiVersion", object.value("apiVersion", Json(""))},
        {"kind", object.value("kind", Json(""))},
        {"metadata",
         {{"name", MetaString(object, "name")}, {"namespace", MetaString(object, "namespace")}}},
        {"status", StatusWithCondition(object, reason, message, FormatRfc3339(clock_.Now()))}};
    if (update["metadata"]["namespace"] == "") update["metadata"].erase("namespace");
    if (resource == "pods") {
      // A pod that cannot be run has failed, so its Job can count it and go on.
      Json& st = update["status"];
      st["phase"] = "Failed";
      st["reason"] = reason;
      st["message"] = message;
    }
    store::UpdateOptions uo;
    uo.status_only = true;
    (void)store_.Update(resource, std::move(update), uo);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kuotad: cannot report an error on %s: %s\n", resource.c_str(), e.what());
  }
}

void ObjectErrors::Forget(const std::string& resource, const Json& object) {
  last_.erase(Key(resource, object));
}

}  // namespace kuota::control
