#include "jobctl/pod_template.h"

#include "jobctl/job_labels.h"
#include "jobctl/submitter.h"

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxHostnameLength = 63;

// Adds JOB_COMPLETION_INDEX to each container of `list` that lacks it.
void AddIndexEnv(Json& list, const std::string& value) {
  if (!list.is_array()) return;
  for (Json& c : list) {
    if (!c.is_object()) continue;
    Json& env = c["env"];
    if (!env.is_array()) env = Json::array();
    bool present = false;
    for (const Json& e : env) {
      if (e.is_object() && e.value("name", "") == kCompletionIndexEnv) present = true;
    }
    if (!present) env.push_back({{"name", kCompletionIndexEnv}, {"value", value}});
  }
}

Json StringMap(const Json& tmpl_meta, const char* key) {
  if (!tmpl_meta.is_object()) return Json::object();
  auto it = tmpl_meta.find(key);
  if (it == tmpl_meta.end() || !it->is_object()) return Json::object();
  return *it;
}

}  // namespace

std::string PodGenerateName(std::string_view job_name, std::optional<int32_t> index) {
  std::string suffix = "-";
  if (index) suffix += std::to_string(*index) + "-";
  std::string name(job_name);
  if (name.size() + suffix.size() > kMaxGenerateNameLength) {
    name.resize(suffix.size() < kMaxGenerateNameLength ? kMaxGenerateNameLength - suffix.size()
                                                       : 0);
  }
  return name + suffix;
}

Json BuildPod(const JobSpec& spec, std::optional<int32_t> index) {
  const Json& tmpl = spec.pod_template;
  const Json tmpl_meta = tmpl.contains("metadata") ? tmpl["metadata"] : Json::object();
  Json labels = StringMap(tmpl_meta, "labels");
  Json annotations = StringMap(tmpl_meta, "annotations");
  // The pod runs as the Job's submitter: exactly the Job's submitter
  // annotations, never ones the template claims.
  annotations.erase(kSubmitterUidAnnotation);
  annotations.erase(kSubmittedByAnnotation);
  annotations.update(spec.submitter);
  labels[kControllerUidLabel] = spec.uid;
  labels[kJobNameLabel] = spec.name;
  labels[kLegacyControllerUidLabel] = spec.uid;
  labels[kLegacyJobNameLabel] = spec.name;

  Json pod_spec = tmpl.contains("spec") && tmpl["spec"].is_object() ? tmpl["spec"] : Json::object();
  if (index) {
    const std::string ix = std::to_string(*index);
    labels[kCompletionIndexKey] = ix;
    annotations[kCompletionIndexKey] = ix;
    if (pod_spec.contains("initContainers")) AddIndexEnv(pod_spec["initContainers"], ix);
    if (pod_spec.contains("containers")) AddIndexEnv(pod_spec["containers"], ix);
    const std::string hostname = spec.name + "-" + ix;
    if (!pod_spec.contains("hostname") && hostname.size() <= kMaxHostnameLength) {
      pod_spec["hostname"] = hostname;
    }
  }

  Json meta = {
      {"generateName", PodGenerateName(spec.name, index)},
      {"namespace", spec.ns},
      {"labels", labels},
      {"ownerReferences", Json::array({{{"apiVersion", "batch/v1"},
                                        {"kind", "Job"},
                                        {"name", spec.name},
                                        {"uid", spec.uid},
                                        {"controller", true},
                                        {"blockOwnerDeletion", true}}})},
  };
  if (!annotations.empty()) meta["annotations"] = annotations;
  return Json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", pod_spec}};
}

}  // namespace kuota::jobctl
