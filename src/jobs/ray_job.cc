#include "jobs/ray_job.h"

#include <cctype>

#include "jobs/job_fields.h"
#include "jobs/ray_common.h"

namespace kuota::jobs {
namespace {

constexpr const char* kSubmitterPodSet = "submitter";
constexpr const char* kK8sJobMode = "K8sJobMode";
// KubeRay's default backoffLimit of the submitter Job.
constexpr int64_t kDefaultSubmitterBackoffLimit = 2;

std::string SubmissionMode(const Json& job) {
  const Json& spec = SpecOf(job);
  auto it = spec.find("submissionMode");
  return it != spec.end() && it->is_string() ? it->get<std::string>() : kK8sJobMode;
}

bool BoolAt(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

// The first container of the submitter template sets its own command.
bool SubmitterHasCommand(const Json& spec) {
  auto t = spec.find("submitterPodTemplate");
  if (t == spec.end() || !t->is_object()) return false;
  const Json& pod = t->value("spec", Json::object());
  const Json cs = pod.is_object() ? pod.value("containers", Json::array()) : Json::array();
  if (!cs.is_array() || cs.empty() || !cs[0].is_object()) return false;
  for (const char* f : {"command", "args"}) {
    auto it = cs[0].find(f);
    if (it != cs[0].end() && it->is_array() && !it->empty()) return true;
  }
  return false;
}

void SetOrErase(Json& obj, const char* key, const std::string& value) {
  if (value.empty()) {
    obj.erase(key);
  } else {
    obj[key] = value;
  }
}

}  // namespace

const KindInfo& RayJobKind::Info() const {
  // The CRD's additionalPrinterColumns.
  static const KindInfo kInfo =
      CrdKindInfo("ray.io", "v1", "RayJob", "RayJob",
                  {.categories = {"all"},
                   .columns = {
                       ray::Column("job status", "string", "/status/jobStatus"),
                       ray::Column("deployment status", "string", "/status/jobDeploymentStatus"),
                       ray::Column("ray cluster name", "string", "/status/rayClusterName"),
                       ray::Column("start time", "string", "/status/startTime"),
                       ray::Column("end time", "string", "/status/endTime"),
                       ray::Column("age", "date", "/metadata/creationTimestamp"),
                   }});
  return kInfo;
}

std::string RayJobKind::ClusterName(const Json& job) { return JobName(job) + "-raycluster"; }

std::string RayJobKind::JobId(const Json& job) {
  const Json& spec = SpecOf(job);
  if (auto it = spec.find("jobId"); it != spec.end() && it->is_string() && !it->empty()) {
    return it->get<std::string>();
  }
  std::string suffix;
  const Json meta = job.value("metadata", Json::object());
  const std::string uid = meta.is_object() ? meta.value("uid", "") : "";
  for (char c : uid) {
    if (suffix.size() == 5) break;
    if (std::isalnum(static_cast<unsigned char>(c))) {
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return suffix.empty() ? JobName(job) : JobName(job) + "-" + suffix;
}

Status RayJobKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  KUOTA_RETURN_IF_ERROR(ray::ValidateName(job, ray::kMaxRayJobNameLength));
  KUOTA_ASSIGN_OR_RETURN(const Json* spec_ptr, ObjectField(job, "spec", ""));
  const Json& spec = *spec_ptr;
  const bool managed = !QueueName(job).empty();
  // CRD schema.
  KUOTA_ASSIGN_OR_RETURN(std::string entrypoint, StringField(spec, "entrypoint", "spec"));
  KUOTA_RETURN_IF_ERROR(StringField(spec, "jobId", "spec").status());
  KUOTA_RETURN_IF_ERROR(StringField(spec, "runtimeEnvYAML", "spec").status());
  KUOTA_RETURN_IF_ERROR(CheckBool(spec, "shutdownAfterJobFinishes", "spec"));
  KUOTA_RETURN_IF_ERROR(CheckBool(spec, "suspend", "spec"));
  KUOTA_RETURN_IF_ERROR(IntField(spec, "backoffLimit", "spec", 0, 0).status());
  KUOTA_RETURN_IF_ERROR(IntField(spec, "activeDeadlineSeconds", "spec", 1, 1).status());
  KUOTA_RETURN_IF_ERROR(IntField(spec, "ttlSecondsAfterFinished", "spec", 0, 0).status());
  if (auto sc = spec.find("submitterConfig"); sc != spec.end() && !sc->is_null()) {
    if (!sc->is_object()) return InvalidValue("spec.submitterConfig", *sc, "must be an object");
    KUOTA_RETURN_IF_ERROR(IntField(*sc, "backoffLimit", "spec.submitterConfig", 0, 0).status());
  }
  KUOTA_ASSIGN_OR_RETURN(std::string mode,
                         StringField(spec, "submissionMode", "spec", kK8sJobMode));
  // Only K8sJobMode has a pod that submits the job; the local runtime has no
  // operator to submit over HTTP or to wait for an interactive submission.
  if (mode != kK8sJobMode) {
    return Status::Invalid("spec.submissionMode: Unsupported value: \"" + mode +
                           "\": supported values: \"K8sJobMode\"");
  }
  const Json* selector = nullptr;
  if (auto cs = spec.find("clusterSelector"); cs != spec.end() && !cs->is_null()) {
    if (!cs->is_object()) return InvalidValue("spec.clusterSelector", *cs, "must be an object");
    for (const auto& [k, v] : cs->items()) {
      if (!v.is_string()) return InvalidValue("spec.clusterSelector." + k, v, "must be a string");
    }
    if (!cs->empty()) selector = &*cs;
  }
  // Kueue's webhook.
  if (managed && !BoolAt(spec, "shutdownAfterJobFinishes")) {
    return InvalidValue("spec.shutdownAfterJobFinishes", false,
                        "a kueue managed job should delete the cluster after finishing");
  }
  if (selector != nullptr) {
    return InvalidValue("spec.clusterSelector", *selector,
                        managed ? "a kueue managed job should not use an existing cluster"
                                : "running on an existing cluster is not supported; set "
                                  "spec.rayClusterSpec");
  }
  KUOTA_RETURN_IF_ERROR(ray::ValidateClusterSpec(job, ray::RayJobClusterSpecAt(), managed,
                                                 "a kueue managed job should not use autoscaling"));
  if (auto t = spec.find("submitterPodTemplate"); t != spec.end() && !t->is_null()) {
    KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*t, "spec.submitterPodTemplate"));
  }
  if (entrypoint.empty() && !SubmitterHasCommand(spec)) return Required("spec.entrypoint");
  // KubeRay's own rule.
  if (BoolAt(spec, "suspend") && !BoolAt(spec, "shutdownAfterJobFinishes")) {
    return InvalidValue("spec.suspend", true,
                        "a RayJob with shutdownAfterJobFinishes set to false is not allowed to "
                        "be suspended");
  }
  // Kueue's webhook (managed jobs only): the topology annotations and the
  // pod set groups.
  return managed ? ValidateTopology(job, true) : Status::Ok();
}

void RayJobKind::Default(Json& job) const {
  if (SubmissionMode(job) != kK8sJobMode) return;
  Json& spec = job["spec"];
  if (spec.contains("submitterPodTemplate") && !spec["submitterPodTemplate"].is_null()) return;
  // KubeRay's default submitter: the head's image, so that versions match.
  const Json::json_pointer image_at(
      "/spec/rayClusterSpec/headGroupSpec/template/spec/containers/0/image");
  const std::string image = job.contains(image_at) && job.at(image_at).is_string()
                                ? job.at(image_at).get<std::string>()
                                : "";
  spec["submitterPodTemplate"] = {
      {"spec",
       {{"containers", Json::array({{{"name", "ray-job-submitter"},
                                     {"image", image},
                                     {"resources",
                                      {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}},
                                       {"requests", {{"cpu", "500m"}, {"memory", "200Mi"}}}}}}})},
        {"restartPolicy", "Never"}}}};
}

