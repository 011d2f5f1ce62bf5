#include "jobs/train_job.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "jobctl/job_conditions.h"
#include "jobs/job_fields.h"
#include "jobs/jobset.h"
#include "jobs/train_job_runtime.h"

namespace kuota::jobs {
namespace {

constexpr const char* kTjClusterRuntime = "ClusterTrainingRuntime";
constexpr const char* kTjRuntime = "TrainingRuntime";
constexpr const char* kTjJobSetKey = "jobSet";  // where Expand puts the JobSet

const JobSetKind& TjJobSets() {
  static const JobSetKind kJobSets;
  return kJobSets;
}

std::string TjRefKind(const Json& job) {
  const std::string k = StrAt(ObjAt(SpecOf(job), "runtimeRef"), "kind");
  return k.empty() ? kTjClusterRuntime : k;
}

// The runtime copied into the job, or null.
Json TjSnapshot(const Json& job) {
  const std::string text = MetaMapValue(job, "annotations", kTrainingRuntimeAnnotation);
  if (text.empty()) return Json();
  Json s = Json::parse(text, nullptr, false);
  return s.is_object() ? s : Json();
}

// Whether the copied runtime is the one runtimeRef names now.
bool TjSnapshotMatches(const Json& job, const Json& snapshot) {
  const Json& ref = ObjAt(SpecOf(job), "runtimeRef");
  return snapshot.is_object() && StrAt(snapshot, "kind") == TjRefKind(job) &&
         MetaStr(snapshot, "name") == StrAt(ref, "name");
}

// The JobSet view of an expanded TrainJob, for JobSet's pod and status
// rules: the TrainJob's metadata, the JobSet spec, the restarts.
Json TjAsJobSet(const Json& view, int64_t restarts) {
  return {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
          {"kind", "JobSet"},
          {"metadata", ObjAt(view, "metadata")},
          {"spec", ObjAt(ObjAt(view, kTjJobSetKey), "spec")},
          {"status", {{"restarts", restarts}}}};
}

Result<Json> TjExpand(const Json& job, bool without_kueue_patch) {
  const Json snapshot = TjSnapshot(job);
  if (!TjSnapshotMatches(job, snapshot)) {
    return Status::NotFound("spec.runtimeRef: " + TjRefKind(job) + " " +
                            Quoted(StrAt(ObjAt(SpecOf(job), "runtimeRef"), "name")) +
                            " is not resolved yet");
  }
  TrainJobBuildOptions opts;
  opts.without_kueue_patch = without_kueue_patch;
  KUOTA_ASSIGN_OR_RETURN(Json spec, BuildTrainJobSet(job, snapshot, opts));
  Json view = job;
  view[kTjJobSetKey] = {{"spec", std::move(spec)}};
  return view;
}

const Json& TjViewOf(const Json& job, Json& storage) {
  if (job.contains(kTjJobSetKey)) return job;
  auto v = TjExpand(job, false);
  storage = v.ok() ? std::move(*v) : Json();
  return storage;
}

// A metav1.Condition (no lastUpdateTime).
Json TjCondition(const std::string& type, const std::string& status, const std::string& reason,
                 const std::string& message, const std::string& now) {
  Json c = MakeCondition(type, status, reason, message, now);
  c.erase("lastUpdateTime");
  return c;
}

bool TjConditionTrue(const Json& job, const std::string& type) {
  return jobctl::IsConditionTrue(ArrAt(ObjAt(job, "status"), "conditions"), type);
}

Status TjCheckStrings(const Json& obj, const char* key, const std::string& path) {
  auto v = obj.find(key);
  if (v == obj.end() || v->is_null()) return Status::Ok();
  if (!v->is_array()) return InvalidValue(path + "." + key, *v, "must be an array");
  if (v->size() > 128) {
    return Status::Invalid(path + "." + key + ": Too many: " + std::to_string(v->size()) +
                           ": must have at most 128 items");
  }
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) {
      return InvalidValue(path + "." + key + "[" + std::to_string(i) + "]", (*v)[i],
                          "must be a string");
    }
  }
  return Status::Ok();
}

