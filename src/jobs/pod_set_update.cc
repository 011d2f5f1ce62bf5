#include "jobs/pod_set_update.h"

namespace kuota::jobs {
namespace {

using Json = nlohmann::json;

void PsuMerge(Json& meta, const char* field, const std::map<std::string, std::string>& add) {
  if (add.empty()) return;
  Json& m = meta[field];
  if (!m.is_object()) m = Json::object();
  for (const auto& [k, v] : add) m[k] = v;
}

}  // namespace

void ApplyTemplateMetadata(Json& tmpl, const PodSetPlacement& p, Json& saved) {
  if (p.labels.empty() && p.annotations.empty()) return;
  Json& meta = tmpl["metadata"];
  if (!meta.is_object()) meta = Json::object();
  for (const char* f : {"labels", "annotations"}) {
    if (saved.contains(f)) continue;  // already running with updates: keep the first record
    auto it = meta.find(f);
    saved[f] = it != meta.end() && it->is_object() ? *it : Json(nullptr);
  }
  PsuMerge(meta, "labels", p.labels);
  PsuMerge(meta, "annotations", p.annotations);
}

void RestoreTemplateMetadata(Json& tmpl, const Json& saved) {
  if (!saved.is_object()) return;
  for (const char* f : {"labels", "annotations"}) {
    auto it = saved.find(f);
    if (it == saved.end()) continue;
    Json& meta = tmpl["metadata"];
    if (!meta.is_object()) meta = Json::object();
    if (it->is_object()) {
      meta[f] = *it;
    } else {
      meta.erase(f);
    }
  }
}

void ApplyObjectMetadata(Json& object, const PodSetPlacement& p) {
  if (p.labels.empty() && p.annotations.empty()) return;
  Json& meta = object["metadata"];
  if (!meta.is_object()) meta = Json::object();
  PsuMerge(meta, "labels", p.labels);
  PsuMerge(meta, "annotations", p.annotations);
}

}  // namespace kuota::jobs