bool RayJobKind::IsFinished(const Json& job, bool* succeeded) const {
  const Json st = job.value("status", Json::object());
  if (!st.is_object()) return false;
  const std::string dep = st.value("jobDeploymentStatus", "");
  if (dep != "Complete" && dep != "Failed") return false;
  if (succeeded != nullptr) *succeeded = st.value("jobStatus", "") == "SUCCEEDED";
  return true;
}

bool RayJobKind::PodsReady(const Json& job) const {
  const Json st = job.value("status", Json::object());
  return st.is_object() && ray::ClusterPodsReady(st.value("rayClusterStatus", Json::object()));
}

std::vector<PodSetDef> RayJobKind::PodSets(const Json& job) const {
  std::vector<PodSetDef> sets = ray::ClusterPodSets(job, ray::RayJobClusterSpecAt());
  if (SubmissionMode(job) == kK8sJobMode) {
    PodSetDef submitter;
    submitter.name = kSubmitterPodSet;
    submitter.template_path = Json::json_pointer("/spec/submitterPodTemplate");
    submitter.count = 1;
    submitter.stage = 2;  // once the head and every worker run
    sets.push_back(std::move(submitter));
  }
  return sets;
}

std::string RayJobKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  if (set.name == kSubmitterPodSet) return GroupJobKind::PodName(job, set, index);
  return ray::RayPodName(ClusterName(job), set, index);
}

void RayJobKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  if (where.sets == nullptr || where.set >= where.sets->size()) return;
  if ((*where.sets)[where.set].name != kSubmitterPodSet) {
    ray::CustomizeRayPod(job, ray::RayJobClusterSpecAt(), ClusterName(job), where, pod);
    ray::SetLabel(pod, "ray.io/originated-from-crd", "RayJob");
    ray::SetLabel(pod, "ray.io/originated-from-cr-name", JobName(job));
    return;
  }
  // The submitter Job's pod.
  ray::SetLabel(pod, "ray.io/originated-from-crd", "RayJob");
  ray::SetLabel(pod, "ray.io/originated-from-cr-name", JobName(job));
  ray::SetLabel(pod, "batch.kubernetes.io/job-name", JobName(job));
  ray::SetLabel(pod, "job-name", JobName(job));
  ray::AddEnv(pod, "RAY_DASHBOARD_ADDRESS",
              where.address + ":" + ray::DashboardPort(job, ray::RayJobClusterSpecAt()), false);
  ray::AddEnv(pod, "RAY_JOB_SUBMISSION_ID", JobId(job), false);
  ray::AddEnv(pod, "RAY_ADDRESS",
              where.address + ":" + ray::HeadPort(job, ray::RayJobClusterSpecAt()), true);
  // KubeRay fills the submitter's command (`ray job submit ... -- <entrypoint>`)
  // when the template gives none; locally the submitter runs the entrypoint
  // itself against the head.
  const Json& spec = SpecOf(job);
  auto ep = spec.find("entrypoint");
  const std::string entrypoint = ep != spec.end() && ep->is_string() ? ep->get<std::string>() : "";
  if (entrypoint.empty() || !pod.contains("spec") || !pod["spec"].is_object()) return;
  auto cs = pod["spec"].find("containers");
  if (cs == pod["spec"].end() || !cs->is_array() || cs->empty() || !(*cs)[0].is_object()) return;
  Json& c = (*cs)[0];
  const bool has_cmd = c.contains("command") && c["command"].is_array() && !c["command"].empty();
  const bool has_args = c.contains("args") && c["args"].is_array() && !c["args"].empty();
  if (!has_cmd && !has_args) c["command"] = Json::array({"sh", "-c", entrypoint});
}

