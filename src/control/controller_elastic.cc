// The controller's side of Kueue's elastic Jobs (ElasticJobsViaWorkloadSlices):
// a Job annotated kueue.x-k8s.io/elastic-job: "true" may change its
// parallelism while it runs. Its Workloads are slices (workload_slices.h):
// a scale-up makes a new slice that replaces the admitted one once it is
// admitted (the engine, engine/workload_slice.h), a scale-down or a change
// before admission rewrites the slice in place. The Job keeps running
// throughout; the pods a scale-up adds stay gated (elastic_ungater.h) until
// the slice that counts them is admitted.
#include <algorithm>
#include <cstdio>

#include "control/controller.h"
#include "control/meta_string.h"
#include "control/workload_slices.h"
#include "engine/workload_slice.h"
#include "jobs/job_fields.h"

namespace kuota::control {
namespace {

constexpr const char* kSliceWorkloads = "workloads.kueue.x-k8s.io";

bool ElasticAnnotated(const nlohmann::json& object) {
  static const std::string kKey(engine::kElasticJobAnnotation);
  return server::StringField(object, {"metadata", "annotations", kKey.c_str()}) == "true";
}

// The uid of the job that controls the Workload `wl`.
std::string SliceOwnerUid(const api::Workload& wl) {
  for (const auto& ref : wl.metadata.owner_references) {
    if (ref.controller) return ref.uid;
  }
  return "";
}

std::string SliceOwnerUid(const nlohmann::json& wl) {
  for (const auto& ref : wl.value("metadata", nlohmann::json::object())
                             .value("ownerReferences", nlohmann::json::array())) {
    if (ref.is_object() && ref.value("controller", false)) return ref.value("uid", "");
  }
  return "";
}

std::map<std::string, int32_t> PodSetCounts(const nlohmann::json& workload) {
  std::map<std::string, int32_t> counts;
  const nlohmann::json& spec = workload.value("spec", nlohmann::json::object());
  for (const auto& ps : spec.value("podSets", nlohmann::json::array())) {
    if (!ps.is_object()) continue;
    counts[ps.value("name", "")] = ps.value("count", 1);
  }
  return counts;
}

}  // namespace

bool Controller::IsElasticJob(const jobs::JobKind& kind, const Json& job) const {
  return kind.Kind() == "Job" && kind.ApiVersion() == "batch/v1" && ElasticAnnotated(job);
}

void Controller::NoteElasticSlice(const Json& workload, bool deleted) {
  if (!ElasticAnnotated(workload)) return;
  const std::string uid = SliceOwnerUid(workload);
  if (uid.empty()) return;
  const std::string key = MetaString(workload, "namespace") + "/" + MetaString(workload, "name");
  if (!deleted) {
    elastic_slices_[uid].insert(key);
    return;
  }
  auto it = elastic_slices_.find(uid);
  if (it == elastic_slices_.end()) return;
  it->second.erase(key);
  if (it->second.empty()) elastic_slices_.erase(it);
}

void Controller::DeleteElasticSlices(const std::string& job_uid) {
  auto it = elastic_slices_.find(job_uid);
  if (it == elastic_slices_.end()) return;
  const std::set<std::string> keys = it->second;
  elastic_slices_.erase(it);
  for (const std::string& key : keys) {
    const size_t slash = key.find('/');
    (void)store_.Delete(kSliceWorkloads, key.substr(0, slash), key.substr(slash + 1));
  }
}

const engine::WorkloadInfo* Controller::ActiveSlice(const std::string& job_uid) {
  auto it = elastic_slices_.find(job_uid);
  if (it == elastic_slices_.end()) return nullptr;
  const engine::WorkloadInfo* active = nullptr;
  for (const std::string& key : it->second) {
    const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
    if (wl == nullptr || !wl->holds_quota() || wl->evicted ||
        api::IsConditionTrue(wl->object.status.conditions, api::kEvicted)) {
      continue;
    }
    // The latest one holding quota (a replacement is admitted as the slice
    // it replaces is finished, so there is one but for an instant).
    if (active == nullptr || wl->quota_reserved_at.unix_ms > active->quota_reserved_at.unix_ms ||
        engine::ReplacementFor(wl->object) == active->key) {
      active = wl;
    }
  }
  return active;
}

bool Controller::ElasticJobKeepsRunning(const engine::WorkloadInfo& wl) {
  if (!engine::IsElasticWorkload(wl.object)) return false;
  const engine::WorkloadInfo* active = ActiveSlice(SliceOwnerUid(wl.object));
  return active != nullptr && active->key != wl.key;
}

void Controller::TouchElasticPods(const engine::WorkloadInfo& wl) {
  if (engine::IsElasticWorkload(wl.object)) elastic_ungater_.Touch(SliceOwnerUid(wl.object));
}

void Controller::UngateElasticPods() {
  elastic_ungater_.Reconcile([&](const std::string& job_uid) -> std::optional<int32_t> {
    const engine::WorkloadInfo* active = ActiveSlice(job_uid);
    if (active == nullptr || active->state != engine::WorkloadState::kAdmitted) {
      return std::nullopt;
    }
    int32_t count = 0;
    for (const auto& a : active->admission) count += a.count;
    return count;
  });
}

void Controller::HandleElasticJob(const jobs::JobKind& kind, const Json& job) {
  const std::string uid = MetaString(job, "uid");
  const std::string ns = MetaString(job, "namespace");
  // The job's slices not finished, oldest first.
  std::vector<SliceState> slices;
  std::vector<const engine::WorkloadInfo*> infos;
  if (auto it = elastic_slices_.find(uid); it != elastic_slices_.end()) {
    for (const std::string& key : it->second) {
      const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
      if (wl != nullptr && wl->state != engine::WorkloadState::kFinished) infos.push_back(wl);
    }
  }
  std::sort(infos.begin(), infos.end(), [](const auto* a, const auto* b) {
    if (a->creation.unix_ms != b->creation.unix_ms)
      return a->creation.unix_ms < b->creation.unix_ms;
    return a->key < b->key;
  });
  for (const engine::WorkloadInfo* wl : infos) {
    SliceState s;
    s.key = wl->key;
    s.replacement_for = engine::ReplacementFor(wl->object);
    if (auto a = wl->object.metadata.annotations.find(std::string(engine::kSliceNameAnnotation));
        a != wl->object.metadata.annotations.end()) {
      s.slice_name = a->second;
    }
    for (const auto& ps : wl->object.spec.pod_sets) s.counts[ps.name] = ps.count;
    s.holds_quota = wl->holds_quota();
    s.evicted = api::IsConditionTrue(wl->object.status.conditions, api::kEvicted);
    slices.push_back(std::move(s));
  }
  OrderSlices(slices);

  bool succeeded = false;
  if (kind.IsFinished(job, &succeeded)) {
    // Every slice ends with the job, and its quota with it.
    for (const SliceState& s : slices) {
      (void)engine_.FinishWorkload(s.key);
      SyncWorkloadStatus(s.key);
    }
    return;
  }
  auto built = kind.BuildWorkload(job);
  if (!built.ok()) {
    std::fprintf(stderr, "kuotad: job %s/%s: %s\n", ns.c_str(), MetaString(job, "name").c_str(),
                 built.status().message().c_str());
    return;
  }
  const std::map<std::string, int32_t> counts = PodSetCounts(*built);
  const SlicePlan plan = PlanWorkloadSlices(counts, slices);
  for (const auto& [key, reason] : plan.finish) {
    (void)engine_.FinishWorkload(key, reason,
                                 reason == engine::kWorkloadSliceReplacedReason
                                     ? "Replaced to accommodate a new workload slice"
                                     : "The workload slice is out of sync with its parent job");
    SyncWorkloadStatus(key);
  }
  if (plan.incompatible) {
    std::fprintf(stderr, "kuotad: job %s/%s: its pod sets no longer match its Workload's\n",
                 ns.c_str(), MetaString(job, "name").c_str());
    return;
  }
  std::string selected = plan.selected;
  if (plan.action == SlicePlan::Action::kCreate) {
    Json wl = std::move(*built);
    // Kueue names an elastic job's slices by the job's generation as well.
    const std::string generation =
        std::to_string(job.value("metadata", Json::object()).value("generation", int64_t{0}));
    const std::string name = jobs::WorkloadNameFor(kind.Info().workload_prefix,
                                                   MetaString(job, "name"), uid + "/" + generation);
    wl["metadata"]["name"] = name;
    Json& annotations = wl["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = Json::object();
    annotations[std::string(engine::kElasticJobAnnotation)] = "true";
    annotations[std::string(engine::kSliceNameAnnotation)] =
        plan.replaces.empty() ? name : plan.origin;
    if (!plan.replaces.empty()) {
      annotations[std::string(engine::kSliceReplacementForAnnotation)] = plan.replaces;
    }
    jobs::ApplyMaxExecutionTime(job, wl);
    if (!options_.workload_finalizer.empty()) {
      wl["metadata"]["finalizers"].push_back(options_.workload_finalizer);
    }
    auto stored = store_.Create(kSliceWorkloads, wl);
    if (!stored.ok()) {
      if (stored.status().code() != StatusCode::kAlreadyExists) {
        std::fprintf(stderr, "kuotad: creating a workload slice for job %s/%s: %s\n", ns.c_str(),
                     MetaString(job, "name").c_str(), stored.status().message().c_str());
        return;
      }
      stored = store_.Get(kSliceWorkloads, ns, name);
      if (!stored.ok()) return;
    } else {
      NoteOwnWrite(kSliceWorkloads, *stored);
      RecordEvent(job, "Normal", "CreatedWorkload",
                  "Created Workload: " + ns + "/" + name +
                      (plan.replaces.empty() ? "" : " (a slice replacing " + plan.replaces + ")"));
    }
    ApplyObject(kSliceWorkloads, *stored);
    selected = ns + "/" + name;
  } else if (plan.action == SlicePlan::Action::kUpdateCounts) {
    // Its queued status goes first: the update is over the version it wrote.
    if (status_batch_keys_.count(selected) != 0) FlushStatuses();
    const size_t slash = selected.find('/');
    for (int attempt = 0; attempt < 5; ++attempt) {
      auto current = store_.Get(kSliceWorkloads, ns, selected.substr(slash + 1));
      if (!current.ok()) return;
      Json updated = *current;
      for (auto& ps : updated["spec"]["podSets"]) {
        auto c = counts.find(ps.value("name", ""));
        if (c != counts.end()) ps["count"] = c->second;
      }
      auto written = store_.Update(kSliceWorkloads, updated);
      if (written.ok()) {
        NoteOwnWrite(kSliceWorkloads, *written);
        ApplyObject(kSliceWorkloads, *written);
        break;
      }
      if (written.status().code() != StatusCode::kConflict) {
        std::fprintf(stderr, "kuotad: updating workload slice %s: %s\n", selected.c_str(),
                     written.status().message().c_str());
        return;
      }
    }
  }
  job_workload_[uid] = selected;
  const engine::WorkloadInfo* wl = engine_.FindWorkload(selected);
  if (wl == nullptr) return;
  const bool suspended = kind.IsSuspended(job);
  const engine::WorkloadInfo* active = ActiveSlice(uid);
  if (active != nullptr && active->state == engine::WorkloadState::kAdmitted && !suspended) {
    // Kueue's PodsReady, on the slice that holds the quota.
    const bool ready = kind.PodsReady(job);
    const api::Condition* c = api::FindCondition(active->object.status.conditions, api::kPodsReady);
    if (c == nullptr || ready != (c->status == "True")) {
      const std::string key = active->key;
      (void)engine_.SetPodsReady(key, ready, ready ? "PodsReady" : "WaitForStart",
                                 ready ? "All pods reached readiness and the workload is running"
                                       : "Not all pods are ready or succeeded");
      SyncWorkloadStatus(key);
    }
    elastic_ungater_.Touch(uid);  // the counts may have changed
  }
  wl = engine_.FindWorkload(selected);
  if (wl == nullptr) return;
  if (wl->state == engine::WorkloadState::kAdmitted && suspended) {
    StartJob(selected);
  } else if (!suspended && ActiveSlice(uid) == nullptr &&
             wl->state != engine::WorkloadState::kAdmitted) {
    // Kueue keeps an elastic job running while a new slice waits; with no
    // slice holding quota (evicted, deactivated) it is stopped.
    StopJob(selected);
  }
}

}  // namespace kuota::control
