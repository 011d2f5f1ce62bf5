#include "jobs/leader_worker_set.h"

#include <climits>
#include <cstdlib>

#include "api/object.h"
#include "jobs/job_fields.h"
#include "jobs/kind_info.h"
#include "jobs/pod_kind.h"
#include "jobs/topology_request.h"

namespace kuota::jobs {
namespace {

constexpr const char* kLwsTemplatePath = "spec.leaderWorkerTemplate";
constexpr const char* kLwsLeaderPath = "spec.leaderWorkerTemplate.leaderTemplate";
constexpr const char* kLwsWorkerPath = "spec.leaderWorkerTemplate.workerTemplate";
// LWS's webhook names the subgroup size with the Go field's capitals.
constexpr const char* kLwsSubGroupSizePath =
    "spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize";
constexpr const char* kLwsDomainPrefix = "leaderworkerset.sigs.k8s.io";
constexpr int64_t kLwsMaxReplicas = 1000000;
constexpr const char* kLwsPodIndexOffsetAnnotation = "kueue.x-k8s.io/pod-index-offset";
// What the MultiKueue manager puts on its copy of a set for a worker.
constexpr const char* kLwsMultiKueueOriginLabel = "kueue.x-k8s.io/multikueue-origin";
constexpr const char* kLwsMultiKueueOriginUidAnnotation = "kueue.x-k8s.io/multikueue-origin-uid";

const Json& LwsTemplate(const Json& job) { return ObjAt(SpecOf(job), "leaderWorkerTemplate"); }

// Kube's IsDNS1035Label: LWS names its headless Service after the set.
std::string CheckDns1035(const std::string& v) {
  const std::string msg =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
      "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
      "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  if (v.size() > kMaxLabelLength) return "must be no more than 63 characters";
  if (v.empty() || v.front() < 'a' || v.front() > 'z') return msg;
  for (char c : v) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return msg;
  }
  if (v.back() == '-') return msg;
  return "";
}

// An int-or-percent of LWS's rolling update ("25%" or 1), scaled against
// `total` (rounded up or down) into `out`; Invalid naming `path`.
Status ScaledIntOrPercent(const Json& v, const std::string& path, int64_t total, bool round_up,
                          int64_t* out) {
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < 0) return InvalidValue(path, v, "must be greater than or equal to 0");
    *out = v.get<int64_t>();
    return Status::Ok();
  }
  if (!v.is_string()) return InvalidValue(path, v, "must be an integer or percentage (e.g '5%')");
  const std::string s = v.get<std::string>();
  bool digits = s.size() >= 2 && s.back() == '%' && s.size() <= 11;
  for (size_t i = 0; digits && i + 1 < s.size(); ++i) digits = s[i] >= '0' && s[i] <= '9';
  if (!digits) {
    return InvalidValue(path, v,
                        "a valid percent string must be a numeric string followed by an ending "
                        "'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
  }
  const int64_t pct = std::strtoll(s.c_str(), nullptr, 10);
  if (pct > 100) return InvalidValue(path, v, "must not be greater than 100%");
  *out = round_up ? (pct * total + 99) / 100 : pct * total / 100;
  return Status::Ok();
}

Status CheckEnum(const Json& obj, const char* key, const std::string& path,
                 const std::vector<std::string>& allowed) {
  KUOTA_ASSIGN_OR_RETURN(std::string v, StringField(obj, key, path));
  if (v.empty() || Contains(allowed, v)) return Status::Ok();
  return NotSupportedValue(path + "." + key, v, allowed);
}

// LWS's webhook on the rolling update (ValidatePositiveIntOrPercent,
// IsNotMoreThan100Percent, partition, maxUnavailable and maxSurge not both 0).
Status ValidateRollout(const Json& spec, int64_t replicas) {
  const Json& rollout = ObjAt(spec, "rolloutStrategy");
  KUOTA_RETURN_IF_ERROR(CheckEnum(rollout, "type", "spec.rolloutStrategy", {"RollingUpdate"}));
  const Json& ru = ObjAt(rollout, "rollingUpdateConfiguration");
  const std::string path = "spec.rolloutStrategy.rollingUpdateConfiguration";
  KUOTA_RETURN_IF_ERROR(IntField(ru, "partition", path, 0, 0).status());
  int64_t unavailable = 1, surge = 0;
  const Json mu = ru.contains("maxUnavailable") ? ru["maxUnavailable"] : Json(1);
  const Json ms = ru.contains("maxSurge") ? ru["maxSurge"] : Json(0);
  KUOTA_RETURN_IF_ERROR(
      ScaledIntOrPercent(mu, path + ".maxUnavailable", replicas, false, &unavailable));
  KUOTA_RETURN_IF_ERROR(ScaledIntOrPercent(ms, path + ".maxSurge", replicas, true, &surge));
  if (unavailable == 0 && surge == 0 && replicas != 0) {
    return InvalidValue(path + ".maxUnavailable", mu, "must not be 0 when `maxSurge` is 0");
  }
  return Status::Ok();
}

