#include "jobs/serving_workloads.h"

#include "jobs/job_fields.h"
#include "jobs/job_kind.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {

Json& MapAt(Json& parent, const char* key) {
  Json& v = parent[key];
  if (!v.is_object()) v = Json::object();
  return v;
}

int64_t ServingReplicas(const Json& object) {
  const Json spec = object.value("spec", Json::object());
  const Json r = spec.is_object() ? spec.value("replicas", Json(1)) : Json(1);
  return r.is_number_integer() ? r.get<int64_t>() : 1;
}

int64_t StatusInt(const Json& object, const char* field) {
  const Json status = object.value("status", Json::object());
  if (!status.is_object()) return 0;
  const Json v = status.value(field, Json(0));
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

std::string QueueLabelPath() { return std::string("metadata.labels[") + kQueueNameLabel + "]"; }

}  // namespace

std::string ServingFramework(const std::string& kind) {
  if (kind == "Deployment") return kDeploymentFramework;
  if (kind == "StatefulSet") return kStatefulSetFramework;
  return "";
}

void DefaultServingWorkload(const std::string& framework, Json& object) {
  const std::string queue = JobKind::QueueName(object);
  if (queue.empty()) return;
  Json& tmpl = MapAt(MapAt(object, "spec"), "template");
  Json& meta = MapAt(tmpl, "metadata");
  MapAt(meta, "annotations")[kPodSuspendingParentAnnotation] = framework;
  Json& labels = MapAt(meta, "labels");
  labels[kQueueNameLabel] = queue;
  if (framework != kDeploymentFramework) return;
  labels[kManagedLabel] = "true";
  const std::string priority = MetaMapValue(object, "labels", kPriorityClassLabel);
  if (!priority.empty()) labels[kPriorityClassLabel] = priority;
}

Status ValidateServingUpdate(const std::string& framework, const Json& old_object,
                             const Json& object) {
  const std::string old_queue = JobKind::QueueName(old_object);
  const std::string queue = JobKind::QueueName(object);
  const bool suspended = StatusInt(old_object, "readyReplicas") == 0;
  if ((!suspended || queue.empty()) && queue != old_queue) {
    return Status::Invalid(QueueLabelPath() + ": Invalid value: \"" + queue +
                           "\": field is immutable");
  }
  const std::string old_priority = MetaMapValue(old_object, "labels", kPriorityClassLabel);
  const std::string priority = MetaMapValue(object, "labels", kPriorityClassLabel);
  if (!suspended && !old_priority.empty() && priority != old_priority) {
    return Status::Invalid(std::string("metadata.labels[") + kPriorityClassLabel +
                           "]: Invalid value: \"" + priority + "\": field is immutable");
  }
  if (framework != kStatefulSetFramework || queue.empty()) return Status::Ok();
  const int64_t old_replicas = ServingReplicas(old_object), replicas = ServingReplicas(object);
  if (old_replicas != 0 && replicas != 0 && old_replicas != replicas) {
    return Status::Invalid("spec.replicas: Invalid value: " + std::to_string(replicas) +
                           ": field is immutable");
  }
  if (old_replicas == 0 && replicas > 0 && StatusInt(object, "replicas") > 0) {
    return Status::Forbidden("spec.replicas: Forbidden: scaling down is still in progress");
  }
  return Status::Ok();
}

std::string StatefulSetWorkloadName(const Json& sts) {
  return WorkloadNameFor("StatefulSet", MetaStr(sts, "name"), MetaStr(sts, "uid"));
}

void DefaultStatefulSetPod(const Json& sts, Json& pod) {
  const std::string queue = JobKind::QueueName(sts);
  if (queue.empty()) return;
  const std::string wl = StatefulSetWorkloadName(sts);
  Json& meta = MapAt(pod, "metadata");
  Json& labels = MapAt(meta, "labels");
  labels[kManagedLabel] = "true";
  labels[kQueueNameLabel] = queue;
  const std::string priority = MetaMapValue(sts, "labels", kPriorityClassLabel);
  if (!priority.empty()) labels[kPriorityClassLabel] = priority;
  labels[kPodGroupNameLabel] = wl;
  Json& ann = MapAt(meta, "annotations");
  ann[kPodGroupTotalCountAnnotation] = std::to_string(ServingReplicas(sts));
  ann[kPodGroupFastAdmissionAnnotation] = "true";
  ann[kPodGroupServingAnnotation] = "true";
  ann["kueue.x-k8s.io/pod-group-pod-index-label"] = "apps.kubernetes.io/pod-index";
  ann[kRoleHashAnnotation] = "main";
}

}  // namespace kuota::jobs
