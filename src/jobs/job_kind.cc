#include "jobs/job_kind.h"

#include <cstdio>
#include <functional>

#include "api/object.h"

namespace kuota::jobs {

std::string JobKind::Resource() const {
  const KindInfo& i = Info();
  return i.group.empty() ? i.plural : i.plural + "." + i.group;
}

std::string JobKind::ApiVersion() const {
  const KindInfo& i = Info();
  return i.group.empty() ? i.version : i.group + "/" + i.version;
}

std::string JobKind::PodSetTemplateField(const Json& /*job*/, size_t /*index*/) const {
  return "spec.template";
}

std::string JobKind::QueueName(const Json& job) {
  const Json& meta = job.value("metadata", Json::object());
  for (const char* field : {"labels", "annotations"}) {
    auto it = meta.find(field);
    if (it != meta.end() && it->is_object()) {
      auto q = it->find(kQueueNameLabel);
      if (q != it->end() && q->is_string() && !q->get<std::string>().empty()) {
        return q->get<std::string>();
      }
    }
  }
  return "";
}

std::string WorkloadNameFor(const std::string& kind, const std::string& job_name,
                            const std::string& job_uid) {
  // The hash input keeps the prefix as given ("Job" for batch/v1, as
  // workloads stored by earlier versions were named).
  std::string prefix = kind;
  for (auto& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t h = std::hash<std::string>{}(kind + "/" + job_name + "/" + job_uid);
  char hex[8];
  std::snprintf(hex, sizeof hex, "%05llx", static_cast<unsigned long long>(h & 0xfffff));
  std::string name = prefix + "-" + job_name;
  if (name.size() > 240) name.resize(240);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name + "-" + hex;
}

Json ControllerOwnerRef(const std::string& api_version, const std::string& kind,
                        const std::string& name, const std::string& uid) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"name", name},
          {"uid", uid},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

void SetPriorityClassRef(Json& workload, const std::string& name, bool workload_class) {
  workload["spec"]["priorityClassRef"] = {
      {"group", workload_class ? "kueue.x-k8s.io" : "scheduling.k8s.io"},
      {"kind", workload_class ? "WorkloadPriorityClass" : "PriorityClass"},
      {"name", name}};
}

void ApplyMaxExecutionTime(const Json& job, Json& workload) {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return;
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return;
  auto it = labels->find(kMaxExecTimeSecondsLabel);
  if (it == labels->end() || !it->is_string()) return;
  const std::string& v = it->get_ref<const std::string&>();
  int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9' || n > INT32_MAX / 10) return;
    n = n * 10 + (c - '0');
  }
  if (v.empty() || n <= 0 || n > INT32_MAX) return;
  workload["spec"]["maximumExecutionTimeSeconds"] = n;
}

Json MakeJobWorkload(const std::string& prefix, const std::string& api_version,
                     const std::string& kind, const std::string& name, const std::string& ns,
                     const std::string& uid, const std::string& queue, Json pod_sets) {
  return {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "Workload"},
      {"metadata",
       {{"name", WorkloadNameFor(prefix, name, uid)},
        {"namespace", ns},
        {"labels", {{"kueue.x-k8s.io/job-uid", uid}}},
        {"ownerReferences", Json::array({ControllerOwnerRef(api_version, kind, name, uid)})}}},
      {"spec", {{"queueName", queue}, {"podSets", std::move(pod_sets)}}},
  };
}

}  // namespace kuota::jobs
