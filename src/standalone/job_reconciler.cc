#include "standalone/job_reconciler.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "control/events.h"
#include "control/meta_string.h"
#include "jobctl/submitter.h"
#include "jobs/group_reconcile.h"
#include "jobs/leader_worker_set.h"
#include "jobs/leader_worker_set_pods.h"
#include "jobs/managed_by.h"
#include "jobs/registry.h"
#include "standalone/pod_runner.h"
#include "store/list_all.h"

namespace kuota::standalone {
namespace {

constexpr const char* kJobs = "jobs.batch";
constexpr const char* kPods = "pods";
constexpr const char* kComponent = "job-controller";

// "<resource>/<ns>/<name>": jobs of every kind share one map.
std::string Key(const std::string& resource, const nlohmann::json& obj) {
  return resource + "/" + control::MetaString(obj, "namespace") + "/" +
         control::MetaString(obj, "name");
}

std::string ResourceOfKey(const std::string& key) { return key.substr(0, key.find('/')); }

// LWS's controllers run here too (jobs/leader_worker_set_pods.h).
bool IsLeaderWorkerSet(const std::string& resource) {
  return dynamic_cast<const jobs::LeaderWorkerSetKind*>(jobs::FindJobKind(resource)) != nullptr;
}

// The kinds whose pods this reconciler creates: batch/v1 Job (through
// jobctl) and every GroupJobKind.
bool IsJobResource(const std::string& resource) {
  return resource == kJobs || jobs::FindGroupJobKind(resource) != nullptr ||
         IsLeaderWorkerSet(resource);
}

// The uid of the job (of any kind run here) controlling `pod`, or empty.
std::string OwnerJobUid(const nlohmann::json& pod) {
  auto m = pod.find("metadata");
  if (m == pod.end() || !m->is_object()) return "";
  auto refs = m->find("ownerReferences");
  if (refs == m->end() || !refs->is_array()) return "";
  for (const auto& r : *refs) {
    if (!r.is_object() || !r.value("controller", false)) continue;
    const std::string api = r.value("apiVersion", ""), kind = r.value("kind", "");
    if (kind == "Job" && api == "batch/v1") return r.value("uid", "");
    for (const auto& k : jobs::JobKinds()) {
      if (k->Kind() == kind && k->ApiVersion() == api && IsJobResource(k->Resource())) {
        return r.value("uid", "");
      }
    }
  }
  return "";
}

}  // namespace

JobReconciler::JobReconciler(store::ObjectStore& store, const Clock& clock,
                             JobReconcilerOptions options)
    : StoreLoop(store, clock, "job controller", options.idle_tick),
      store_(store),
      clock_(clock),
      options_(std::move(options)),
      errors_(store, clock, kComponent) {}

JobReconciler::~JobReconciler() { Stop(); }

Status JobReconciler::List() {
  jobs_.clear();
  job_by_uid_.clear();
  pods_.clear();
  std::vector<std::string> resources = {kJobs};
  for (const auto& k : jobs::JobKinds()) {
    if (IsJobResource(k->Resource())) resources.push_back(k->Resource());
  }
  resources.push_back(kPods);
  for (const std::string& resource : resources) {
    KUOTA_RETURN_IF_ERROR(
        store::ListEach(store_, resource, [&](Json& item) { Replay(resource, std::move(item)); }));
  }
  return Status::Ok();
}

void JobReconciler::HandleFailed(const store::WatchEvent& ev, const std::string& error) {
  errors_.Report(ev.resource, ev.object, "InvalidObject", error);
}

void JobReconciler::ReconcileFailed(const std::string& key, const std::string& error) {
  auto jit = jobs_.find(key);
  if (jit != jobs_.end()) errors_.Report(ResourceOfKey(key), jit->second, "InvalidJob", error);
}

void JobReconciler::AfterList() {
  // Pods whose Job no longer exists (deleted while kuotad was down).
  for (const auto& [uid, pods] : pods_) {
    if (job_by_uid_.count(uid) || pods.empty()) continue;
    CascadeDelete(uid, control::MetaString(pods.begin()->second, "namespace"));
  }
}

void JobReconciler::Handle(const store::WatchEvent& ev) {
  if (IsJobResource(ev.resource)) {
    const std::string key = Key(ev.resource, ev.object);
    const std::string uid = control::MetaString(ev.object, "uid");
    if (ev.type == store::EventType::kDeleted) {
      jobs_.erase(key);
      job_by_uid_.erase(uid);
      Forget(key);
      errors_.Forget(ev.resource, ev.object);
      CascadeDelete(uid, control::MetaString(ev.object, "namespace"));
      return;
    }
    jobs_[key] = ev.object;
    job_by_uid_[uid] = key;
    MarkDirty(key);
    return;
  }
  if (ev.resource != kPods) return;
  const std::string owner = OwnerJobUid(ev.object);
  if (owner.empty()) return;
  const std::string name = control::MetaString(ev.object, "name");
  if (ev.type == store::EventType::kDeleted) {
    auto it = pods_.find(owner);
    if (it != pods_.end()) {
      it->second.erase(name);
      if (it->second.empty()) pods_.erase(it);
    }
  } else {
    pods_[owner][name] = ev.object;
  }
  auto job = job_by_uid_.find(owner);
  if (job != job_by_uid_.end()) {
    MarkDirty(job->second);
  } else if (ev.type != store::EventType::kDeleted && !jobs_.empty()) {
    // The owner is gone (or not seen yet): orphans are collected once the
    // initial list is complete; see Run().
  }
}

void JobReconciler::CascadeDelete(const std::string& job_uid, const std::string& ns) {
  auto it = pods_.find(job_uid);
  if (it == pods_.end()) return;
  for (const auto& [name, pod] : it->second) {
    if (pod["metadata"].contains("deletionTimestamp")) continue;
    (void)store_.Delete(kPods, ns, name);
  }
}

bool JobReconciler::Reconcile(const std::string& key) {
  ReconcileJob(key);
  return false;
}

void JobReconciler::ReconcileJob(const std::string& key) {
  auto jit = jobs_.find(key);
  if (jit == jobs_.end()) return;
  // Dispatched by MultiKueue: its pods run on a worker, never here.
  if (const jobs::JobKind* kind = jobs::FindJobKind(ResourceOfKey(key));
      kind != nullptr && jobs::ManagedByMultiKueue(*kind, jit->second)) {
    return;
  }
  if (const jobs::GroupJobKind* kind = jobs::FindGroupJobKind(ResourceOfKey(key))) {
    ReconcileGroup(*kind, key);
    return;
  }
  if (IsLeaderWorkerSet(ResourceOfKey(key))) {
    ReconcileLeaderWorkerSet(key);
    return;
  }
  const Json& job = jit->second;
  const std::string uid = control::MetaString(job, "uid");
  const std::string ns = control::MetaString(job, "namespace");
  std::vector<Json> pods;
  if (auto p = pods_.find(uid); p != pods_.end()) {
    for (const auto& [name, pod] : p->second) pods.push_back(pod);
  }
  auto actions = jobctl::ReconcileJob(job, pods, clock_.Now(), options_.job);
  if (!actions.ok()) {
    // A malformed Job: an Event and an Invalid condition, once per message.
    errors_.Report(kJobs, job, "InvalidJob", actions.status().message());
    return;
  }
  for (const auto& ev : actions->events) {
    control::RecordEvent(store_, clock_, job, ev.type, ev.reason, ev.message, kComponent);
  }
  DeletePods(job, actions->delete_pods);
  CreatePods(key, job, std::move(actions->create_pods));
  if (actions->status) WriteStatus(kJobs, jit->second, *actions->status);
  if (actions->delete_job) {
    (void)store_.Delete(kJobs, ns, control::MetaString(job, "name"));
    return;  // the DELETED event cascades to the pods
  }
  if (actions->requeue_at) {
    WakeAt(key, *actions->requeue_at);
  } else {
    CancelWake(key);
  }
}

void JobReconciler::CreatePods(const std::string& key, const Json& job, std::vector<Json> pods) {
  const std::string uid = control::MetaString(job, "uid");
  const std::string start_group = uid + "-" + std::to_string(store_.CurrentResourceVersion());
  const size_t group_size = pods.size();
  for (Json& pod : pods) {
    if (!options_.pod_finalizer.empty()) {
      pod["metadata"]["finalizers"] = Json::array({options_.pod_finalizer});
    }
    pod["metadata"]["annotations"][kStartGroupAnnotation] = start_group;
    // Whatever made the pod, it runs as the job's submitter (the builders
    // copy the annotations too; this holds for any kind added later).
    jobctl::CopySubmitterAnnotations(job, pod);
    pod["metadata"]["annotations"][kStartGroupSizeAnnotation] = std::to_string(group_size);
    auto stored = store_.Create(kPods, std::move(pod));
    if (!stored.ok()) {
      control::RecordEvent(store_, clock_, job, "Warning", "FailedCreate",
                           "Error creating: " + stored.status().message(), kComponent);
      WakeAt(key, clock_.Now() + Duration{1000});
      continue;
    }
    pods_[uid][control::MetaString(*stored, "name")] = *stored;  // read our own writes
    auto ev = jobctl::PodCreatedEvent(control::MetaString(*stored, "name"));
    control::RecordEvent(store_, clock_, job, ev.type, ev.reason, ev.message, kComponent);
  }
}

void JobReconciler::DeletePods(const Json& job, const std::vector<std::string>& names) {
  const std::string uid = control::MetaString(job, "uid");
  const std::string ns = control::MetaString(job, "namespace");
  for (const auto& name : names) {
    // Marked first, so that the job's own deletions are not taken for
    // evictions (jobs::kDeletionHandledAnnotation).
    if (auto pod = store_.Get(kPods, ns, name); pod.ok()) {
      Json& ann = (*pod)["metadata"]["annotations"];
      if (!ann.is_object()) ann = Json::object();
      if (!ann.contains(jobs::kDeletionHandledAnnotation)) {
        ann[jobs::kDeletionHandledAnnotation] = "true";
        (void)store_.Update(kPods, *pod);
      }
    }
    auto deleted = store_.Delete(kPods, ns, name);
    if (deleted.ok()) {
      // With a finalizer the pod stays, being deleted, until the runner ends it.
      if (control::MetaString(*deleted, "deletionTimestamp").empty()) {
        pods_[uid].erase(name);
      } else {
        pods_[uid][name] = *deleted;
      }
    }
  }
}

void JobReconciler::WriteStatus(const std::string& resource, Json& job, const Json& status) {
  const jobs::JobKind* kind = jobs::FindJobKind(resource);
  if (kind == nullptr) return;
  Json patch = {{"apiVersion", kind->ApiVersion()},
                {"kind", kind->Kind()},
                {"metadata",
                 {{"name", control::MetaString(job, "name")},
                  {"namespace", control::MetaString(job, "namespace")}}},
                {"status", status}};
  store::UpdateOptions uo;
  uo.status_only = true;
  auto stored = store_.Update(resource, patch, uo);
  if (stored.ok()) {
    job["status"] = (*stored)["status"];
    job["metadata"]["resourceVersion"] = (*stored)["metadata"]["resourceVersion"];
  }
}

void JobReconciler::ReconcileGroup(const jobs::GroupJobKind& kind, const std::string& key) {
  Json& job = jobs_[key];
  const std::string uid = control::MetaString(job, "uid");
  std::vector<Json> pods;
  if (auto p = pods_.find(uid); p != pods_.end()) {
    for (const auto& [name, pod] : p->second) pods.push_back(pod);
  }
  auto actions = jobs::ReconcileGroup(kind, job, pods, FormatRfc3339(clock_.Now()));
  if (!actions.ok()) {
    errors_.Report(kind.Resource(), job, "InvalidJob", actions.status().message());
    return;
  }
  for (const auto& ev : actions->events) {
    control::RecordEvent(store_, clock_, job, ev.type, ev.reason, ev.message, kComponent);
  }
  DeletePods(job, actions->delete_pods);
  CreatePods(key, job, std::move(actions->create_pods));
  if (actions->status) WriteStatus(kind.Resource(), job, *actions->status);
}

void JobReconciler::ReconcileLeaderWorkerSet(const std::string& key) {
  Json& lws = jobs_[key];
  const std::string uid = control::MetaString(lws, "uid");
  std::vector<Json> pods;
  if (auto p = pods_.find(uid); p != pods_.end()) {
    for (const auto& [name, pod] : p->second) pods.push_back(pod);
  }
  auto actions = jobs::ReconcileLeaderWorkerSet(lws, pods, FormatRfc3339(clock_.Now()));
  if (!actions.ok()) {
    errors_.Report(ResourceOfKey(key), lws, "InvalidJob", actions.status().message());
    return;
  }
  for (const auto& ev : actions->events) {
    control::RecordEvent(store_, clock_, lws, ev.type, ev.reason, ev.message, kComponent);
  }
  DeletePods(lws, actions->delete_pods);
  CreatePods(key, lws, std::move(actions->create_pods));
  if (actions->status) WriteStatus(ResourceOfKey(key), lws, *actions->status);
}

}  // namespace kuota::standalone
