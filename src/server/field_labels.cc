#include "server/field_labels.h"

#include <algorithm>
#include <initializer_list>

#include "store/list_field_selector.h"

namespace kuota::server {
namespace {

bool Among(std::string_view field, std::initializer_list<std::string_view> fields) {
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

// The kind's own field labels (kube-apiserver's field label conversion funcs).
bool KindSupports(const ResourceInfo& r, std::string_view field) {
  if (!r.group.empty() && r.group != "batch") return false;
  if (r.group == "batch") return r.plural == "jobs" && field == "status.successful";
  if (r.plural == "pods") {
    return Among(field, {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                         "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                         "status.podIP", "status.podIPs", "status.nominatedNodeName"});
  }
  if (r.plural == "events") {
    return Among(
        field, {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"});
  }
  if (r.plural == "namespaces") return field == "status.phase";
  if (r.plural == "nodes") return field == "spec.unschedulable";
  if (r.plural == "secrets") return field == "type";
  return false;
}

}  // namespace

std::optional<std::string> CheckFieldSelector(const ResourceInfo& resource,
                                              std::string_view selector) {
  Result<store::ListFieldSelector> parsed = store::ListFieldSelector::Parse(selector);
  if (!parsed.ok()) return parsed.status().message();
  for (const store::ListFieldSelector::Term& t : parsed->terms()) {
    std::string field;
    for (const std::string& part : t.path) field += (field.empty() ? "" : ".") + part;
    if (field == "metadata.name" || field == "metadata.namespace") continue;
    if (!KindSupports(resource, field)) return "field label not supported: " + field;
  }
  return std::nullopt;
}

}  // namespace kuota::server
