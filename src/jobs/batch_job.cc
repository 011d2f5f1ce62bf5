#include "jobs/batch_job.h"

#include <algorithm>
#include <cstdlib>

#include "jobctl/job_spec.h"
#include "jobctl/pod_spec_schema.h"
#include "jobs/job_fields.h"
#include "jobs/pod_set_update.h"
#include "jobs/topology_request.h"

namespace kuota::jobs {
namespace {

int64_t IntOr(const Json& obj, const char* key, int64_t fallback) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return fallback;
  return it->get<int64_t>();
}

constexpr const char* kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";
// The scheduling gate Kueue's Job webhook puts on an elastic Job's pods: they
// wait until a slice that counts them is admitted.
constexpr const char* kElasticJobGate = "kueue.x-k8s.io/elastic-job";

bool IsElastic(const Json& job) {
  return MetaMapValue(job, "annotations", kElasticJobAnnotation) == "true";
}
// Where Kueue's Job webhook names the pod template's metadata.
constexpr const char* kJobTemplateMetaPath = "spec.template.metadata";

// Kueue's Job webhook on the template's topology annotations: Kueue's checks,
// then elastic jobs (kueue.x-k8s.io/elastic-job: "true") take no required or
// preferred topology, then a slice holds at most the Job's pods.
Status ValidateJobTopology(const Json& job) {
  const Json& spec = SpecOf(job);
  const Json& meta = ObjAt(ObjAt(spec, "template"), "metadata");
  KUOTA_RETURN_IF_ERROR(ValidateTopologyAnnotations(meta, kJobTemplateMetaPath));
  if (IsElastic(job)) {
    const Json& annotations = ObjAt(meta, "annotations");
    for (const auto& [key, what] : {std::pair{kPodSetRequiredTopologyAnnotation, "required"},
                                    std::pair{kPodSetPreferredTopologyAnnotation, "preferred"}}) {
      if (annotations.contains(key)) {
        return Status::Invalid(std::string(kJobTemplateMetaPath) + ".annotations." + key +
                               ": Forbidden: " + what +
                               " topology is not supported with elastic jobs");
      }
    }
  }
  const int64_t parallelism = IntOr(spec, "parallelism", 1);
  const int64_t count = std::min(parallelism, IntOr(spec, "completions", parallelism));
  return ValidateSliceSizeUpperBound(meta, kJobTemplateMetaPath, count);
}

}  // namespace

const KindInfo& BatchJob::Info() const {
  // Workloads keep the prefix "Job" in their name hash, as earlier versions did
  // (the name prints "job-").
  static const KindInfo kInfo = CrdKindInfo("batch", "v1", "Job", "Job", {.categories = {"all"}});
  return kInfo;
}

Status BatchJob::Validate(const Json& job) const {
  KUOTA_RETURN_IF_ERROR(jobctl::ValidateJob(job));
  if (auto st = job.find("status"); st != job.end() && !st->is_null()) {
    KUOTA_RETURN_IF_ERROR(jobctl::ValidateJobStatusSchema(*st, "status"));
  }
  const Json& spec = job.value("spec", Json::object());
  if (!spec.contains("template") || !spec["template"].is_object() ||
      !spec["template"].contains("spec")) {
    return Status::Invalid("spec.template.spec: Required value");
  }
  const Json& pod = spec["template"]["spec"];
  if (!pod.contains("containers") || !pod["containers"].is_array() || pod["containers"].empty()) {
    return Status::Invalid("spec.template.spec.containers: Required value");
  }
  std::string rp = pod.value("restartPolicy", "");
  if (rp != "Never" && rp != "OnFailure") {
    return Status::Invalid("spec.template.spec.restartPolicy: Unsupported value: \"" + rp +
                           "\": supported values: \"OnFailure\", \"Never\"");
  }
  // Kueue's Job webhook: partial admission and elastic jobs exclude each other.
  if (IsElastic(job)) {
    const std::string min = MetaMapValue(job, "annotations", kMinParallelismAnnotation);
    if (!min.empty()) {
      return Status::Invalid(std::string("metadata.annotations[") + kMinParallelismAnnotation +
                             "]: Invalid value: \"" + min +
                             "\": partial admission and elastic job cannot be used together");
    }
  }
  return ValidateJobTopology(job);
}