Status TjCheckTrainer(const Json& spec) {
  auto t = spec.find("trainer");
  if (t == spec.end() || t->is_null()) return Status::Ok();
  const std::string path = "spec.trainer";
  if (!t->is_object()) return InvalidValue(path, *t, "must be an object");
  KUOTA_RETURN_IF_ERROR(StringField(*t, "image", path).status());
  KUOTA_RETURN_IF_ERROR(TjCheckStrings(*t, "command", path));
  KUOTA_RETURN_IF_ERROR(TjCheckStrings(*t, "args", path));
  KUOTA_RETURN_IF_ERROR(IntField(*t, "numNodes", path, 0, 0).status());
  if (auto n = t->find("numProcPerNode"); n != t->end() && !n->is_null()) {
    if (!n->is_number_integer())
      return InvalidValue(path + ".numProcPerNode", *n, "must be an integer");
    if (n->get<int64_t>() < 1) {
      return InvalidValue(path + ".numProcPerNode", *n,
                          "numProcPerNode must be greater than or equal to 1");
    }
  }
  if (auto r = t->find("resourcesPerNode"); r != t->end() && !r->is_null() && !r->is_object()) {
    return InvalidValue(path + ".resourcesPerNode", *r, "must be an object");
  }
  if (auto env = t->find("env"); env != t->end() && !env->is_null()) {
    if (!env->is_array()) return InvalidValue(path + ".env", *env, "must be an array");
    std::set<std::string> names;
    for (size_t i = 0; i < env->size(); ++i) {
      const Json& e = (*env)[i];
      const std::string at = path + ".env[" + std::to_string(i) + "]";
      if (!e.is_object()) return InvalidValue(at, e, "must be an object");
      KUOTA_ASSIGN_OR_RETURN(std::string name, StringField(e, "name", at));
      if (name.empty()) return Required(at + ".name");
      if (!names.insert(name).second) {
        return Status::Invalid(at + ": Duplicate value: {\"name\":" + Json(name).dump() + "}");
      }
    }
  }
  return Status::Ok();
}

