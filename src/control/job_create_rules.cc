#include "control/job_create_rules.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "api/validation/names.h"
#include "jobs/job_kind.h"

namespace kuota::control {

Status ValidateJobQueueNameLabel(const nlohmann::json& job) {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return Status::Ok();
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return Status::Ok();
  auto it = labels->find(jobs::kQueueNameLabel);
  if (it == labels->end() || !it->is_string()) return Status::Ok();
  const std::string value = it->get<std::string>();
  const std::string why = validation::CheckDns1123Subdomain(value);
  if (why.empty()) return Status::Ok();
  return Status::Invalid(std::string("metadata.labels[") + jobs::kQueueNameLabel +
                         "]: Invalid value: \"" + value + "\": " + why);
}

Status ValidateJobMaxExecTimeLabel(const nlohmann::json& job) {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return Status::Ok();
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return Status::Ok();
  auto it = labels->find(kMaxExecTimeSecondsLabel);
  if (it == labels->end() || !it->is_string()) return Status::Ok();
  const std::string value = it->get<std::string>();
  const std::string path = std::string("metadata.labels[") + kMaxExecTimeSecondsLabel + "]";
  // Go's strconv.Atoi: an optional sign, then decimal digits only, in int64.
  size_t digits = value.size() > 0 && (value[0] == '+' || value[0] == '-') ? 1 : 0;
  bool syntax = digits < value.size();
  for (size_t i = digits; i < value.size(); ++i)
    syntax = syntax && value[i] >= '0' && value[i] <= '9';
  if (!syntax) {
    return Status::Invalid(path + ": Invalid value: \"" + value + "\": strconv.Atoi: parsing \"" +
                           value + "\": invalid syntax");
  }
  errno = 0;
  const long long v = std::strtoll(value.c_str(), nullptr, 10);
  if (errno == ERANGE) {
    return Status::Invalid(path + ": Invalid value: \"" + value + "\": strconv.Atoi: parsing \"" +
                           value + "\": value out of range");
  }
  if (v <= 0) {
    return Status::Invalid(path + ": Invalid value: " + std::to_string(v) +
                           ": should be greater than 0");
  }
  return Status::Ok();
}

Status ValidateElasticJobAnnotation(const jobs::JobKind& kind, const nlohmann::json& job) {
  static constexpr const char* kElastic = "kueue.x-k8s.io/elastic-job";
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return Status::Ok();
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return Status::Ok();
  auto it = annotations->find(kElastic);
  if (it == annotations->end() || *it != "true") return Status::Ok();
  const jobs::KindInfo& info = kind.Info();
  const bool supported =
      (info.group == "batch" && info.version == "v1" && info.kind == "Job") ||
      (info.group == "ray.io" && info.version == "v1" &&
       (info.kind == "RayCluster" || info.kind == "RayJob" || info.kind == "RayService"));
  if (supported) return Status::Ok();
  // Go's GroupVersionKind.String().
  return Status::Invalid(std::string("metadata.annotations[") + kElastic +
                         "]: Forbidden: elastic job is not supported for \"" + info.group + "/" +
                         info.version + ", Kind=" + info.kind + "\"");
}

}  // namespace kuota::control
