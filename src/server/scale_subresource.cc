#include "server/scale_subresource.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace kuota::server {
namespace {

using Json = nlohmann::json;

std::vector<std::string> SplitDotted(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = path.empty() || path[0] != '.' ? 0 : 1;
  while (pos < path.size()) {
    size_t dot = path.find('.', pos);
    if (dot == std::string::npos) dot = path.size();
    parts.push_back(path.substr(pos, dot - pos));
    pos = dot + 1;
  }
  return parts;
}

std::string JoinWith(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

}  // namespace

const Json* AtDottedPath(const Json& object, const std::string& path) {
  const Json* at = &object;
  for (const std::string& p : SplitDotted(path)) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(p);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::string FormatSelector(const Json& selector) {
  if (!selector.is_object()) return "";
  std::vector<std::pair<std::string, std::string>> reqs;
  if (auto ml = selector.find("matchLabels"); ml != selector.end() && ml->is_object()) {
    for (const auto& [k, v] : ml->items()) {
      reqs.emplace_back(k, k + "=" + (v.is_string() ? v.get<std::string>() : ""));
    }
  }
  if (auto me = selector.find("matchExpressions"); me != selector.end() && me->is_array()) {
    for (const Json& e : *me) {
      if (!e.is_object()) continue;
      const std::string key = e.value("key", ""), op = e.value("operator", "");
      std::vector<std::string> values;
      for (const Json& v : e.value("values", Json::array())) {
        if (v.is_string()) values.push_back(v.get<std::string>());
      }
      std::sort(values.begin(), values.end());
      if (op == "In") reqs.emplace_back(key, key + " in (" + JoinWith(values, ",") + ")");
      if (op == "NotIn") reqs.emplace_back(key, key + " notin (" + JoinWith(values, ",") + ")");
      if (op == "Exists") reqs.emplace_back(key, key);
      if (op == "DoesNotExist") reqs.emplace_back(key, "!" + key);
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> parts;
  for (auto& r : reqs) parts.push_back(r.second);
  return JoinWith(parts, ",");
}

Result<Json> ScaleOf(const ResourceInfo& r, const Json& object) {
  if (!r.scale) return Status::NotFound(r.plural + " have no scale subresource");
  const Json meta = object.value("metadata", Json::object());
  Json m = Json::object();
  for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (auto it = meta.find(key); it != meta.end()) m[key] = *it;
  }
  const Json* spec = AtDottedPath(object, r.scale->spec_replicas);
  const Json* status = AtDottedPath(object, r.scale->status_replicas);
  Json scale = {
      {"kind", "Scale"},
      {"apiVersion", "autoscaling/v1"},
      {"metadata", m},
      {"spec", {{"replicas", spec && spec->is_number_integer() ? *spec : Json(0)}}},
      {"status", {{"replicas", status && status->is_number_integer() ? *status : Json(0)}}}};
  if (!r.scale->label_selector.empty()) {
    const Json* sel = AtDottedPath(object, r.scale->label_selector);
    std::string text;
    if (sel != nullptr && sel->is_string()) text = sel->get<std::string>();
    if (sel != nullptr && sel->is_object()) text = FormatSelector(*sel);
    if (!text.empty()) scale["status"]["selector"] = text;
  }
  return scale;
}

Result<Json> ApplyScale(const ResourceInfo& r, const Json& object, const Json& scale) {
  if (!r.scale) return Status::NotFound(r.plural + " have no scale subresource");
  if (!scale.is_object()) return Status::Invalid("the body must be an autoscaling/v1 Scale");
  if (scale.value("kind", "Scale") != "Scale") {
    return Status::Invalid("kind: Invalid value: \"" + scale.value("kind", "") +
                           "\": must be Scale");
  }
  const Json meta = scale.value("metadata", Json::object());
  const std::string name = object["metadata"].value("name", "");
  if (meta.is_object() && meta.contains("name") && meta["name"] != name) {
    return Status::Invalid("metadata.name: Invalid value: " + meta["name"].dump() + ": must be " +
                           name);
  }
  if (meta.is_object() && meta.contains("resourceVersion") &&
      meta["resourceVersion"] != object["metadata"].value("resourceVersion", "")) {
    return Status::Conflict(
        "the object has been modified; please apply your changes to the latest version and try "
        "again");
  }
  const Json* replicas = AtDottedPath(scale, ".spec.replicas");
  int64_t n = 0;
  if (replicas != nullptr && !replicas->is_null()) {
    if (!replicas->is_number_integer()) {
      return Status::Invalid("spec.replicas: Invalid value: " + replicas->dump() +
                             ": must be an integer");
    }
    n = replicas->get<int64_t>();
  }
  if (n < 0) {
    return Status::Invalid("spec.replicas: Invalid value: " + std::to_string(n) +
                           ": must be greater than or equal to 0");
  }
  if (n > 2147483647) {
    return Status::Invalid("spec.replicas: Invalid value: " + std::to_string(n) +
                           ": must be at most 2147483647");
  }
  Json out = object;
  Json* at = &out;
  for (const std::string& p : SplitDotted(r.scale->spec_replicas)) {
    if (!at->is_object()) *at = Json::object();
    at = &(*at)[p];
  }
  *at = n;
  return out;
}

}  // namespace kuota::server