bool BatchJob::PodsReady(const Json& job) const {
  const Json st = job.value("status", Json::object());
  const Json spec = job.value("spec", Json::object());
  int64_t want = IntOr(spec, "parallelism", 1);
  if (spec.contains("completions") && spec["completions"].is_number_integer()) {
    want = std::min<int64_t>(want, spec["completions"].get<int64_t>() - IntOr(st, "succeeded", 0));
  }
  return IntOr(st, "ready", 0) + IntOr(st, "succeeded", 0) >= std::max<int64_t>(want, 1);
}

void BatchJob::DefaultOnCreate(Json& job) const {
  job["spec"]["suspend"] = true;
  if (!IsElastic(job)) return;
  // Kueue's applyWorkloadSliceSchedulingGate: every pod starts gated.
  Json& pod = job["spec"]["template"]["spec"];
  if (!pod.is_object()) return;
  Json& gates = pod["schedulingGates"];
  if (!gates.is_array()) gates = Json::array();
  for (const Json& g : gates) {
    if (g.is_object() && g.value("name", "") == kElasticJobGate) return;
  }
  gates.push_back({{"name", kElasticJobGate}});
}

Result<Json> BatchJob::BuildWorkload(const Json& job) const {
  if (!job.contains("metadata") || !job["metadata"].is_object()) {
    return Status::Invalid("job has no metadata");
  }
  const Json& meta = job["metadata"];
  const std::string name = meta.value("name", "");
  const std::string ns = meta.value("namespace", "");
  const std::string uid = meta.value("uid", "");
  if (name.empty() || uid.empty()) return Status::Invalid("job has no name or uid yet");
  const Json spec = job.value("spec", Json::object());
  if (!spec.contains("template") || !spec["template"].is_object()) {
    return Status::Invalid("spec.template: Required value");
  }
  int64_t parallelism = IntOr(spec, "parallelism", 1);
  int64_t completions = IntOr(spec, "completions", parallelism);
  // While running with a partial count, the original parallelism is saved.
  const Json annotations = meta.value("annotations", Json::object());
  auto orig = annotations.find(kOriginalPlacementAnnotation);
  Json template_ = spec["template"];
  if (orig != annotations.end() && orig->is_string()) {
    Json saved = Json::parse(orig->get<std::string>(), nullptr, false);
    if (saved.is_object()) {
      if (saved.contains("parallelism") && saved["parallelism"].is_number_integer()) {
        parallelism = saved["parallelism"].get<int64_t>();
      }
      if (saved.contains("nodeSelector")) {
        template_["spec"]["nodeSelector"] = saved["nodeSelector"];
      } else if (template_.contains("spec")) {
        template_["spec"].erase("nodeSelector");
      }
      if (saved.contains("tolerations")) {
        template_["spec"]["tolerations"] = saved["tolerations"];
      } else if (template_.contains("spec")) {
        template_["spec"].erase("tolerations");
      }
      RestoreTemplateMetadata(template_, saved);
    }
  }
  int64_t count = std::max<int64_t>(0, std::min(parallelism, completions));
  Json pod_set = {{"name", "main"}, {"count", count}};
  auto min_it = annotations.find(kMinParallelismAnnotation);
  if (min_it != annotations.end() && min_it->is_string()) {
    char* end = nullptr;
    long long m = std::strtoll(min_it->get<std::string>().c_str(), &end, 10);
    if (end && *end == '\0' && m >= 1 && m < count) pod_set["minCount"] = m;
  }
  Json tmpl_out = Json::object();
  if (template_.contains("metadata")) {
    Json tm = Json::object();
    for (const char* f : {"labels", "annotations"}) {
      if (template_["metadata"].contains(f)) tm[f] = template_["metadata"][f];
    }
    if (!tm.empty()) tmpl_out["metadata"] = tm;
  }
  tmpl_out["spec"] = template_.value("spec", Json::object());
  pod_set["template"] = tmpl_out;
  KUOTA_ASSIGN_OR_RETURN(Json topology,
                         BuildTopologyRequest(ObjAt(template_, "metadata"),
                                              {.pod_index_label = kJobCompletionIndexLabel}));
  if (!topology.is_null()) pod_set["topologyRequest"] = std::move(topology);

  Json wl = MakeJobWorkload("Job", "batch/v1", "Job", name, ns, uid, QueueName(job),
                            Json::array({pod_set}));
  if (IsElastic(job)) wl["metadata"]["annotations"][kElasticJobAnnotation] = "true";
  const Json labels = meta.value("labels", Json::object());
  auto pc = labels.find(kPriorityClassLabel);
  if (pc != labels.end() && pc->is_string()) {
    SetPriorityClassRef(wl, pc->get<std::string>(), true);
  } else if (tmpl_out["spec"].contains("priorityClassName") &&
             tmpl_out["spec"]["priorityClassName"].is_string()) {
    SetPriorityClassRef(wl, tmpl_out["spec"]["priorityClassName"].get<std::string>(), false);
  }
  return wl;
}

