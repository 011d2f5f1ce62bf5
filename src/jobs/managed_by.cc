#include "jobs/managed_by.h"

namespace kuota::jobs {

std::optional<Json::json_pointer> ManagedByPointer(const JobKind& kind) {
  const KindInfo& i = kind.Info();
  if (i.group == "kubeflow.org") return Json::json_pointer("/spec/runPolicy/managedBy");
  if ((i.group == "batch" && i.kind == "Job") || i.group == "jobset.x-k8s.io" ||
      i.group == "ray.io" || i.group == "trainer.kubeflow.org" ||
      i.group == "workload.codeflare.dev") {
    return Json::json_pointer("/spec/managedBy");
  }
  return std::nullopt;
}

std::string ManagedBy(const JobKind& kind, const Json& job) {
  std::optional<Json::json_pointer> p = ManagedByPointer(kind);
  if (!p || !job.contains(*p)) return "";
  const Json& v = job.at(*p);
  return v.is_string() ? v.get<std::string>() : "";
}

bool ManagedByMultiKueue(const JobKind& kind, const Json& job) {
  return ManagedBy(kind, job) == kMultiKueueControllerName;
}

}  // namespace kuota::jobs