Status TjCheckPatches(const Json& spec) {
  auto p = spec.find("runtimePatches");
  if (p == spec.end() || p->is_null()) return Status::Ok();
  const std::string path = "spec.runtimePatches";
  if (!p->is_array()) return InvalidValue(path, *p, "must be an array");
  if (p->size() > 16) {
    return Status::Invalid(path + ": Too many: " + std::to_string(p->size()) +
                           ": must have at most 16 items");
  }
  std::set<std::string> managers;
  for (size_t i = 0; i < p->size(); ++i) {
    const Json& patch = (*p)[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!patch.is_object()) return InvalidValue(at, patch, "must be an object");
    KUOTA_ASSIGN_OR_RETURN(std::string manager, StringField(patch, "manager", at));
    if (manager.empty()) return Required(at + ".manager");
    if (!managers.insert(manager).second) {
      return Status::Invalid(at + ": Duplicate value: {\"manager\":" + Json(manager).dump() + "}");
    }
    if (auto ts = patch.find("trainingRuntimeSpec"); ts != patch.end() && !ts->is_null()) {
      if (!ts->is_object())
        return InvalidValue(at + ".trainingRuntimeSpec", *ts, "must be an object");
      const Json& rjobs = ObjAt(ObjAt(ObjAt(*ts, "template"), "spec"), "replicatedJobs");
      if (!rjobs.is_null() && !rjobs.is_array() && !rjobs.empty()) {
        return InvalidValue(at + ".trainingRuntimeSpec.template.spec.replicatedJobs", rjobs,
                            "must be an array");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const KindInfo& TrainJobKind::Info() const {
  // Trainer's printer columns: STATE (the last condition's type) and AGE.
  static const KindInfo kInfo =
      CrdKindInfo("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjob",
                  {.columns = {
                       {"State", "string", "", 0,
                        [](const Json& job) -> Json {
                          const Json& c = ArrAt(ObjAt(job, "status"), "conditions");
                          if (c.empty() || !c.back().is_object()) return nullptr;
                          return StrAt(c.back(), "type");
                        }},
                       {"Age", "date", "", 0,
                        [](const Json& job) -> Json {
                          const Json& m = ObjAt(job, "metadata");
                          return m.contains("creationTimestamp") ? m["creationTimestamp"] : Json();
                        }},
                   }});
  return kInfo;
}

void TrainJobKind::Default(Json& job) const {
  if (!job.contains("spec") || !job["spec"].is_object()) return;
  Json& ref = job["spec"]["runtimeRef"];
  if (!ref.is_object()) {
    if (ref.is_null()) job["spec"].erase("runtimeRef");
    return;
  }
  if (!ref.contains("apiGroup") || ref["apiGroup"].is_null()) ref["apiGroup"] = kTrainerGroup;
  if (!ref.contains("kind") || ref["kind"].is_null()) ref["kind"] = kTjClusterRuntime;
}

void TrainJobKind::DefaultOnCreate(Json& job) const {
  GroupJobKind::DefaultOnCreate(job);
  Json& patches = job["spec"]["runtimePatches"];
  if (!patches.is_array()) patches = Json::array();
  for (const Json& p : patches) {
    if (p.is_object() && StrAt(p, "manager") == kKueueRuntimePatchManager) return;
  }
  patches.push_back({{"manager", kKueueRuntimePatchManager},
                     {"trainingRuntimeSpec", {{"template", {{"spec", Json::object()}}}}}});
}

Status TrainJobKind::Validate(const Json& job) const {
  if (!job.is_object()) return InvalidValue("", job, "must be an object");
  const std::string name = MetaStr(job, "name");
  if (name.size() > 63) {
    return InvalidValue("metadata.name", name, "metadata.name must be no more than 63 characters");
  }
  const bool rfc1035 =
      !name.empty() && name.front() >= 'a' && name.front() <= 'z' &&
      std::all_of(
          name.begin(), name.end(),
          [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }) &&
      name.back() != '-';
  if (!name.empty() && !rfc1035) {
    return InvalidValue("metadata.name", name,
                        "metadata.name must match RFC 1035 DNS label format");
  }
  auto spec_it = job.find("spec");
  if (spec_it == job.end() || spec_it->is_null()) return Required("spec.runtimeRef");
  if (!spec_it->is_object()) return InvalidValue("spec", *spec_it, "must be an object");
  const Json& spec = *spec_it;
  auto ref = spec.find("runtimeRef");
  if (ref == spec.end() || ref->is_null()) return Required("spec.runtimeRef");
  if (!ref->is_object()) return InvalidValue("spec.runtimeRef", *ref, "must be an object");
  KUOTA_ASSIGN_OR_RETURN(std::string ref_name, StringField(*ref, "name", "spec.runtimeRef"));
  if (ref_name.empty()) return Required("spec.runtimeRef.name");
  KUOTA_ASSIGN_OR_RETURN(std::string group,
                         StringField(*ref, "apiGroup", "spec.runtimeRef", kTrainerGroup));
  KUOTA_ASSIGN_OR_RETURN(std::string kind,
                         StringField(*ref, "kind", "spec.runtimeRef", kTjClusterRuntime));
  const std::vector<std::pair<std::string, std::string>> ref_fields = {
      {"name", ref_name}, {"apiGroup", group}, {"kind", kind}};
  for (const auto& [field, value] : ref_fields) {
    if (value.size() > 253) {
      return Status::Invalid("spec.runtimeRef." + field +
                             ": Too long: may not be more than 253 bytes");
    }
  }
  // Trainer's webhook: the runtime registry holds these two.
  if (group != kTrainerGroup || (kind != kTjClusterRuntime && kind != kTjRuntime)) {
    return Status::Invalid("spec.runtimeRef: unsupported runtime: " + kind + "." + group);
  }
  KUOTA_RETURN_IF_ERROR(CheckBool(spec, "suspend", "spec"));
  KUOTA_RETURN_IF_ERROR(IntField(spec, "activeDeadlineSeconds", "spec", 1, 1).status());
  KUOTA_ASSIGN_OR_RETURN(std::string managed_by, StringField(spec, "managedBy", "spec"));
  if (spec.contains("managedBy") && !spec["managedBy"].is_null() &&
      managed_by != "trainer.kubeflow.org/trainjob-controller" &&
      managed_by != "kueue.x-k8s.io/multikueue") {
    return InvalidValue("spec.managedBy", managed_by,
                        "ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
                        "kueue.x-k8s.io/multikueue if set");
  }
  KUOTA_RETURN_IF_ERROR(TjCheckTrainer(spec));
  KUOTA_RETURN_IF_ERROR(TjCheckPatches(spec));
  // With its runtime known: the torch plugin's rules, and Kueue's topology
  // annotations on the JobSet's templates.
  if (TjSnapshotMatches(job, TjSnapshot(job))) {
    KUOTA_ASSIGN_OR_RETURN(Json view, TjExpand(job, true));
    KUOTA_RETURN_IF_ERROR(ValidateTopology(view, false));
  }
  return Status::Ok();
}

Status TrainJobKind::ValidateUpdate(const Json& old_job, const Json& job) const {
  // Compared as the CRD's defaults leave them (applied on every write).
  Json before = old_job, after = job;
  Default(before);
  Default(after);
  const Json& was = SpecOf(before);
  const Json& is = SpecOf(after);
  for (const char* f :
       {"runtimeRef", "initializer", "trainer", "activeDeadlineSeconds", "managedBy"}) {
    Json a = was.contains(f) ? was[f] : Json();
    Json b = is.contains(f) ? is[f] : Json();
    if (std::string(f) == "managedBy") {  // the CRD's default
      if (a.is_null()) a = "trainer.kubeflow.org/trainjob-controller";
      if (b.is_null()) b = "trainer.kubeflow.org/trainjob-controller";
    }
    // Transition rules hold only where the field is there before and after.
    if (!a.is_null() && !b.is_null() && a != b) {
      // As the CEL rule's error shows it: an object as "object".
      return InvalidValue(std::string("spec.") + f, b.is_object() ? Json("object") : b,
                          "field is immutable");
    }
  }
  return Status::Ok();
}

std::vector<std::string> TrainJobKind::ReferencedResources() const {
  return {std::string("trainingruntimes.") + kTrainerGroup,
          std::string("clustertrainingruntimes.") + kTrainerGroup};
}

std::optional<ReferencedObject> TrainJobKind::PendingReference(const Json& job) const {
  const Json& ref = ObjAt(SpecOf(job), "runtimeRef");
  const std::string name = StrAt(ref, "name");
  if (name.empty() || TjSnapshotMatches(job, TjSnapshot(job))) return std::nullopt;
  ReferencedObject r;
  r.kind = TjRefKind(job);
  r.name = name;
  const std::vector<std::string> resources = ReferencedResources();
  if (r.kind == kTjRuntime) {
    r.resource = resources[0];
    r.ns = MetaStr(job, "namespace");
  } else {
    r.resource = resources[1];
  }
  return r;
}

Result<Json> TrainJobKind::WithReference(const Json& job, const Json& runtime) const {
  Json snapshot = {
      {"apiVersion", std::string(kTrainerGroup) + "/v1alpha1"},
      {"kind", StrAt(runtime, "kind").empty() ? TjRefKind(job) : StrAt(runtime, "kind")},
      {"metadata", {{"name", MetaStr(runtime, "name")}}},
      {"spec", SpecOf(runtime)}};
  if (!MetaStr(runtime, "namespace").empty()) {
    snapshot["metadata"]["namespace"] = MetaStr(runtime, "namespace");
  }
  KUOTA_RETURN_IF_ERROR(BuildTrainJobSet(job, snapshot).status());
  Json out = job;
  Json& ann = out["metadata"]["annotations"];
  if (!ann.is_object()) ann = Json::object();
  ann[kTrainingRuntimeAnnotation] = snapshot.dump();
  return out;
}

std::optional<Json> TrainJobKind::Expand(const Json& job) const {
  if (job.contains(kTjJobSetKey)) return std::nullopt;  // already is
  auto v = TjExpand(job, false);
  if (!v.ok()) return std::nullopt;
  return std::move(*v);
}

Result<Json> TrainJobKind::BuildWorkload(const Json& job) const {
  Json plain = job;
  plain.erase(kTjJobSetKey);
  KUOTA_ASSIGN_OR_RETURN(Json view, TjExpand(plain, true));
  return GroupJobKind::BuildWorkload(view);
}

std::vector<PodSetDef> TrainJobKind::PodSets(const Json& job) const {
  std::vector<PodSetDef> sets;
  const Json& rjobs = ArrAt(ObjAt(ObjAt(job, kTjJobSetKey), "spec"), "replicatedJobs");
  for (size_t i = 0; i < rjobs.size(); ++i) {
    const Json& r = rjobs[i];
    if (!r.is_object()) continue;
    const int64_t replicas = std::max<int64_t>(0, IntAt(r, "replicas", 1));
    PodSetDef s;
    s.name = StrAt(r, "name");
    s.template_path = Json::json_pointer(std::string("/") + kTjJobSetKey + "/spec/replicatedJobs/" +
                                         std::to_string(i) + "/template/spec/template");
    s.count = replicas * JobSetKind::PodsPerJob(r);
    s.index_labels = {"batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index",
                      replicas};
    sets.push_back(std::move(s));
  }
  return sets;
}

std::string TrainJobKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  return TjJobSets().PodName(TjAsJobSet(job, Restarts(job)), set, index);
}

void TrainJobKind::CustomizePod(const Json& job, const PodPosition& where, Json& pod) const {
  TjJobSets().CustomizePod(TjAsJobSet(job, Restarts(job)), where, pod);
}

GroupAction TrainJobKind::OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const {
  return TjJobSets().OnPodEvent(TjAsJobSet(job, Restarts(job)), set, event);
}

bool TrainJobKind::Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                             const GroupObservation& seen) const {
  return TjJobSets().Succeeded(TjAsJobSet(job, Restarts(job)), sets, seen);
}

int64_t TrainJobKind::MaxRestarts(const Json& job) const {
  Json storage;
  return TjJobSets().MaxRestarts(TjAsJobSet(TjViewOf(job, storage), 0));
}

Json TrainJobKind::NextStatus(const Json& job, const GroupObservation& seen) const {
  const Json& old = ObjAt(job, "status");
  // Before its runtime is copied in there is nothing to report (and the
  // controller's report of why it waits stands).
  if (!job.contains(kTjJobSetKey)) return job.contains("status") ? job["status"] : Json();
  Json st = old.is_object() ? old : Json::object();
  // JobSet's status of the same pods, read the way Trainer reads its JobSet.
  const Json js = TjJobSets().NextStatus(TjAsJobSet(job, seen.restarts), seen);
  Json jobs = Json::array();
  for (const Json& r : ArrAt(js, "replicatedJobsStatus")) jobs.push_back(r);
  st["jobsStatus"] = jobs;
  if (seen.restarts > 0) {
    st["restarts"] = seen.restarts;
  } else {
    st.erase("restarts");
  }
  Json conds =
      st.contains("conditions") && st["conditions"].is_array() ? st["conditions"] : Json::array();
  // Its runtime found, the job is no longer the Invalid one the controller
  // reported while it waited.
  conds.erase(std::remove_if(conds.begin(), conds.end(),
                             [](const Json& c) { return StrAt(c, "type") == "Invalid"; }),
              conds.end());
  const bool finished = TjConditionTrue(job, "Complete") || TjConditionTrue(job, "Failed");
  if (!finished) {
    for (const Json& c : ArrAt(js, "conditions")) {
      if (StrAt(c, "status") != "True") continue;
      const std::string type = StrAt(c, "type");
      if (type != "Completed" && type != "Failed") continue;
      SetCondition(conds, TjCondition(type == "Completed" ? "Complete" : "Failed", "True",
                                      StrAt(c, "reason"), StrAt(c, "message"), seen.now));
    }
    if (seen.suspended) {
      SetCondition(
          conds, TjCondition("Suspended", "True", "Suspended", "TrainJob is suspended", seen.now));
    } else if (jobctl::IsConditionTrue(conds, "Suspended")) {
      SetCondition(conds,
                   TjCondition("Suspended", "False", "Resumed", "TrainJob is resumed", seen.now));
    }
  }
  if (conds.empty()) {
    st.erase("conditions");
  } else {
    st["conditions"] = conds;
  }
  return st;
}

bool TrainJobKind::IsFinished(const Json& job, bool* succeeded) const {
  if (TjConditionTrue(job, "Complete")) {
    if (succeeded != nullptr) *succeeded = true;
    return true;
  }
  if (TjConditionTrue(job, "Failed")) {
    if (succeeded != nullptr) *succeeded = false;
    return true;
  }
  return false;
}

bool TrainJobKind::PodsReady(const Json& job) const {
  if (IsSuspended(job)) return false;
  Json storage;
  const Json& view = TjViewOf(job, storage);
  int64_t want = 0, have = 0;
  for (const Json& r : ArrAt(ObjAt(ObjAt(view, kTjJobSetKey), "spec"), "replicatedJobs")) {
    want += std::max<int64_t>(0, IntAt(r, "replicas", 1));
  }
  for (const Json& r : ArrAt(ObjAt(job, "status"), "jobsStatus")) {
    have += IntAt(r, "ready", 0) + IntAt(r, "succeeded", 0);
  }
  return want > 0 && have == want;
}

Json TrainJobKind::Start(const Json& job, const std::vector<PodSetPlacement>& placement) const {
  Json out = job;
  out.erase(kTjJobSetKey);
  DefaultOnCreate(out);  // Kueue's runtime patch, when the job has none
  Json rjobs = Json::array();
  for (const PodSetPlacement& p : placement) {
    Json pod_spec = Json::object();
    if (!p.node_selector.empty()) pod_spec["nodeSelector"] = p.node_selector;
    if (p.tolerations.is_array() && !p.tolerations.empty()) pod_spec["tolerations"] = p.tolerations;
    Json meta = Json::object();
    if (!p.labels.empty()) meta["labels"] = p.labels;
    if (!p.annotations.empty()) meta["annotations"] = p.annotations;
    Json tmpl = Json::object();
    if (!meta.empty()) tmpl["metadata"] = meta;
    if (!pod_spec.empty()) tmpl["spec"] = pod_spec;
    Json entry = {{"name", p.name}};
    if (!tmpl.empty()) entry["template"] = {{"spec", {{"template", tmpl}}}};
    rjobs.push_back(std::move(entry));
  }
  for (Json& patch : out["spec"]["runtimePatches"]) {
    if (!patch.is_object() || StrAt(patch, "manager") != kKueueRuntimePatchManager) continue;
    patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"] = rjobs;
  }
  out["spec"]["suspend"] = false;
  return out;
}

Json TrainJobKind::Stop(const Json& job) const {
  Json out = job;
  out.erase(kTjJobSetKey);
  out["spec"]["suspend"] = true;
  if (!out["spec"].contains("runtimePatches") || !out["spec"]["runtimePatches"].is_array()) {
    return out;
  }
  for (Json& patch : out["spec"]["runtimePatches"]) {
    if (!patch.is_object() || StrAt(patch, "manager") != kKueueRuntimePatchManager) continue;
    Json& spec = patch["trainingRuntimeSpec"]["template"]["spec"];
    if (spec.is_object()) spec.erase("replicatedJobs");
  }
  return out;
}

}  // namespace kuota::jobs