Json RayJobKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json old_in = job.value("status", Json::object());
  const Json old = old_in.is_object() ? old_in : Json::object();
  const std::string old_dep = old.value("jobDeploymentStatus", "");
  using Outcome = GroupObservation::Outcome;
  // A finished RayJob's status is final.
  if (old_dep == "Complete" || old_dep == "Failed") return old;
  const std::vector<PodSetDef> sets = PodSets(job);
  std::vector<PodSetDef> cluster_sets;
  const PodSetObservation* submitter = nullptr;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (sets[i].name == kSubmitterPodSet) {
      if (i < seen.sets.size()) submitter = &seen.sets[i];
    } else {
      cluster_sets.push_back(sets[i]);
    }
  }
  const std::string cluster = ClusterName(job);
  auto cluster_status = [&]() {
    return ray::ClusterStatus(job, ray::RayJobClusterSpecAt(), cluster, cluster_sets, seen,
                              old.value("rayClusterStatus", Json::object()));
  };

  Json st = old;
  std::string dep = old_dep;
  if (seen.outcome == Outcome::kSucceeded) {
    dep = "Complete";
    st["jobStatus"] = "SUCCEEDED";
    st.erase("reason");
    st["message"] = seen.message.empty() ? "Job finished successfully." : seen.message;
    st["endTime"] = seen.now;
    st["succeeded"] = 1;
    st["rayClusterStatus"] = cluster_status();
  } else if (seen.outcome == Outcome::kFailed) {
    dep = "Failed";
    st["jobStatus"] = "FAILED";
    st["reason"] = seen.reason == "DeadlineExceeded" ? "DeadlineExceeded" : "AppFailed";
    SetOrErase(st, "message", seen.message);
    st["endTime"] = seen.now;
    st["failed"] = 1;
    st["rayClusterStatus"] = cluster_status();
  } else if (seen.suspended) {
    // KubeRay deletes the cluster and resets what described it.
    dep = "Suspended";
    for (const char* f : {"jobStatus", "rayClusterName", "dashboardURL", "jobId", "message",
                          "reason", "rayClusterStatus"}) {
      st.erase(f);
    }
  } else {
    if (dep.empty() || dep == "Suspended") {
      dep = "Initializing";
      st["startTime"] = seen.now;
      st.erase("endTime");
    }
    st["jobId"] = JobId(job);
    st["rayClusterName"] = cluster;
    st["dashboardURL"] =
        std::string(ray::kLocalAddress) + ":" + ray::DashboardPort(job, ray::RayJobClusterSpecAt());
    st["rayClusterStatus"] = cluster_status();
    if (dep == "Initializing" && ray::ClusterPodsReady(st["rayClusterStatus"])) dep = "Running";
    if (dep == "Running") {
      const std::string old_job = old.value("jobStatus", "");
      st["jobStatus"] = submitter != nullptr && submitter->running > 0 ? "RUNNING"
                        : old_job.empty()                              ? "PENDING"
                                                                       : old_job;
    }
  }
  st["jobDeploymentStatus"] = dep;
  ray::RecordRestarts(st, seen.restarts);
  return st == old ? old : st;
}

int64_t RayJobKind::MaxRestarts(const Json& job) const {
  const Json& spec = SpecOf(job);
  auto sc = spec.find("submitterConfig");
  if (sc != spec.end() && sc->is_object()) {
    auto b = sc->find("backoffLimit");
    if (b != sc->end() && b->is_number_integer()) return b->get<int64_t>();
  }
  return kDefaultSubmitterBackoffLimit;
}

GroupAction RayJobKind::OnPodEvent(const Json& /*job*/, const PodSetDef& set,
                                   PodEvent event) const {
  if (set.name == kSubmitterPodSet) {
    // The submitter Job: done when its pod succeeds, retried (up to its
    // backoffLimit, counted by the runtime) when it fails.
    return event == PodEvent::kSucceeded ? GroupAction::kCompleteJob : GroupAction::kRestartPod;
  }
  // KubeRay recreates a Ray pod that ends.
  return GroupAction::kRestartPod;
}

bool RayJobKind::Succeeded(const Json& /*job*/, const std::vector<PodSetDef>& sets,
                           const GroupObservation& seen) const {
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    if (sets[i].name == kSubmitterPodSet) return seen.sets[i].succeeded > 0;
  }
  return false;
}

}  // namespace kuota::jobs