bool BatchJob::IsSuspended(const Json& job) const {
  auto spec = job.find("spec");
  if (spec == job.end()) return false;
  auto s = spec->find("suspend");
  return s != spec->end() && s->is_boolean() && s->get<bool>();
}

Json BatchJob::Start(const Json& job, const std::vector<PodSetPlacement>& placement) const {
  Json out = job;
  Json& spec = out["spec"];
  Json& pod = spec["template"]["spec"];
  Json saved = Json::object();
  if (pod.contains("nodeSelector")) saved["nodeSelector"] = pod["nodeSelector"];
  if (pod.contains("tolerations")) saved["tolerations"] = pod["tolerations"];
  // An elastic Job's parallelism is the user's to change while it runs (no
  // partial admission): it is neither saved nor restored.
  const bool elastic = IsElastic(job);
  if (!elastic) saved["parallelism"] = IntOr(spec, "parallelism", 1);
  for (const auto& p : placement) {
    if (p.name != "main") continue;
    for (const auto& [k, v] : p.node_selector) pod["nodeSelector"][k] = v;
    for (const auto& t : p.tolerations) pod["tolerations"].push_back(t);
    if (!elastic && p.count < saved["parallelism"].get<int64_t>()) spec["parallelism"] = p.count;
    ApplyTemplateMetadata(spec["template"], p, saved);
  }
  Json& annotations = out["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = Json::object();
  if (!annotations.contains(kOriginalPlacementAnnotation)) {
    annotations[kOriginalPlacementAnnotation] = saved.dump();
  }
  spec["suspend"] = false;
  return out;
}

Json BatchJob::Stop(const Json& job) const {
  Json out = job;
  Json& spec = out["spec"];
  spec["suspend"] = true;
  Json& meta = out["metadata"];
  if (meta.contains("annotations") && meta["annotations"].contains(kOriginalPlacementAnnotation)) {
    Json saved = Json::parse(meta["annotations"][kOriginalPlacementAnnotation].get<std::string>(),
                             nullptr, false);
    Json& pod = spec["template"]["spec"];
    if (saved.is_object()) {
      if (saved.contains("nodeSelector")) {
        pod["nodeSelector"] = saved["nodeSelector"];
      } else {
        pod.erase("nodeSelector");
      }
      if (saved.contains("tolerations")) {
        pod["tolerations"] = saved["tolerations"];
      } else {
        pod.erase("tolerations");
      }
      if (saved.contains("parallelism")) spec["parallelism"] = saved["parallelism"];
      RestoreTemplateMetadata(spec["template"], saved);
    }
    meta["annotations"].erase(kOriginalPlacementAnnotation);
  }
  return out;
}

bool BatchJob::IsFinished(const Json& job, bool* succeeded) const {
  auto status = job.find("status");
  if (status == job.end() || !status->contains("conditions")) return false;
  for (const auto& c : (*status)["conditions"]) {
    if (c.value("status", "") != "True") continue;
    const std::string type = c.value("type", "");
    if (type == "Complete" || type == "Failed") {
      if (succeeded) *succeeded = type == "Complete";
      return true;
    }
  }
  return false;
}

}  // namespace kuota::jobs
