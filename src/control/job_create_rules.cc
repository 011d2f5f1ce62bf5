#include "control/job_create_rules.h"

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

}  // namespace kuota::control