Status ValidateSubGroupPolicy(const Json& lwt, int64_t size) {
  auto it = lwt.find("subGroupPolicy");
  if (it == lwt.end() || it->is_null()) return Status::Ok();
  const std::string path = std::string(kLwsTemplatePath) + ".subGroupPolicy";
  if (!it->is_object()) return InvalidValue(path, *it, "must be an object");
  KUOTA_RETURN_IF_ERROR(
      CheckEnum(*it, "subGroupPolicyType", path, {"LeaderWorker", "LeaderExcluded"}));
  auto sg_it = it->find("subGroupSize");
  if (sg_it == it->end() || sg_it->is_null()) return Required(path + ".subGroupSize");
  if (!sg_it->is_number_integer()) {
    return InvalidValue(path + ".subGroupSize", *sg_it, "must be an integer");
  }
  const int64_t sg = sg_it->get<int64_t>();
  if (sg < 1) {
    return InvalidValue(kLwsSubGroupSizePath, sg, "subGroupSize must be equal or greater than 1");
  }
  if (size % sg != 0 && (size - 1) % sg != 0) {
    return InvalidValue(kLwsSubGroupSizePath, sg,
                        "size or size - 1 must be divisible by subGroupSize");
  }
  if (size < sg) {
    return InvalidValue(kLwsSubGroupSizePath, sg, "subGroupSize cannot be larger than size");
  }
  if (StrAt(*it, "subGroupPolicyType") == "LeaderExcluded" && (size - 1) % sg != 0) {
    return InvalidValue(kLwsSubGroupSizePath, sg,
                        "size-1 must be divisible by subGroupSize when using LeaderExcluded");
  }
  return Status::Ok();
}

// The template metadata as Kueue's webhook reads it for topology checks.
const Json& TemplateMeta(const Json& tmpl) { return ObjAt(tmpl, "metadata"); }

// Kueue's ValidateTASPodSetRequest, slice upper bounds and pod set groups.
Status ValidateLwsTopology(const Json& job) {
  const Json& lwt = LwsTemplate(job);
  const int64_t size = LeaderWorkerSetKind::Size(job);
  const bool leader = LeaderWorkerSetKind::HasLeaderTemplate(job);
  std::vector<TopologyPodSet> sets;
  if (leader) {
    const std::string meta_path = std::string(kLwsLeaderPath) + ".metadata";
    const Json& meta = TemplateMeta(ObjAt(lwt, "leaderTemplate"));
    KUOTA_RETURN_IF_ERROR(ValidateTopologyAnnotations(meta, meta_path));
    KUOTA_RETURN_IF_ERROR(ValidateSliceSizeUpperBound(meta, meta_path, 1));
    KUOTA_ASSIGN_OR_RETURN(Json request, BuildTopologyRequest(meta, {}));
    sets.push_back({"leader", 1, request, meta_path + ".annotations"});
  }
  const std::string meta_path = std::string(kLwsWorkerPath) + ".metadata";
  const Json& meta = TemplateMeta(ObjAt(lwt, "workerTemplate"));
  const int64_t count = leader ? size - 1 : size;
  KUOTA_RETURN_IF_ERROR(ValidateTopologyAnnotations(meta, meta_path));
  KUOTA_RETURN_IF_ERROR(ValidateSliceSizeUpperBound(meta, meta_path, count));
  KUOTA_ASSIGN_OR_RETURN(Json request,
                         BuildTopologyRequest(meta, {.pod_index_label = kLwsWorkerIndexLabel}));
  sets.push_back({leader ? "worker" : "main", count, request, meta_path + ".annotations"});
  return ValidatePodSetGroups(sets);
}

