#include "control/job_update_rules.h"

#include <string>

#include "control/job_create_rules.h"
#include "jobs/pod_kind.h"

namespace kuota::control {
namespace {

// Kueue's elastic-job annotation (workloadslicing.EnabledAnnotationKey).
constexpr const char* kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";

std::string JobAnnotation(const nlohmann::json& job, const char* key) {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return "";
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return "";
  auto it = annotations->find(key);
  return it != annotations->end() && it->is_string() ? it->get<std::string>() : "";
}

std::string JobLabel(const nlohmann::json& job, const char* key) {
  auto meta = job.find("metadata");
  if (meta == job.end() || !meta->is_object()) return "";
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return "";
  auto it = labels->find(key);
  return it != labels->end() && it->is_string() ? it->get<std::string>() : "";
}

Status InvalidLabel(const char* key, const std::string& value, const std::string& why) {
  return Status::Invalid(std::string("metadata.labels[") + key + "]: Invalid value: \"" + value +
                         "\": " + why);
}

// jobframework's ValidateJobOnUpdate for an object that is `suspended` after
// the update (and was `old_suspended` before it).
Status ValidateQueuedUpdate(bool suspended, bool old_suspended, const nlohmann::json& old_job,
                            const nlohmann::json& new_job) {
  const std::string queue = jobs::JobKind::QueueName(new_job);
  if (!suspended && queue != jobs::JobKind::QueueName(old_job)) {
    return InvalidLabel(jobs::kQueueNameLabel, queue, "field is immutable");
  }
  const std::string old_class = JobLabel(old_job, jobs::kPriorityClassLabel);
  const std::string new_class = JobLabel(new_job, jobs::kPriorityClassLabel);
  if (!suspended && old_class.empty() && !new_class.empty()) {
    return InvalidLabel(jobs::kPriorityClassLabel, new_class,
                        "WorkloadPriorityClass cannot be added to a non-suspended workload");
  }
  if (new_class.empty() && !old_class.empty()) {
    return InvalidLabel(jobs::kPriorityClassLabel, new_class,
                        "WorkloadPriorityClass cannot be removed from a workload");
  }
  // validateUpdateForMaxExecTime: fixed unless suspended before and after.
  const std::string old_max = JobLabel(old_job, kMaxExecTimeSecondsLabel);
  const std::string new_max = JobLabel(new_job, kMaxExecTimeSecondsLabel);
  if ((!suspended || !old_suspended) && new_max != old_max) {
    return InvalidLabel(kMaxExecTimeSecondsLabel, new_max, "field is immutable");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateJobUpdate(const jobs::JobKind& kind, const nlohmann::json& old_job,
                         const nlohmann::json& new_job) {
  // validatedUpdateForEnabledWorkloadSlice: a job is elastic or not for life.
  const bool was_elastic = JobAnnotation(old_job, kElasticJobAnnotation) == "true";
  const bool elastic = JobAnnotation(new_job, kElasticJobAnnotation) == "true";
  if (was_elastic != elastic) {
    return Status::Invalid(std::string("metadata.annotations[") + kElasticJobAnnotation +
                           "]: Invalid value: " + (elastic ? "true" : "false") +
                           ": field is immutable");
  }
  return ValidateQueuedUpdate(kind.IsSuspended(new_job), kind.IsSuspended(old_job), old_job,
                              new_job);
}

Status ValidateManagedPodUpdate(const nlohmann::json& old_pod, const nlohmann::json& new_pod) {
  KUOTA_RETURN_IF_ERROR(
      ValidateQueuedUpdate(jobs::PodIsGated(new_pod), jobs::PodIsGated(old_pod), old_pod, new_pod));
  const std::string old_group = JobLabel(old_pod, jobs::kPodGroupNameLabel);
  const std::string new_group = JobLabel(new_pod, jobs::kPodGroupNameLabel);
  if (!old_group.empty() && new_group != old_group) {
    return InvalidLabel(jobs::kPodGroupNameLabel, new_group, "field is immutable");
  }
  return Status::Ok();
}

}  // namespace kuota::control
