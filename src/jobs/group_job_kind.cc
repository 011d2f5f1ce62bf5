#include "jobs/group_job_kind.h"

#include <algorithm>
#include <cctype>

#include "jobs/job_fields.h"
#include "jobs/pod_set_update.h"

namespace kuota::jobs {
namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The template's metadata labels/annotations and spec, as a Workload pod set
// carries them.
Json WorkloadTemplate(const Json& tmpl) {
  Json out = Json::object();
  if (auto m = tmpl.find("metadata"); m != tmpl.end() && m->is_object()) {
    Json tm = Json::object();
    for (const char* f : {"labels", "annotations"}) {
      if (m->contains(f)) tm[f] = (*m)[f];
    }
    if (!tm.empty()) out["metadata"] = tm;
  }
  out["spec"] = tmpl.value("spec", Json::object());
  return out;
}

// The saved placement of every pod set, from the annotation Start wrote.
Json SavedPlacement(const Json& job) {
  const Json* meta = job.contains("metadata") ? &job["metadata"] : nullptr;
  if (meta == nullptr || !meta->contains("annotations")) return Json();
  const Json& ann = (*meta)["annotations"];
  auto it = ann.find(kOriginalPlacementAnnotation);
  if (it == ann.end() || !it->is_string()) return Json();
  Json saved = Json::parse(it->get<std::string>(), nullptr, false);
  return saved.is_object() ? saved : Json();
}

// Puts the saved nodeSelector/tolerations (or their absence) back on `tmpl`,
// and the labels and annotations checks' podSetUpdates changed.
void RestoreTemplate(Json& tmpl, const Json& saved) {
  RestoreTemplateMetadata(tmpl, saved);
  Json& spec = tmpl["spec"];
  for (const char* f : {"nodeSelector", "tolerations"}) {
    if (saved.contains(f)) {
      spec[f] = saved[f];
    } else if (spec.is_object()) {
      spec.erase(f);
    }
  }
}

}  // namespace

const Json* FindTemplate(const Json& job, const PodSetDef& set) {
  if (!job.contains(set.template_path)) return nullptr;
  const Json& t = job.at(set.template_path);
  return t.is_object() ? &t : nullptr;
}

Json::json_pointer GroupJobKind::SuspendPath() const { return Json::json_pointer("/spec/suspend"); }

int64_t GroupJobKind::Restarts(const Json& job) const {
  return IntAt(ObjAt(job, "status"), "restarts", 0);
}

std::string GroupJobKind::PodName(const Json& job, const PodSetDef& set, int64_t index) const {
  std::string name =
      job.at("metadata").value("name", "") + "-" + Lower(set.name) + "-" + std::to_string(index);
  return name;
}

GroupAction GroupJobKind::OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const {
  if (event == PodEvent::kSucceeded) return GroupAction::kNone;
  const Json* t = FindTemplate(job, set);
  std::string policy;
  if (t != nullptr && t->contains("spec") && (*t)["spec"].is_object()) {
    policy = (*t)["spec"].value("restartPolicy", "");
  }
  return policy == "Never" && event == PodEvent::kFailed ? GroupAction::kFailJob
                                                         : GroupAction::kRestartPod;
}

bool GroupJobKind::Succeeded(const Json& /*job*/, const std::vector<PodSetDef>& sets,
                             const GroupObservation& seen) const {
  for (size_t i = 0; i < sets.size() && i < seen.sets.size(); ++i) {
    if (seen.sets[i].succeeded < sets[i].count) return false;
  }
  return !sets.empty();
}

std::string GroupJobKind::PodPriorityClass(const Json& job) const {
  for (const PodSetDef& set : PodSets(job)) {
    const Json* t = FindTemplate(job, set);
    if (t == nullptr) continue;
    const Json spec = t->value("spec", Json::object());
    auto pc = spec.find("priorityClassName");
    if (pc != spec.end() && pc->is_string() && !pc->get<std::string>().empty()) {
      return pc->get<std::string>();
    }
  }
  return "";
}