// The parts of a pod spec Kueue's role hash reads (utilpod.SpecShape):
// what a queued LWS may not change in its templates.
Json SpecShape(const Json& spec) {
  Json shape = Json::object();
  for (const char* list : {"initContainers", "containers"}) {
    Json out = Json::array();
    for (const Json& c : ArrAt(spec, list)) {
      Json one = Json::object();
      one["resources"] = {{"requests", ObjAt(ObjAt(c, "resources"), "requests")}};
      one["ports"] = c.is_object() && c.contains("ports") ? c["ports"] : Json();
      out.push_back(one);
    }
    shape[list] = out;
  }
  for (const char* f : {"nodeSelector", "affinity", "tolerations", "runtimeClassName", "priority",
                        "topologySpreadConstraints", "overhead", "resourceClaims"}) {
    shape[f] = spec.is_object() && spec.contains(f) ? spec[f] : Json();
  }
  if (spec.is_object() && spec.contains("resources")) {
    shape["resources"] = ObjAt(spec["resources"], "requests");
  }
  return shape;
}

// The first field (in Kueue's walk of the shape) that differs between the
// two shapes, as "<path>.<field>", with its new value; Ok when none does.
Status CompareShapes(const Json& now, const Json& before, const std::string& path) {
  for (const auto& [k, v] : now.items()) {
    const Json& old = before.contains(k) ? before[k] : Json();
    const std::string child = path + "." + k;
    if (v.is_array() && old.is_array() && v.size() == old.size() &&
        k.find("ontainers") != std::string::npos) {
      for (size_t i = 0; i < v.size(); ++i) {
        KUOTA_RETURN_IF_ERROR(CompareShapes(v[i], old[i], child + "[" + std::to_string(i) + "]"));
      }
      continue;
    }
    if (v != old) return InvalidValue(child, v, "field is immutable");
  }
  return Status::Ok();
}

Status ImmutableTemplate(const Json& now, const Json& before, const std::string& path) {
  const bool has_now = now.is_object(), has_before = before.is_object();
  if (has_now != has_before) return InvalidValue(path, now, "field is immutable");
  if (!has_now) return Status::Ok();
  return CompareShapes(SpecShape(ObjAt(now, "spec")), SpecShape(ObjAt(before, "spec")),
                       path + ".spec");
}

// A pod template for a Workload pod set: LWS's own labels and annotations
// dropped, but for the set's name (Kueue's dropLWSPrefixedKeys).
Json PodSetTemplate(const Json& tmpl) {
  Json out = tmpl.is_object() ? tmpl : Json::object();
  if (out.contains("metadata") && out["metadata"].is_object()) {
    for (const char* map : {"labels", "annotations"}) {
      Json& m = out["metadata"][map];
      if (!m.is_object()) {
        out["metadata"].erase(map);
        continue;
      }
      Json kept = Json::object();
      for (const auto& [k, v] : m.items()) {
        if (k.rfind(kLwsDomainPrefix, 0) != 0 || k == kLwsNameLabel) kept[k] = v;
      }
      m = kept;
    }
  }
  return out;
}

void SetTemplateLabel(Json& tmpl, const char* map, const char* key, const std::string& value) {
  Json& meta = tmpl["metadata"];
  if (!meta.is_object()) meta = Json::object();
  if (!meta[map].is_object()) meta[map] = Json::object();
  meta[map][key] = value;
}

}  // namespace

const KindInfo& LeaderWorkerSetKind::Info() const {
  // The CRD's additionalPrinterColumns (Ready, Desired, Up-to-date, Age).
  static const KindInfo kInfo = [] {
    auto column = [](const char* name, const char* type, const char* pointer,
                     const char* description) {
      const Json::json_pointer at(pointer);
      return PrinterColumn{name, type, description, 0, [at](const Json& job) -> Json {
                             return job.contains(at) ? job.at(at) : Json();
                           }};
    };
    return CrdKindInfo(
        "leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", "LeaderWorkerSet",
        {.short_names = {"lws"},
         .columns =
             {
                 column("Ready", "integer", "/status/readyReplicas", "Number of ready replicas"),
                 column("Desired", "integer", "/spec/replicas", "Number of desired replicas"),
                 column("Up-to-date", "integer", "/status/updatedReplicas",
                        "Number of up-to-date replicas"),
                 column("Age", "date", "/metadata/creationTimestamp", ""),
             },
         // The CRD's subresources.scale: HPA selects the leaders.
         .scale = ScaleInfo{".spec.replicas", ".status.replicas", ".status.hpaPodSelector"}});
  }();
  return kInfo;
}

