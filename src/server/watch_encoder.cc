#include "server/watch_encoder.h"

#include <utility>
#include <vector>

#include "server/json_fields.h"
#include "server/served_version.h"

namespace kuota::server {

using Json = nlohmann::json;

WatchEncoder::WatchEncoder(const ResourceInfo& resource, const Clock& clock,
                           WatchEncoderOptions options)
    : resource_(resource),
      clock_(clock),
      options_(std::move(options)),
      filtered_(!options_.labels.empty() || !options_.fields.empty()) {}

bool WatchEncoder::Matches(const Json& object) const {
  if (!filtered_) return true;
  const Json* labels = FindField(object, {"metadata", "labels"});
  return options_.labels.Matches(labels == nullptr ? Json() : *labels) &&
         options_.fields.Matches(object);
}

std::string WatchEncoder::Key(const Json& object) {
  return StringField(object, {"metadata", "namespace"}) + "/" +
         StringField(object, {"metadata", "name"});
}

void WatchEncoder::Seed(const Json& object) {
  if (filtered_) matching_.insert(Key(object));
}

std::string WatchEncoder::Added(const Json& object) {
  Seed(object);
  return Line("ADDED", object);
}

void WatchEncoder::AppendTextLine(std::string_view type, std::string_view object_json,
                                  std::string* out) {
  // What Line(type, object) writes for a JSON watch: dump() sorts keys.
  out->append(R"({"object":)").append(object_json).append(R"(,"type":")");
  out->append(type).append("\"}\n");
}

std::string WatchEncoder::Translate(const store::WatchEvent& event) {
  if (event.type == store::EventType::kBookmark) return "";  // the server sends its own
  if (!event.text.empty() && CopiesStoredText()) {
    // The stored text is the object's dump() with this event's resourceVersion.
    std::string line;
    line.reserve(event.text.size() + 32);
    AppendTextLine(store::EventTypeName(event.type), event.text, &line);
    return line;
  }
  Json object = event.object;
  // The event's version, so a client resuming from it skips this event
  // (for DELETED the store hands over the object as it was before).
  if (object.is_object() && event.resource_version > 0) {
    object["metadata"]["resourceVersion"] = std::to_string(event.resource_version);
  }
  const char* type = store::EventTypeName(event.type);
  if (!filtered_) return Line(type, object);
  std::string key = Key(object);
  bool was = matching_.count(key) > 0;
  bool now = event.type != store::EventType::kDeleted && Matches(object);
  if (event.type == store::EventType::kDeleted) {
    if (!was && !Matches(object)) return "";
    matching_.erase(key);
    return Line("DELETED", object);
  }
  if (now) {
    matching_.insert(key);
    return Line(was ? type : "ADDED", object);
  }
  if (was) {
    matching_.erase(key);
    return Line("DELETED", object);
  }
  return "";
}

std::string WatchEncoder::Bookmark(int64_t resource_version, bool initial_events_end) const {
  Json metadata = {{"resourceVersion", std::to_string(resource_version)}};
  if (initial_events_end) {
    metadata["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  }
  Json object = {
      {"kind", resource_.kind}, {"apiVersion", resource_.ApiVersion()}, {"metadata", metadata}};
  return Json{{"type", "BOOKMARK"}, {"object", object}}.dump() + "\n";
}

std::string WatchEncoder::Error(const ApiError& error) { return ErrorStatus(error.ToStatus()); }

std::string WatchEncoder::ErrorStatus(const Json& status) {
  // Messages may quote bytes from the URL that are not UTF-8.
  return Json{{"type", "ERROR"}, {"object", status}}.dump(-1, ' ', false,
                                                          Json::error_handler_t::replace) +
         "\n";
}

std::string WatchEncoder::Line(const char* type, const Json& object) {
  if (!options_.table) {
    Result<Json> served = ToServedVersion(resource_, object, options_.webhooks);
    if (!served.ok()) return Error(InternalError(served.status().message()));
    return Json{{"type", type}, {"object", std::move(served).value()}}.dump() + "\n";
  }
  if (options_.webhooks != nullptr) {
    // kube-apiserver converts before it prints; the columns read the stored form.
    Result<Json> served = ToServedVersion(resource_, object, options_.webhooks);
    if (!served.ok()) return Error(InternalError(served.status().message()));
  }
  std::vector<Json> rows = {object};
  Json table = BuildTable(resource_, rows, clock_.Now(), options_.include, !sent_columns_);
  sent_columns_ = true;
  table["metadata"]["resourceVersion"] = StringField(object, {"metadata", "resourceVersion"});
  return Json{{"type", type}, {"object", table}}.dump() + "\n";
}

}  // namespace kuota::server