void GroupJobKind::DefaultOnCreate(Json& job) const { job[SuspendPath()] = true; }

bool GroupJobKind::IsSuspended(const Json& job) const {
  const Json::json_pointer p = SuspendPath();
  if (!job.contains(p)) return false;
  const Json& v = job.at(p);
  return v.is_boolean() && v.get<bool>();
}

Result<Json> GroupJobKind::BuildWorkload(const Json& job) const {
  if (!job.contains("metadata") || !job["metadata"].is_object()) {
    return Status::Invalid("metadata: Required value");
  }
  const Json& meta = job["metadata"];
  const std::string name = meta.value("name", "");
  const std::string ns = meta.value("namespace", "");
  const std::string uid = meta.value("uid", "");
  if (name.empty() || uid.empty()) return Status::Invalid("job has no name or uid yet");
  // While running, templates carry the flavors' placement: the Workload
  // describes the job as submitted.
  Json original = job;
  const Json saved = SavedPlacement(job);
  Json pod_sets = Json::array();
  for (const PodSetDef& set : PodSets(job)) {
    if (!original.contains(set.template_path)) {
      return Status::Invalid(set.template_path.to_string().substr(1) + ": Required value");
    }
    Json& tmpl = original[set.template_path];
    int64_t count = set.count;
    if (saved.is_object() && saved.contains(set.name)) {
      const Json& s = saved[set.name];
      RestoreTemplate(tmpl, s);
      if (s.contains("count") && s["count"].is_number_integer()) count = s["count"].get<int64_t>();
    }
    Json ps = {{"name", set.name}, {"count", std::max<int64_t>(0, count)}};
    if (set.min_count && *set.min_count >= 0 && *set.min_count < count) {
      ps["minCount"] = *set.min_count;
    }
    ps["template"] = WorkloadTemplate(tmpl);
    KUOTA_ASSIGN_OR_RETURN(Json topology,
                           BuildTopologyRequest(ObjAt(tmpl, "metadata"), set.index_labels));
    if (!topology.is_null()) ps["topologyRequest"] = std::move(topology);
    pod_sets.push_back(std::move(ps));
  }
  if (pod_sets.empty()) return Status::Invalid("the job has no pod sets");
  const KindInfo& info = Info();
  Json wl = MakeJobWorkload(info.workload_prefix, ApiVersion(), info.kind, name, ns, uid,
                            LocalQueueName(job), std::move(pod_sets));
  const Json labels = meta.value("labels", Json::object());
  auto pc = labels.find(kPriorityClassLabel);
  if (pc != labels.end() && pc->is_string() && !pc->get<std::string>().empty()) {
    SetPriorityClassRef(wl, pc->get<std::string>(), true);
  } else if (std::string p = PodPriorityClass(original); !p.empty()) {
    SetPriorityClassRef(wl, p, false);
  }
  return wl;
}

Json GroupJobKind::Start(const Json& job, const std::vector<PodSetPlacement>& placement) const {
  Json out = job;
  const bool have_saved = SavedPlacement(job).is_object();
  Json saved = Json::object();
  for (const PodSetDef& set : PodSets(job)) {
    if (!out.contains(set.template_path)) continue;
    Json& tmpl = out[set.template_path];
    Json& spec = tmpl["spec"];
    Json s = Json::object();
    if (spec.contains("nodeSelector")) s["nodeSelector"] = spec["nodeSelector"];
    if (spec.contains("tolerations")) s["tolerations"] = spec["tolerations"];
    s["count"] = set.count;
    saved[set.name] = s;
    for (const PodSetPlacement& p : placement) {
      if (p.name != set.name) continue;
      for (const auto& [k, v] : p.node_selector) spec["nodeSelector"][k] = v;
      for (const auto& t : p.tolerations) spec["tolerations"].push_back(t);
      if (p.count < set.count && !set.replicas_path.empty()) out[set.replicas_path] = p.count;
      ApplyTemplateMetadata(tmpl, p, saved[set.name]);
    }
  }
  if (!have_saved) out["metadata"]["annotations"][kOriginalPlacementAnnotation] = saved.dump();
  out[SuspendPath()] = false;
  return out;
}