int64_t LeaderWorkerSetKind::Replicas(const Json& job) { return IntAt(SpecOf(job), "replicas", 1); }

int64_t LeaderWorkerSetKind::Size(const Json& job) { return IntAt(LwsTemplate(job), "size", 1); }

bool LeaderWorkerSetKind::HasLeaderTemplate(const Json& job) {
  const Json& lwt = LwsTemplate(job);
  auto it = lwt.find("leaderTemplate");
  return it != lwt.end() && it->is_object();
}

void LeaderWorkerSetKind::Default(Json& job) const {
  if (!job.is_object() || !job.contains("spec") || !job["spec"].is_object()) return;
  Json& spec = job["spec"];
  if (!spec.contains("replicas") || spec["replicas"].is_null()) spec["replicas"] = 1;
  if (!spec.contains("startupPolicy") || spec["startupPolicy"].is_null()) {
    spec["startupPolicy"] = "LeaderCreated";
  }
  if (spec.contains("leaderWorkerTemplate") && spec["leaderWorkerTemplate"].is_object()) {
    Json& lwt = spec["leaderWorkerTemplate"];
    if (!lwt.contains("size") || lwt["size"].is_null()) lwt["size"] = 1;
    const std::string restart = StrAt(lwt, "restartPolicy");
    if (restart.empty()) lwt["restartPolicy"] = "RecreateGroupOnPodRestart";
    if (restart == "Default") lwt["restartPolicy"] = "None";
    if (lwt.contains("subGroupPolicy") && lwt["subGroupPolicy"].is_object() &&
        !lwt["subGroupPolicy"].contains("subGroupPolicyType")) {
      lwt["subGroupPolicy"]["subGroupPolicyType"] = "LeaderWorker";
    }
  }
  if (!spec.contains("rolloutStrategy") || !spec["rolloutStrategy"].is_object()) {
    spec["rolloutStrategy"] = Json::object();
  }
  Json& rollout = spec["rolloutStrategy"];
  if (StrAt(rollout, "type").empty()) rollout["type"] = "RollingUpdate";
  if (rollout["type"] == "RollingUpdate" && (!rollout.contains("rollingUpdateConfiguration") ||
                                             rollout["rollingUpdateConfiguration"].is_null())) {
    rollout["rollingUpdateConfiguration"] = {
        {"maxUnavailable", 1}, {"maxSurge", 0}, {"partition", 0}};
  }
  if (!spec.contains("networkConfig") || !spec["networkConfig"].is_object()) {
    spec["networkConfig"] = Json::object();
  }
  if (StrAt(spec["networkConfig"], "subdomainPolicy").empty()) {
    spec["networkConfig"]["subdomainPolicy"] = "Shared";
  }
}

Status LeaderWorkerSetKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  if (std::string why = CheckDns1035(JobName(job)); !why.empty()) {
    return InvalidValue("metadata.name", JobName(job), why);
  }
  KUOTA_ASSIGN_OR_RETURN(const Json* spec, ObjectField(job, "spec", ""));
  // The CRD's schema.
  auto rep = spec->find("replicas");
  if (rep != spec->end() && !rep->is_null()) {
    if (!rep->is_number_integer()) return InvalidValue("spec.replicas", *rep, "must be an integer");
    if (rep->get<int64_t>() < 0) {
      return InvalidValue("spec.replicas", *rep,
                          "spec.replicas in body should be greater than or equal to 0");
    }
    if (rep->get<int64_t>() > kLwsMaxReplicas) {
      return InvalidValue("spec.replicas", *rep,
                          "spec.replicas in body should be less than or equal to 1000000");
    }
  }
  KUOTA_ASSIGN_OR_RETURN(const Json* lwt, ObjectField(*spec, "leaderWorkerTemplate", "spec"));
  KUOTA_ASSIGN_OR_RETURN(const Json* worker, ObjectField(*lwt, "workerTemplate", kLwsTemplatePath));
  KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*worker, kLwsWorkerPath));
  if (auto l = lwt->find("leaderTemplate"); l != lwt->end() && !l->is_null()) {
    if (!l->is_object()) return InvalidValue(kLwsLeaderPath, *l, "must be an object");
    KUOTA_RETURN_IF_ERROR(CheckPodTemplate(*l, kLwsLeaderPath));
  }
  KUOTA_ASSIGN_OR_RETURN(int64_t size, IntField(*lwt, "size", kLwsTemplatePath, 1, INT64_MIN));
  KUOTA_RETURN_IF_ERROR(
      CheckEnum(*lwt, "restartPolicy", kLwsTemplatePath,
                {"Default", "RecreateGroupOnPodRestart", "RecreateGroupAfterStart", "None"}));
  KUOTA_RETURN_IF_ERROR(
      CheckEnum(*spec, "startupPolicy", "spec", {"LeaderCreated", "LeaderReady"}));
  KUOTA_RETURN_IF_ERROR(CheckEnum(ObjAt(*spec, "networkConfig"), "subdomainPolicy",
                                  "spec.networkConfig", {"Shared", "UniquePerReplica"}));
  // LWS's webhook.
  const int64_t replicas = Replicas(job);
  if (size < 1) {
    return InvalidValue(std::string(kLwsTemplatePath) + ".size", size,
                        "size must be equal or greater than 1");
  }
  if (size > INT32_MAX) {  // the CRD's int32
    return InvalidValue(std::string(kLwsTemplatePath) + ".size", size,
                        "must be less than or equal to 2147483647");
  }
  if (replicas * size > INT32_MAX) {
    return InvalidValue("spec.replicas", replicas,
                        "the product of replicas and worker replicas must not exceed 2147483647");
  }
  KUOTA_RETURN_IF_ERROR(ValidateRollout(*spec, replicas));
  KUOTA_RETURN_IF_ERROR(ValidateSubGroupPolicy(*lwt, size));
  if (!lwt->contains("subGroupPolicy") || (*lwt)["subGroupPolicy"].is_null()) {
    const char* key = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology";
    if (std::string v = MetaMapValue(job, "annotations", key); !v.empty()) {
      return InvalidValue(std::string("metadata.annotations.") + key, v,
                          "cannot have subgroup-exclusive-topology without subGroupSize set");
    }
  }
  // Kueue's webhook, on a queued LWS: the topology annotations.
  if (QueueName(job).empty()) return Status::Ok();
  return ValidateLwsTopology(job);
}

Status LeaderWorkerSetKind::ValidateUpdate(const Json& old_job, const Json& job) const {
  // LWS's webhook: the subgroup size is fixed.
  const Json& sg_new = ObjAt(LwsTemplate(job), "subGroupPolicy");
  const Json& sg_old = ObjAt(LwsTemplate(old_job), "subGroupPolicy");
  const bool had = LwsTemplate(old_job).contains("subGroupPolicy") &&
                   LwsTemplate(old_job)["subGroupPolicy"].is_object();
  const bool has =
      LwsTemplate(job).contains("subGroupPolicy") && LwsTemplate(job)["subGroupPolicy"].is_object();
  if (has && !had) {
    return InvalidValue(kLwsSubGroupSizePath, sg_new.value("subGroupSize", Json()),
                        "cannot enable subGroupSize after the lws is already created");
  }
  if (!has && had) {
    return InvalidValue(kLwsSubGroupSizePath, sg_old.value("subGroupSize", Json()),
                        "cannot remove subGroupSize after enabled");
  }
  if (has && had && sg_new.value("subGroupSize", Json()) != sg_old.value("subGroupSize", Json())) {
    return InvalidValue(kLwsSubGroupSizePath, sg_new.value("subGroupSize", Json()),
                        "field is immutable");
  }
  // Kueue's webhook: the queue name cannot be removed.
  const std::string old_queue = QueueName(old_job), queue = QueueName(job);
  if (queue.empty() && !old_queue.empty()) {
    return InvalidValue(std::string("metadata.labels[") + kQueueNameLabel + "]", queue,
                        "field is immutable");
  }
  if (queue.empty()) return Status::Ok();
  // A queued LWS keeps what its Workloads were built from.
  KUOTA_RETURN_IF_ERROR(ImmutableTemplate(ObjAt(LwsTemplate(job), "leaderTemplate"),
                                          ObjAt(LwsTemplate(old_job), "leaderTemplate"),
                                          kLwsLeaderPath));
  KUOTA_RETURN_IF_ERROR(ImmutableTemplate(ObjAt(LwsTemplate(job), "workerTemplate"),
                                          ObjAt(LwsTemplate(old_job), "workerTemplate"),
                                          kLwsWorkerPath));
  if (Size(job) != Size(old_job)) {
    return InvalidValue(std::string(kLwsTemplatePath) + ".size", Size(job), "field is immutable");
  }
  return Status::Ok();
}