Json GroupJobKind::Stop(const Json& job) const {
  Json out = job;
  out[SuspendPath()] = true;
  const Json saved = SavedPlacement(job);
  if (!saved.is_object()) return out;
  for (const PodSetDef& set : PodSets(job)) {
    if (!saved.contains(set.name) || !out.contains(set.template_path)) continue;
    const Json& s = saved[set.name];
    RestoreTemplate(out[set.template_path], s);
    if (!set.replicas_path.empty() && s.contains("count")) out[set.replicas_path] = s["count"];
  }
  out["metadata"]["annotations"].erase(kOriginalPlacementAnnotation);
  return out;
}

std::string GroupJobKind::PodSetTemplateField(const Json& job, size_t index) const {
  std::vector<PodSetDef> sets = PodSets(job);
  return index < sets.size() ? DottedPath(sets[index].template_path) : "spec";
}

std::string GroupJobKind::TopologyMetadataPath(const PodSetDef& set) const {
  return DottedPath(set.template_path) + ".metadata";
}

Status GroupJobKind::ValidateTopology(const Json& job, bool check_groups) const {
  std::vector<TopologyPodSet> checked;
  for (const PodSetDef& set : PodSets(job)) {
    const Json* tmpl = FindTemplate(job, set);
    const Json& meta = tmpl != nullptr ? ObjAt(*tmpl, "metadata") : EmptyObject();
    const std::string path = TopologyMetadataPath(set);
    KUOTA_RETURN_IF_ERROR(ValidateTopologyAnnotations(meta, path));
    KUOTA_RETURN_IF_ERROR(ValidateSliceSizeUpperBound(meta, path, set.count));
    KUOTA_ASSIGN_OR_RETURN(Json request, BuildTopologyRequest(meta, set.index_labels));
    checked.push_back({set.name, set.count, std::move(request), path + ".annotations"});
  }
  return check_groups ? ValidatePodSetGroups(checked) : Status::Ok();
}

std::string DottedPath(const Json::json_pointer& pointer) {
  const std::string s = pointer.to_string();
  std::string out;
  size_t i = 1;
  while (i <= s.size() && !s.empty()) {
    size_t j = s.find('/', i);
    if (j == std::string::npos) j = s.size();
    std::string token = s.substr(i, j - i);
    for (size_t k = 0; (k = token.find("~1", k)) != std::string::npos;) token.replace(k, 2, "/");
    for (size_t k = 0; (k = token.find("~0", k)) != std::string::npos;) token.replace(k, 2, "~");
    if (!token.empty() && token.find_first_not_of("0123456789") == std::string::npos) {
      out += "[" + token + "]";
    } else {
      if (!out.empty()) out += ".";
      out += token;
    }
    i = j + 1;
  }
  return out;
}

Json MakeCondition(const std::string& type, const std::string& status, const std::string& reason,
                   const std::string& message, const std::string& now) {
  return {{"type", type},       {"status", status},      {"reason", reason},
          {"message", message}, {"lastUpdateTime", now}, {"lastTransitionTime", now}};
}

void SetCondition(Json& conditions, Json c) {
  if (!conditions.is_array()) conditions = Json::array();
  for (auto& old : conditions) {
    if (!old.is_object() || old.value("type", "") != c.value("type", "")) continue;
    if (old.value("status", "") == c.value("status", "") &&
        old.value("reason", "") == c.value("reason", "") &&
        old.value("message", "") == c.value("message", "")) {
      return;  // unchanged: keep its times, so the status stays equal
    }
    if (old.value("status", "") == c.value("status", "") && old.contains("lastTransitionTime")) {
      c["lastTransitionTime"] = old["lastTransitionTime"];
    }
    old = std::move(c);
    return;
  }
  conditions.push_back(std::move(c));
}

}  // namespace kuota::jobs