void LeaderWorkerSetKind::DefaultOnCreate(Json& job) const {
  if (!job.is_object() || !job.contains("spec") || !job["spec"].is_object()) return;
  Json& lwt = job["spec"]["leaderWorkerTemplate"];
  if (!lwt.is_object()) return;
  const std::string queue = QueueName(job);
  const std::string priority = MetaMapValue(job, "labels", kPriorityClassLabel);
  const bool leader = HasLeaderTemplate(job);
  for (const char* which : {"leaderTemplate", "workerTemplate"}) {
    if (!lwt.contains(which) || !lwt[which].is_object()) continue;
    Json& tmpl = lwt[which];
    if (!queue.empty()) SetTemplateLabel(tmpl, "labels", kQueueNameLabel, queue);
    if (!priority.empty()) SetTemplateLabel(tmpl, "labels", kPriorityClassLabel, priority);
    SetTemplateLabel(tmpl, "annotations", kPodSuspendingParentAnnotation,
                     kLeaderWorkerSetFramework);
    SetTemplateLabel(tmpl, "annotations", kPodGroupServingAnnotation, "true");
    // The workers follow the leader in the group's numbering (Kueue's
    // topology ungater reads the offset) unless both form a pod set group.
    if (leader && std::string(which) == "workerTemplate" &&
        MetaMapValue(tmpl, "annotations", kPodSetGroupNameAnnotation).empty()) {
      SetTemplateLabel(tmpl, "annotations", kLwsPodIndexOffsetAnnotation, "1");
    }
  }
}

bool LeaderWorkerSetKind::IsMultiKueueCopy(const Json& job) {
  const Json& labels = ObjAt(ObjAt(job, "metadata"), "labels");
  return labels.is_object() && labels.contains(kLwsMultiKueueOriginLabel);
}

std::string LeaderWorkerSetKind::OwnerUid(const Json& job) {
  if (IsMultiKueueCopy(job)) {
    const std::string origin = MetaMapValue(job, "annotations", kLwsMultiKueueOriginUidAnnotation);
    if (!origin.empty()) return origin;
  }
  return MetaStr(job, "uid");
}

std::string LeaderWorkerSetKind::GroupWorkloadName(const Json& job, int64_t index) {
  return WorkloadNameFor("LeaderWorkerSet", JobName(job) + "-" + std::to_string(index),
                         OwnerUid(job));
}

Result<Json> LeaderWorkerSetKind::GroupWorkload(const Json& job, int64_t index) const {
  const Json& lwt = LwsTemplate(job);
  const bool leader = HasLeaderTemplate(job);
  const int64_t size = Size(job);
  Json pod_sets = Json::array();
  std::string priority_class;
  if (leader) {
    const Json& tmpl = lwt["leaderTemplate"];
    Json ps = {{"name", "leader"}, {"count", 1}, {"template", PodSetTemplate(tmpl)}};
    KUOTA_ASSIGN_OR_RETURN(Json request, BuildTopologyRequest(TemplateMeta(tmpl), {}));
    if (!request.is_null()) ps["topologyRequest"] = std::move(request);
    pod_sets.push_back(std::move(ps));
    priority_class = StrAt(ObjAt(tmpl, "spec"), "priorityClassName");
  }
  const Json& worker = ObjAt(lwt, "workerTemplate");
  Json ps = {{"name", leader ? "worker" : "main"},
             {"count", leader ? size - 1 : size},
             {"template", PodSetTemplate(worker)}};
  KUOTA_ASSIGN_OR_RETURN(
      Json request,
      BuildTopologyRequest(TemplateMeta(worker), {.pod_index_label = kLwsWorkerIndexLabel}));
  if (!request.is_null()) ps["topologyRequest"] = std::move(request);
  pod_sets.push_back(std::move(ps));
  if (priority_class.empty()) priority_class = StrAt(ObjAt(worker, "spec"), "priorityClassName");

  const std::string name = JobName(job), uid = MetaStr(job, "uid");
  Json wl =
      MakeJobWorkload("LeaderWorkerSet", ApiVersion(), Kind(), name + "-" + std::to_string(index),
                      MetaStr(job, "namespace"), uid, QueueName(job), std::move(pod_sets));
  wl["metadata"]["ownerReferences"][0]["name"] = name;
  wl["metadata"]["annotations"] = {
      {kIsGroupWorkloadAnnotation, "true"},
      {"kueue.x-k8s.io/job-owner-gvk", "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet"},
      {"kueue.x-k8s.io/job-owner-name", name},
      {"kueue.x-k8s.io/component-workload-index", std::to_string(index)}};
  if (const std::string wpc = MetaMapValue(job, "labels", kPriorityClassLabel); !wpc.empty()) {
    SetPriorityClassRef(wl, wpc, true);
  } else if (!priority_class.empty()) {
    SetPriorityClassRef(wl, priority_class, false);
  }
  ApplyMaxExecutionTime(job, wl);
  return wl;
}

Result<Json> LeaderWorkerSetKind::BuildWorkload(const Json& job) const {
  return GroupWorkload(job, 0);
}

bool LeaderWorkerSetKind::IsSuspended(const Json& job) const {
  // What Kueue's LWS webhook takes for suspended: no group is ready yet.
  return IntAt(ObjAt(job, "status"), "readyReplicas", 0) == 0;
}

Json LeaderWorkerSetKind::Start(const Json& job, const std::vector<PodSetPlacement>&) const {
  return job;
}

Json LeaderWorkerSetKind::Stop(const Json& job) const { return job; }

bool LeaderWorkerSetKind::IsFinished(const Json&, bool*) const { return false; }

bool LeaderWorkerSetKind::PodsReady(const Json& job) const {
  return IntAt(ObjAt(job, "status"), "readyReplicas", 0) >= Replicas(job);
}

std::string LeaderWorkerSetKind::PodSetTemplateField(const Json& job, size_t index) const {
  return HasLeaderTemplate(job) && index == 0 ? kLwsLeaderPath : kLwsWorkerPath;
}

bool LeaderWorkerSetKind::SuspendedByLeaderWorkerSet(const Json& pod) {
  return MetaMapValue(pod, "annotations", kPodSuspendingParentAnnotation) ==
         kLeaderWorkerSetFramework;
}

std::optional<Json> LeaderWorkerSetKind::DefaultGroupPod(const Json& job, const Json& pod) {
  if (IsManagedPod(pod) || PodIsTerminal(pod) || PodIsDeleting(pod)) return std::nullopt;
  const std::string group = MetaMapValue(pod, "labels", kLwsGroupIndexLabel);
  if (group.empty()) return std::nullopt;  // LWS's pod webhook sets it first
  char* end = nullptr;
  const long long index = std::strtoll(group.c_str(), &end, 10);
  if (end == group.c_str() || *end != '\0' || index < 0) return std::nullopt;
  const std::string wl = GroupWorkloadName(job, index);
  Json out = pod;
  Json& meta = out["metadata"];
  if (!meta["labels"].is_object()) meta["labels"] = Json::object();
  if (!meta["annotations"].is_object()) meta["annotations"] = Json::object();
  meta["labels"][kManagedLabel] = "true";
  const std::string queue = QueueName(job);
  if (!queue.empty() && PodIsGated(pod)) meta["labels"][kQueueNameLabel] = queue;
  meta["labels"][kPodGroupNameLabel] = wl;
  meta["labels"][kPrebuiltWorkloadLabel] = wl;
  meta["annotations"][kPodGroupTotalCountAnnotation] = std::to_string(Size(job));
  std::string role = "main";
  if (HasLeaderTemplate(job)) {
    role = meta["annotations"].contains(kLwsLeaderNameAnnotation) ? "worker" : "leader";
  }
  meta["annotations"][kRoleHashAnnotation] = role;
  return out;
}

}  // namespace kuota::jobs
