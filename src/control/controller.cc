#include "control/controller.h"

#include <cmath>

#include <algorithm>
#include <cstdio>
#include <future>
#include <optional>
#include <set>
#include <vector>

#include "api/codec/decode.h"
#include "api/object.h"
#include "control/meta_string.h"
#include "control/multikueue_objects.h"
#include "control/non_tas_pod.h"
#include "control/stateful_set_pods.h"
#include "control/topology_gates.h"
#include "control/workload_status_json.h"
#include "engine/queue_manager.h"
#include "jobs/job_fields.h"
#include "jobs/leader_worker_set.h"
#include "jobs/managed_by.h"
#include "jobs/pod_kind.h"
#include "jobs/registry.h"
#include "store/list_all.h"

namespace kuota::control {
namespace {

constexpr const char* kWorkloads = "workloads.kueue.x-k8s.io";
constexpr const char* kPods = "pods";

// A kind whose Workloads are its pods' groups (a LeaderWorkerSet): admission
// starts and stops the pods, never the object.
bool RunsAsPodGroups(const jobs::JobKind& kind) {
  return dynamic_cast<const jobs::LeaderWorkerSetKind*>(&kind) != nullptr;
}

struct KindEntry {
  const char* resource;
  const char* kind;
  bool has_generation;  // spec changes bump metadata.generation
};

// Resources the engine consumes, in the order an initial sync applies them.
const KindEntry kEngineKinds[] = {
    {"namespaces", "Namespace", false},
    // Topology-aware scheduling's inputs: a Node's status (allocatable,
    // readiness) matters, so every change is applied.
    {"topologies.kueue.x-k8s.io", "Topology", false},
    {"nodes", "Node", false},
    {"priorityclasses.scheduling.k8s.io", "PriorityClass", false},
    {"workloadpriorityclasses.kueue.x-k8s.io", "WorkloadPriorityClass", false},
    {"resourceflavors.kueue.x-k8s.io", "ResourceFlavor", true},
    {"cohorts.kueue.x-k8s.io", "Cohort", true},
    {"clusterqueues.kueue.x-k8s.io", "ClusterQueue", true},
    {"admissionchecks.kueue.x-k8s.io", "AdmissionCheck", false},
    {"localqueues.kueue.x-k8s.io", "LocalQueue", true},
};

const KindEntry* FindEngineKind(const std::string& resource) {
  for (const auto& k : kEngineKinds) {
    if (resource == k.resource) return &k;
  }
  return nullptr;
}

int64_t ResourceVersionOf(const nlohmann::json& obj) {
  std::string rv = MetaString(obj, "resourceVersion");
  return rv.empty() ? 0 : std::strtoll(rv.c_str(), nullptr, 10);
}

std::string ObjectKey(const nlohmann::json& obj) {
  return MetaString(obj, "namespace") + "/" + MetaString(obj, "name");
}

// The object an Event about a Workload points at.
nlohmann::json WorkloadRef(const engine::WorkloadInfo& wl) {
  return {{"apiVersion", api::kKueueV1beta2},
          {"kind", "Workload"},
          {"metadata", {{"name", wl.name()}, {"namespace", wl.ns()}, {"uid", wl.uid()}}}};
}

Result<api::Object> Decode(const nlohmann::json& obj) {
  codec::DecodeOptions opts;
  opts.validate = false;  // stored objects passed admission; be lenient on reload
  return codec::DecodeJsonObject(obj, opts);
}

// Status writes queued before a batch is written anyway (a burst's
// transaction stays a bounded size).
constexpr size_t kMaxStatusBatch = 1024;

}  // namespace

// One queued Workload status write.
struct Controller::StatusWrite {
  std::string key;
  Json patch;     // the status subresource over the resourceVersion read
  Json status;    // what it writes
  Json previous;  // last_status_ before it was queued, restored if it fails
};

Controller::Controller(store::ObjectStore& store, const Clock& clock, ControllerOptions options)
    : store_(store),
      clock_(clock),
      options_(options),
      engine_(clock, options.config),
      errors_(store, clock, "kuota-controller"),
      pod_groups_(store),
      lws_workloads_(store),
      ungater_(store),
      elastic_ungater_(store),
      events_(store, clock) {
  if (options_.metrics != nullptr) {
    metrics_.emplace(*options_.metrics);
    loop_metrics_.emplace(*options_.metrics);
  }
}

Controller::~Controller() { Stop(); }

Status Controller::Start() {
  Status synced;
  std::string err = CatchAll([&] { synced = InitialSync(); });
  if (!err.empty()) return Status::Internal("initial sync: " + err);
  KUOTA_RETURN_IF_ERROR(synced);
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void Controller::Stop() {
  stop_ = true;
  if (watcher_) watcher_->Stop();
  if (thread_.joinable()) thread_.join();
}

Status Controller::InitialSync() {
  const int64_t rv = store_.CurrentResourceVersion();
  // While the list is applied, write nothing back per object (a resync after
  // a lagging watch would otherwise rewrite every workload once per queue);
  // one pass at the end writes what changed.
  started_ = false;
  std::vector<std::string> order;
  for (const auto& k : kEngineKinds) order.push_back(k.resource);
  order.push_back(kWorkloads);
  for (const auto& jk : jobs::JobKinds()) order.push_back(jk->Resource());
  pod_groups_.Clear();
  ungater_.Clear();
  elastic_ungater_.Clear();
  elastic_slices_.clear();  // the Workloads listed below fill it again
  // A resync's list stands for every pod: those the engine had that it no
  // longer holds are deleted from the engine after it.
  std::map<std::string, size_t> previous_pods = std::move(topology_pods_);
  topology_pods_.clear();
  order.push_back(kPods);  // managed plain pods, and every pod's use of its node
  for (const auto& resource : order) {
    KUOTA_RETURN_IF_ERROR(
        store::ListEach(store_, resource, [&](Json& item) { ApplyObjectSafely(resource, item); }));
  }
  for (const auto& [key, hash] : previous_pods) {
    if (topology_pods_.count(key) != 0) continue;
    const size_t slash = key.find('/');
    (void)engine_.Delete("Pod", key.substr(0, slash), key.substr(slash + 1));
  }
  KUOTA_ASSIGN_OR_RETURN(watcher_, store_.Watch(store::kAllButEvents, "", rv));
  processed_rv_ = rv;
  started_ = true;
  for (const engine::WorkloadInfo* wl : engine_.Workloads()) SyncWorkloadStatus(wl->key);
  schedule_more_ = Schedule();
  FlushStatuses();
  queues_dirty_ = true;
  WriteQueueStatus(true);
  return Status::Ok();
}

void Controller::ApplyObjectSafely(const std::string& resource, const Json& object) {
  std::string err = CatchAll([&] { ApplyObject(resource, object); });
  if (!err.empty()) errors_.Report(resource, object, "InvalidObject", err);
}

void Controller::Run() {
  while (!stop_) {
    // No exception may end the loop (and kuotad with it): a step that throws
    // is logged and retried after a pause; per-object failures are reported
    // on the object by ApplyObjectSafely and HandleEvent.
    std::string err = CatchAll([&] { RunOnce(); });
    if (!err.empty()) {
      std::fprintf(stderr, "kuotad: controller: %s; resynchronizing\n", err.c_str());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      std::string resync = CatchAll([&] { (void)InitialSync(); });
      if (!resync.empty()) std::fprintf(stderr, "kuotad: controller: %s\n", resync.c_str());
    }
  }
  // What was decided last is written before the loop ends.
  std::string err = CatchAll([&] { FlushStatuses(); });
  if (!err.empty()) std::fprintf(stderr, "kuotad: controller: %s\n", err.c_str());
}

void Controller::RunOnce() {
  {
    using SteadyClock = std::chrono::steady_clock;
    store::EventPtr ev;
    auto wait = schedule_more_ ? std::chrono::milliseconds(0) : options_.idle_tick;
    const SteadyClock::time_point start = SteadyClock::now();
    std::optional<SteadyClock::time_point> first_event;
    while (!stop_ && watcher_->Next(&ev, wait)) {
      if (!first_event) first_event = SteadyClock::now();
      HandleEvent(*ev);
      processed_rv_ = std::max<int64_t>(processed_rv_, ev->resource_version);
      wait = std::chrono::milliseconds(0);
    }
    SteadyClock::time_point t = SteadyClock::now();
    if (loop_metrics_) {
      loop_metrics_->Spent(LoopMetrics::Step::kWait, first_event.value_or(t) - start);
      if (first_event) loop_metrics_->Spent(LoopMetrics::Step::kEvents, t - *first_event);
    }
    if (stop_) return;
    if (!watcher_->Alive()) {
      // Fell behind (a burst of writes) or the watch ended: resume after the
      // last event handled, from the store's event log; only when the log no
      // longer reaches back that far, resynchronize from a fresh list.
      FlushStatuses();
      Result<std::unique_ptr<store::Watcher>> resumed =
          store_.Watch(store::kAllButEvents, "", processed_rv_);
      if (resumed.ok()) {
        std::fprintf(stderr, "kuotad: watch fell behind; resumed after resourceVersion %lld\n",
                     static_cast<long long>(processed_rv_));
        watcher_ = std::move(resumed).value();
        return;
      }
      std::fprintf(stderr, "kuotad: watch ended (%s); resynchronizing\n",
                   resumed.status().message().c_str());
      if (!InitialSync().ok()) std::this_thread::sleep_for(std::chrono::seconds(1));
      return;
    }
    // Each step's time goes to the loop's metrics, measured from the last.
    auto step = [&](LoopMetrics::Step s) {
      const SteadyClock::time_point now = SteadyClock::now();
      if (loop_metrics_) loop_metrics_->Spent(s, now - t);
      t = now;
    };
    CheckPodsReady();
    CheckMaximumExecutionTime();
    schedule_more_ = Schedule();
    PersistDeactivations();
    FlushStatuses();
    UngateTopologyPods();
    UngateElasticPods();
    step(LoopMetrics::Step::kSchedule);
    WriteQueueStatus(false);
    step(LoopMetrics::Step::kQueueStatus);
    AnswerQueries();
    step(LoopMetrics::Step::kQueries);
    if (loop_metrics_) loop_metrics_->Round();
  }
}

void Controller::NoteOwnWrite(const std::string& resource, const Json& stored) {
  own_writes_[resource + "/" + ObjectKey(stored)] = ResourceVersionOf(stored);
  // Our write's answer is the object as stored: a spec change someone made
  // just before our (status) write is in it, and that change's own event,
  // older than our write, will be taken for an echo and skipped. Apply it
  // from here (ApplyObject skips an unchanged generation).
  const KindEntry* k = FindEngineKind(resource);
  if (k != nullptr && k->has_generation) ApplyObjectSafely(resource, stored);
}

bool Controller::IsOwnEcho(const store::WatchEvent& ev) {
  auto it = own_writes_.find(ev.resource + "/" + ObjectKey(ev.object));
  if (it == own_writes_.end() || ev.type == store::EventType::kDeleted) return false;
  if (ev.resource_version > it->second) {  // written by someone else after us
    own_writes_.erase(it);
    return false;
  }
  // Our own write, or an older version of the object: what we wrote since
  // already reflects it (workload writes carry a resourceVersion precondition),
  // so applying it would only take the engine back in time.
  if (ev.resource_version == it->second) own_writes_.erase(it);
  return true;
}

void Controller::HandleEvent(const store::WatchEvent& ev) {
  if (ev.type == store::EventType::kBookmark) return;
  if (IsOwnEcho(ev)) return;
  queues_dirty_ = true;
  if (ev.type == store::EventType::kDeleted) {
    errors_.Forget(ev.resource, ev.object);
    std::string err = CatchAll([&] { DeleteObject(ev.resource, ev.object); });
    if (!err.empty())
      std::fprintf(stderr, "kuotad: deleting %s: %s\n", ev.resource.c_str(), err.c_str());
  } else {
    ApplyObjectSafely(ev.resource, ev.object);
  }
}

void Controller::ApplyObject(const std::string& resource, const Json& object) {
  if (!waiting_jobs_.empty()) RetryWaitingJobs(resource, object);
  if (const KindEntry* k = FindEngineKind(resource)) {
    const std::string id = resource + "/" + ObjectKey(object);
    if (k->has_generation) {
      int64_t gen = object.value("metadata", Json::object()).value("generation", int64_t{0});
      auto it = applied_generation_.find(id);
      if (it != applied_generation_.end() && it->second == gen && gen != 0) return;  // status only
      applied_generation_[id] = gen;
    }
    auto decoded = Decode(object);
    if (!decoded.ok()) {
      errors_.Report(resource, object, "InvalidObject",
                     "ignored by the scheduler: " + decoded.status().message());
      return;
    }
    Status st = engine_.Apply(*decoded);
    if (!st.ok()) std::fprintf(stderr, "kuotad: %s\n", st.ToString().c_str());
    // A queue's stopPolicy (HoldAndDrain) or a quota change may have evicted
    // workloads: write back every status that changed.
    if (started_) {
      for (const engine::WorkloadInfo* wl : engine_.Workloads()) SyncWorkloadStatus(wl->key);
    }
    return;
  }
  if (resource == kWorkloads) {
    if (FinalizeWorkload(object)) return;
    if (!FitsMachine(object)) return;
    auto decoded = Decode(object);
    if (!decoded.ok()) {
      errors_.Report(resource, object, "InvalidObject",
                     "ignored by the scheduler: " + decoded.status().message());
      return;
    }
    const std::string key = ObjectKey(object);
    last_status_[key] = object.value("status", Json::object());
    workload_rv_[key] = MetaString(object, "resourceVersion");
    for (const auto& ref : object["metadata"].value("ownerReferences", Json::array())) {
      if (ref.value("controller", false)) job_workload_[ref.value("uid", "")] = key;
    }
    NoteElasticSlice(object, false);
    const bool known = engine_.FindWorkload(key) != nullptr;
    Status st = engine_.Apply(*decoded);
    if (!st.ok()) std::fprintf(stderr, "kuotad: %s\n", st.ToString().c_str());
    SyncWorkloadStatus(key);
    // Pods that waited for their prebuilt Workload (a LeaderWorkerSet's
    // group, MultiKueue's copies on a worker) join it now.
    if (!known && pod_groups_.Owns(key)) {
      const jobs::PodGroup group = pod_groups_.Group(key);
      if (!group.pods().empty() &&
          !jobs::MetaMapValue(group.pods().front(), "labels", jobs::kPrebuiltWorkloadLabel)
               .empty()) {
        ReconcilePodWorkload(key);
      }
    }
    return;
  }
  if (resource == kPods) {
    ApplyNonTasPod(object, false);
    ungater_.Observe(object, false);
    elastic_ungater_.Observe(object, false);
    HandlePod(object, false);
    return;
  }
  if (jobs::FindJobKind(resource)) HandleJob(resource, object);
}

bool Controller::FinalizeWorkload(const Json& object) {
  if (options_.workload_finalizer.empty()) return false;
  const Json meta = object.value("metadata", Json::object());
  if (!meta.contains("deletionTimestamp") || meta["deletionTimestamp"].is_null()) return false;
  Json finalizers = meta.value("finalizers", Json::array());
  Json rest = Json::array();
  bool ours = false;
  for (const Json& f : finalizers) {
    if (f == options_.workload_finalizer) {
      ours = true;
    } else {
      rest.push_back(f);
    }
  }
  // A status queued for it is written first (or conflicts) before the finalizer
  // goes.
  if (status_batch_keys_.count(ObjectKey(object)) != 0) FlushStatuses();
  // Being deleted: its quota is free from now on, whoever's finalizer is left.
  DeleteObject(kWorkloads, object);
  if (!ours) return true;
  Json updated = object;
  updated["metadata"]["finalizers"] = rest;
  Result<Json> written = store_.Update(kWorkloads, updated);
  if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
    // A newer version arrives as an event and is finalized then.
    std::fprintf(stderr, "kuotad: removing the finalizer of workload %s: %s\n",
                 ObjectKey(object).c_str(), written.status().message().c_str());
  }
  return true;
}

void Controller::DeleteObject(const std::string& resource, const Json& object) {
  const std::string ns = MetaString(object, "namespace");
  const std::string name = MetaString(object, "name");
  if (const KindEntry* k = FindEngineKind(resource)) {
    applied_generation_.erase(resource + "/" + ObjectKey(object));
    (void)engine_.Delete(k->kind, ns, name);
    return;
  }
  if (resource == kWorkloads) {
    NoteElasticSlice(object, true);
    (void)engine_.Delete("Workload", ns, name);
    last_status_.erase(ns + "/" + name);
    workload_rv_.erase(ns + "/" + name);
    // Pods that came while the Workload was on its way out (a StatefulSet's
    // pod made again after a preemption deleted them all, which deletes
    // their Workload) saw it still there: their group makes a new one now.
    const std::string key = ns + "/" + name;
    if (options_.jobs.PodIntegrationRuns() && pod_groups_.Owns(key)) ReconcilePodWorkload(key);
    return;
  }
  if (resource == kPods) {
    ApplyNonTasPod(object, true);
    ungater_.Observe(object, true);
    elastic_ungater_.Observe(object, true);
    HandlePod(object, true);
    return;
  }
  if (dynamic_cast<const jobs::LeaderWorkerSetKind*>(jobs::FindJobKind(resource)) != nullptr) {
    job_workload_.erase(MetaString(object, "uid"));
    lws_workloads_.DeleteAll(object);
    return;
  }
  if (jobs::FindJobKind(resource)) {
    DeleteElasticSlices(MetaString(object, "uid"));
    auto it = job_workload_.find(MetaString(object, "uid"));
    if (it == job_workload_.end()) return;
    std::string wl_key = it->second;
    job_workload_.erase(it);
    size_t slash = wl_key.find('/');
    (void)store_.Delete(kWorkloads, wl_key.substr(0, slash), wl_key.substr(slash + 1));
  }
}

void Controller::HandleJob(const std::string& resource, const Json& job) {
  const jobs::JobKind* kind = jobs::FindJobKind(resource);
  if (!options_.jobs.Manages(*kind, job)) return;
  if (const auto* lws = dynamic_cast<const jobs::LeaderWorkerSetKind*>(kind)) {
    ReconcileLeaderWorkerSet(*lws, job);
    return;
  }
  if (IsElasticJob(*kind, job)) {
    HandleElasticJob(*kind, job);
    return;
  }
  const std::string uid = MetaString(job, "uid");
  auto it = job_workload_.find(uid);
  bool succeeded = false;
  const bool finished = kind->IsFinished(job, &succeeded);
  if (it == job_workload_.end()) {
    if (finished) return;
    if (!LabelString(job, kPrebuiltWorkloadLabel).empty()) {
      AdoptPrebuiltWorkload(*kind, job);
      return;
    }
    if (std::optional<jobs::ReferencedObject> ref = kind->PendingReference(job)) {
      ResolveReference(*kind, job, *ref);
      return;
    }
    auto wl = kind->BuildWorkload(job);
    if (!wl.ok()) {
      std::fprintf(stderr, "kuotad: job %s: %s\n", ObjectKey(job).c_str(),
                   wl.status().message().c_str());
      return;
    }
    jobs::ApplyMaxExecutionTime(job, *wl);
    if (!options_.workload_finalizer.empty()) {
      (*wl)["metadata"]["finalizers"].push_back(options_.workload_finalizer);
    }
    auto stored = store_.Create(kWorkloads, *wl);
    if (!stored.ok()) {
      if (stored.status().code() != StatusCode::kAlreadyExists) {
        std::fprintf(stderr, "kuotad: creating workload for job %s: %s\n", ObjectKey(job).c_str(),
                     stored.status().message().c_str());
        return;
      }
      stored = store_.Get(kWorkloads, MetaString(*wl, "namespace"), MetaString(*wl, "name"));
      if (!stored.ok()) return;
    } else {
      NoteOwnWrite(kWorkloads, *stored);
      RecordEvent(job, "Normal", "CreatedWorkload", "Created Workload: " + ObjectKey(*stored));
    }
    ApplyObject(kWorkloads, *stored);
    it = job_workload_.find(uid);
    if (it == job_workload_.end()) return;
  }
  const std::string wl_key = it->second;
  const engine::WorkloadInfo* wl = engine_.FindWorkload(wl_key);
  if (wl == nullptr) return;
  if (finished) {
    if (wl->state != engine::WorkloadState::kFinished) {
      (void)engine_.FinishWorkload(wl_key);
      SyncWorkloadStatus(wl_key);
    }
    return;
  }
  const bool suspended = kind->IsSuspended(job);
  if (wl->state == engine::WorkloadState::kAdmitted && !suspended) {
    // Kueue's PodsReady: every pod the job runs now is ready or succeeded.
    const bool ready = kind->PodsReady(job);
    const api::Condition* c = api::FindCondition(wl->object.status.conditions, api::kPodsReady);
    const bool was_ready = c != nullptr && c->status == "True";
    if (c == nullptr || ready != was_ready) {
      (void)engine_.SetPodsReady(wl_key, ready, ready ? "PodsReady" : "WaitForStart",
                                 ready ? "All pods reached readiness and the workload is running"
                                       : "Not all pods are ready or succeeded");
      SyncWorkloadStatus(wl_key);
    }
  }
  if (wl->state == engine::WorkloadState::kAdmitted && suspended) {
    StartJob(wl_key);
  } else if (wl->state != engine::WorkloadState::kAdmitted && !suspended) {
    StopJob(wl_key);
  }
}

void Controller::ReconcileLeaderWorkerSet(const jobs::LeaderWorkerSetKind& kind, const Json& lws) {
  auto changes = lws_workloads_.Reconcile(kind, lws, options_.workload_finalizer);
  if (!changes.ok()) {
    std::fprintf(stderr, "kuotad: leaderworkerset %s: %s\n", ObjectKey(lws).c_str(),
                 changes.status().message().c_str());
    return;
  }
  for (const Json& wl : changes->created) {
    NoteOwnWrite(kWorkloads, wl);
    RecordEvent(lws, "Normal", "CreatedWorkload", "Created Workload: " + ObjectKey(wl));
    ApplyObject(kWorkloads, wl);  // (its pods, when labelled already, join it there)
  }
}

void Controller::ResolveReference(const jobs::JobKind& kind, const Json& job,
                                  const jobs::ReferencedObject& ref) {
  const std::string resource = kind.Resource();
  Result<Json> referenced = store_.Get(ref.resource, ref.ns, ref.name);
  if (!referenced.ok()) {
    if (referenced.status().code() != StatusCode::kNotFound) {
      std::fprintf(stderr, "kuotad: job %s: reading %s %s: %s\n", ObjectKey(job).c_str(),
                   ref.kind.c_str(), ref.name.c_str(), referenced.status().message().c_str());
      return;
    }
    // Retried when it is created (ApplyObject).
    waiting_jobs_[ref.resource + "/" + ref.ns + "/" + ref.name].insert(
        {resource, MetaString(job, "namespace"), MetaString(job, "name")});
    errors_.Report(resource, job, "InvalidJob",
                   ref.kind + " " + Json(ref.name).dump() +
                       " not found: the job's Workload is created once it exists");
    return;
  }
  Result<Json> resolved = kind.WithReference(job, *referenced);
  if (!resolved.ok()) {
    errors_.Report(resource, job, "InvalidJob", resolved.status().message());
    return;
  }
  Result<Json> stored = store_.Update(resource, *resolved);
  if (!stored.ok()) {
    // A conflict: the newer version arrives as an event and is resolved then.
    if (stored.status().code() != StatusCode::kConflict) {
      std::fprintf(stderr, "kuotad: job %s: %s\n", ObjectKey(job).c_str(),
                   stored.status().message().c_str());
    }
    return;
  }
  errors_.Forget(resource, job);
  NoteOwnWrite(resource, *stored);
  HandleJob(resource, *stored);
}

void Controller::RetryWaitingJobs(const std::string& resource, const Json& object) {
  auto it = waiting_jobs_.find(resource + "/" + MetaString(object, "namespace") + "/" +
                               MetaString(object, "name"));
  if (it == waiting_jobs_.end()) return;
  const auto jobs = std::move(it->second);
  waiting_jobs_.erase(it);
  for (const auto& [job_resource, ns, name] : jobs) {
    Result<Json> job = store_.Get(job_resource, ns, name);
    if (job.ok()) HandleJob(job_resource, *job);
  }
}

void Controller::AdoptPrebuiltWorkload(const jobs::JobKind& kind, const Json& job) {
  const std::string ns = MetaString(job, "namespace");
  Result<Json> wl = store_.Get(kWorkloads, ns, LabelString(job, kPrebuiltWorkloadLabel));
  if (!wl.ok()) return;  // the job waits, suspended, until its Workload exists
  Json& refs = (*wl)["metadata"]["ownerReferences"];
  if (!refs.is_array()) refs = Json::array();
  for (const Json& ref : refs) {
    if (ref.value("controller", false) && ref.value("uid", "") != MetaString(job, "uid")) {
      std::fprintf(stderr, "kuotad: job %s: its prebuilt workload %s is owned by another object\n",
                   ObjectKey(job).c_str(), ObjectKey(*wl).c_str());
      return;
    }
  }
  if (refs.empty()) {
    refs.push_back({{"apiVersion", kind.ApiVersion()},
                    {"kind", kind.Kind()},
                    {"name", MetaString(job, "name")},
                    {"uid", MetaString(job, "uid")},
                    {"controller", true},
                    {"blockOwnerDeletion", true}});
    Result<Json> stored = store_.Update(kWorkloads, std::move(*wl));
    if (!stored.ok()) return;  // a conflict: the job's next event tries again
    NoteOwnWrite(kWorkloads, *stored);
    wl = std::move(stored);
  }
  ApplyObject(kWorkloads, *wl);
  if (job_workload_.count(MetaString(job, "uid")) != 0) HandleJob(kind.Resource(), job);
}

void Controller::ApplyNonTasPod(const Json& pod, bool deleted) {
  const std::string key = ObjectKey(pod);
  if (deleted || !IsNonTasPod(pod)) {
    if (topology_pods_.erase(key) != 0) {
      (void)engine_.Delete("Pod", MetaString(pod, "namespace"), MetaString(pod, "name"));
    }
    return;
  }
  Json projected = NonTasPodProjection(pod);
  const size_t hash = std::hash<std::string>{}(projected.dump());
  auto it = topology_pods_.find(key);
  if (it != topology_pods_.end() && it->second == hash) return;  // nothing the engine reads
  auto decoded = Decode(projected);
  if (!decoded.ok()) {
    // Not reported on the pod: ObjectErrors fails a pod it reports, and this
    // pod may run well; its node just looks emptier than it is.
    std::fprintf(stderr, "kuotad: pod %s: its use of node %s is not counted: %s\n", key.c_str(),
                 projected["spec"].value("nodeName", "").c_str(),
                 decoded.status().message().c_str());
    return;
  }
  Status st = engine_.Apply(*decoded);
  if (!st.ok()) {
    std::fprintf(stderr, "kuotad: %s\n", st.ToString().c_str());
    return;
  }
  topology_pods_[key] = hash;
}

void Controller::HandlePod(const Json& pod, bool deleted) {
  if (!options_.jobs.PodIntegrationRuns()) return;
  if (!deleted && jobs::LeaderWorkerSetKind::SuspendedByLeaderWorkerSet(pod) &&
      !jobs::IsManagedPod(pod)) {
    // Kueue's LWS controller names the pod's group Workload; the update
    // comes back as an event of a managed pod.
    auto labelled = lws_workloads_.DefaultPod(pod);
    if (!labelled.ok()) {
      std::fprintf(stderr, "kuotad: pod %s: %s\n", ObjectKey(pod).c_str(),
                   labelled.status().message().c_str());
    }
    return;
  }
  if (!deleted && NeedsStatefulSetLabels(pod)) {
    // Kueue's StatefulSet pod reconciler names the pod's group; the update
    // comes back as an event of a managed pod.
    auto labelled = LabelStatefulSetPod(store_, pod);
    if (!labelled.ok()) {
      std::fprintf(stderr, "kuotad: pod %s: %s\n", ObjectKey(pod).c_str(),
                   labelled.status().message().c_str());
    }
    return;
  }
  const std::string key = pod_groups_.Observe(pod, deleted);
  if (!key.empty()) ReconcilePodWorkload(key);
}

void Controller::ReconcilePodWorkload(const std::string& key) {
  const jobs::PodGroup group = pod_groups_.Group(key);
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  if (group.pods().empty()) {
    // Every pod is gone: so is the Workload they owned (as Kubernetes'
    // garbage collector deletes an object whose owners are all gone), unless
    // something else owns it too (a LeaderWorkerSet's group Workload waits
    // for the group's new pods).
    if (const engine::WorkloadInfo* owned = engine_.FindWorkload(key)) {
      for (const api::OwnerReference& ref : owned->object.metadata.owner_references) {
        if (ref.kind != "Pod") return;
      }
    }
    (void)store_.Delete(kWorkloads, ns, name);
    return;
  }
  bool succeeded = false;
  const bool finished = group.Finished(&succeeded);
  const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
  if (wl == nullptr) {
    // A group's Workload is made once all its pods exist; a prebuilt one
    // (kueue.x-k8s.io/prebuilt-workload-name) is waited for, as Kueue does.
    if (finished || !group.Complete()) return;
    if (!jobs::MetaMapValue(group.pods().front(), "labels", jobs::kPrebuiltWorkloadLabel).empty()) {
      return;
    }
    auto built = group.BuildWorkload();
    if (!built.ok()) {
      std::fprintf(stderr, "kuotad: pods %s: %s\n", key.c_str(), built.status().message().c_str());
      return;
    }
    auto stored = store_.Create(kWorkloads, *built);
    if (!stored.ok()) {
      if (stored.status().code() != StatusCode::kAlreadyExists) {
        std::fprintf(stderr, "kuotad: creating workload %s: %s\n", key.c_str(),
                     stored.status().message().c_str());
        return;
      }
      stored = store_.Get(kWorkloads, ns, name);
      if (!stored.ok()) return;
    } else {
      NoteOwnWrite(kWorkloads, *stored);
      for (const Json* pod : group.ActivePods()) {
        RecordEvent(*pod, "Normal", "CreatedWorkload", "Created Workload: " + key);
      }
    }
    ApplyObject(kWorkloads, *stored);
    wl = engine_.FindWorkload(key);
    if (wl == nullptr) return;
  }
  if (finished) {
    if (wl->state != engine::WorkloadState::kFinished) {
      (void)engine_.FinishWorkload(key);
      SyncWorkloadStatus(key);
    }
    return;
  }
  EnsureOwnedByMembers(key, group, *wl);
  wl = engine_.FindWorkload(key);
  if (wl == nullptr) return;
  if (wl->state == engine::WorkloadState::kAdmitted) {
    StartJob(key);
    const bool ready = group.PodsReady();
    const api::Condition* c = api::FindCondition(wl->object.status.conditions, api::kPodsReady);
    if (c == nullptr || ready != (c->status == "True")) {
      (void)engine_.SetPodsReady(key, ready, ready ? "PodsReady" : "WaitForStart",
                                 ready ? "All pods reached readiness and the workload is running"
                                       : "Not all pods are ready or succeeded");
      SyncWorkloadStatus(key);
    }
  } else {
    StopJob(key);
  }
}

void Controller::EnsureOwnedByMembers(const std::string& key, const jobs::PodGroup& group,
                                      const engine::WorkloadInfo& wl) {
  std::set<std::string> owners;
  for (const api::OwnerReference& ref : wl.object.metadata.owner_references) {
    if (ref.kind != "Pod") return;  // prebuilt (a LeaderWorkerSet's group)
    owners.insert(ref.uid);
  }
  if (owners.empty()) return;
  std::vector<const Json*> missing;
  for (const Json* pod : group.ActivePods()) {
    if (owners.count(MetaString(*pod, "uid")) == 0) missing.push_back(pod);
  }
  if (missing.empty()) return;
  const size_t slash = key.find('/');
  Result<Json> stored = store_.Get(kWorkloads, key.substr(0, slash), key.substr(slash + 1));
  if (!stored.ok()) return;
  Json& refs = (*stored)["metadata"]["ownerReferences"];
  if (!refs.is_array()) return;
  for (const Json* pod : missing) {
    refs.push_back({{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"name", MetaString(*pod, "name")},
                    {"uid", MetaString(*pod, "uid")},
                    {"blockOwnerDeletion", true}});
  }
  Result<Json> updated = store_.Update(kWorkloads, std::move(*stored));
  if (!updated.ok()) return;  // a conflict: the next pod event tries again
  NoteOwnWrite(kWorkloads, *updated);
  ApplyObject(kWorkloads, *updated);
}

namespace {

// A toleration as a pod spec carries it (operator defaulted to Equal).
nlohmann::json TolerationJson(const api::Toleration& t) {
  nlohmann::json tj = {{"key", t.key}, {"operator", t.op.empty() ? "Equal" : t.op}};
  if (!t.value.empty()) tj["value"] = t.value;
  if (!t.effect.empty()) tj["effect"] = t.effect;
  if (t.toleration_seconds) tj["tolerationSeconds"] = *t.toleration_seconds;
  return tj;
}

}  // namespace

std::vector<jobs::PodSetPlacement> Controller::PlacementOf(const engine::WorkloadInfo& wl) {
  std::vector<jobs::PodSetPlacement> placement;
  const auto& flavors = engine_.state().flavors;
  for (const auto& ps : wl.admission) {
    jobs::PodSetPlacement p;
    p.name = ps.name;
    p.count = ps.count;
    std::set<std::string> seen;
    for (const auto& [res, flavor_name] : ps.flavors) {
      if (!seen.insert(flavor_name).second) continue;
      auto f = flavors.find(flavor_name);
      if (f == flavors.end()) continue;
      for (const auto& [k, v] : f->second.node_labels) p.node_selector[k] = v;
      for (const auto& t : f->second.tolerations) p.tolerations.push_back(TolerationJson(t));
    }
    // Ready admission checks' podSetUpdates (Kueue's PodSetUpdate: the
    // provisioning check's consume-provisioning-request annotations, ...).
    for (const auto& check : wl.object.status.admission_checks) {
      if (check.state != "Ready") continue;
      for (const auto& u : check.pod_set_updates) {
        if (u.name != ps.name) continue;
        for (const auto& [k, v] : u.labels) p.labels[k] = v;
        for (const auto& [k, v] : u.annotations) p.annotations[k] = v;
        for (const auto& [k, v] : u.node_selector) p.node_selector[k] = v;
        for (const auto& t : u.tolerations) p.tolerations.push_back(TolerationJson(t));
      }
    }
    placement.push_back(std::move(p));
  }
  return placement;
}

bool Controller::Schedule() {
  std::set<std::string> touched;
  const auto round_end = std::chrono::steady_clock::now() + options_.schedule_round;
  bool more = false;
  for (int i = 0; i < 10000 && !stop_; ++i) {
    const auto cycle_start = std::chrono::steady_clock::now();
    if (i > 0 && cycle_start >= round_end) {
      more = true;
      break;
    }
    engine::CycleResult r = engine_.RunCycle();
    if (metrics_ && r.heads > 0) {
      metrics_->AdmissionAttempt(
          !r.admitted.empty(),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - cycle_start).count());
    }
    if (metrics_) {
      for (const auto& k : r.replaced) {
        const engine::WorkloadInfo* old = engine_.FindWorkload(k);
        metrics_->ReplacedSlice(old != nullptr && old->object.status.admission
                                    ? old->object.status.admission->cluster_queue
                                    : std::string());
      }
      for (const auto& p : r.preempted) {
        const engine::WorkloadInfo* by = engine_.FindWorkload(p.preemptor);
        const engine::ClusterQueueNode* cq = by == nullptr     ? nullptr
                                             : by->admitted_in ? by->admitted_in
                                                               : by->queued_in;
        metrics_->Preempted(cq ? cq->name() : std::string(), p.reason);
      }
    }
    for (const auto& a : r.admitted) touched.insert(a.workload);
    for (const auto& k : r.replaced) touched.insert(k);
    for (const auto& p : r.preempted) touched.insert(p.workload);
    for (const auto& p : r.pending) touched.insert(p.workload());
    for (const auto& p : r.preempted) {
      const engine::WorkloadInfo* victim = engine_.FindWorkload(p.workload);
      if (victim == nullptr) continue;
      RecordEvent(WorkloadRef(*victim), "Normal", "Preempted", p.message);
    }
    // Publish every admission and eviction as it is decided, so watchers see
    // an admission even when a later cycle of this burst preempts it.
    for (const auto& a : r.admitted) SyncWorkloadStatus(a.workload);
    for (const auto& k : r.replaced) SyncWorkloadStatus(k);
    for (const auto& p : r.preempted) SyncWorkloadStatus(p.workload);
    // Evictions are written as soon as they are decided: a victim the runner
    // finished meanwhile must conflict before its preemptor is admitted.
    if (!r.preempted.empty()) FlushStatuses();
    if (r.admitted.empty() && r.preempted.empty()) break;
  }
  for (const auto& key : touched) SyncWorkloadStatus(key);
  FlushStatuses();
  return more;
}

void Controller::SyncWorkloadStatus(const std::string& key) {
  // A second transition of a workload goes over the version its first wrote.
  if (status_batch_keys_.count(key) != 0) FlushStatuses();
  const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
  if (wl == nullptr) return;
  Json status = WorkloadStatusToJson(wl->object.status);
  Json& last = last_status_[key];
  // Fields the MultiKueue controller owns (multikueue_controller.h) ride along.
  for (const char* field : {"clusterName", "nominatedClusterNames"}) {
    if (auto it = last.find(field); it != last.end()) status[field] = *it;
  }
  if (status == last) return;
  // Conditions that changed become Events. Read in place: a status is
  // compared several times per write.
  static const Json kNoCondition = Json::object();
  auto cond = [](const Json& st, const char* type) -> const Json& {
    auto conditions = st.find("conditions");
    if (conditions == st.end() || !conditions->is_array()) return kNoCondition;
    for (const Json& c : *conditions) {
      auto t = c.is_object() ? c.find("type") : c.end();
      if (t != c.end() && *t == type) return c;
    }
    return kNoCondition;
  };
  const Json involved = WorkloadRef(*wl);
  const Json &qr_new = cond(status, api::kQuotaReserved), &qr_old = cond(last, api::kQuotaReserved);
  if (!qr_new.empty() && qr_new != qr_old) {
    if (qr_new.value("status", "") == "True") {
      RecordEvent(involved, "Normal", "QuotaReserved", qr_new.value("message", ""));
    } else if (qr_new.value("reason", "") == "Pending" &&
               (qr_old.empty() || qr_old.value("message", "") != qr_new.value("message", ""))) {
      RecordEvent(involved, "Warning", "Pending", qr_new.value("message", ""));
    }
  }
  const Json &ad_new = cond(status, api::kAdmitted), &ad_old = cond(last, api::kAdmitted);
  if (ad_new.value("status", "") == "True" && ad_old.value("status", "") != "True") {
    RecordEvent(involved, "Normal", "Admitted",
                "Admitted by ClusterQueue " +
                    (wl->admitted_in ? wl->admitted_in->name() : std::string("?")));
  }
  const Json &ev_new = cond(status, api::kEvicted), &ev_old = cond(last, api::kEvicted);
  if (ev_new.value("status", "") == "True" && ev_new != ev_old &&
      ev_new.value("reason", "") != "Preempted") {
    RecordEvent(involved, "Normal", "Evicted", ev_new.value("message", ""));
  }
  if (metrics_) {
    const std::string& ns = wl->ns();
    const std::string& lq = wl->object.spec.queue_name;
    // The ClusterQueue it holds (or held) quota in.
    auto cq_of = [&](const Json& st) {
      return st.value("admission", Json::object()).value("clusterQueue", std::string());
    };
    const std::string cq = wl->admitted_in          ? wl->admitted_in->name()
                           : !cq_of(status).empty() ? cq_of(status)
                                                    : cq_of(last);
    const double wait = static_cast<double>((clock_.Now() - wl->queue_order_time).ms) / 1000.0;
    auto turned_true = [&](const char* type) {
      return cond(status, type).value("status", "") == "True" &&
             cond(last, type).value("status", "") != "True";
    };
    if (turned_true(api::kQuotaReserved)) metrics_->QuotaReserved(cq, ns, lq, wait);
    if (turned_true(api::kAdmitted)) metrics_->Admitted(cq, ns, lq, wait);
    if (turned_true(api::kEvicted)) metrics_->Evicted(cq, ns, lq, ev_new.value("reason", ""));
    if (turned_true(api::kFinished)) metrics_->Finished(cq, ns, lq);
  }
  Json patch = {{"apiVersion", api::kKueueV1beta2},
                {"kind", "Workload"},
                {"metadata", {{"name", wl->name()}, {"namespace", wl->ns()}}},
                {"status", status}};
  // Only over the version the engine last saw: a status written meanwhile by
  // someone else (a Finished condition, an admission check) must not be lost.
  if (auto rv = workload_rv_.find(key); rv != workload_rv_.end() && !rv->second.empty()) {
    patch["metadata"]["resourceVersion"] = rv->second;
  }
  StatusWrite write;
  write.key = key;
  write.patch = std::move(patch);
  write.status = status;
  write.previous = std::move(last);
  last = std::move(status);  // as queued; restored if the write fails
  status_batch_.push_back(std::move(write));
  status_batch_keys_.insert(key);
  queues_dirty_ = true;
  if (status_batch_.size() >= kMaxStatusBatch) FlushStatuses();
}

void Controller::FlushStatuses() {
  // Conflicts queue new writes; a few rounds, the rest waits for the next
  // flush.
  for (int round = 0; round < 4 && !status_batch_.empty(); ++round) {
    std::vector<StatusWrite> batch;
    batch.swap(status_batch_);
    status_batch_keys_.clear();
    std::vector<store::BatchWrite> writes;
    writes.reserve(batch.size());
    for (StatusWrite& w : batch) {
      store::BatchWrite bw;
      bw.op = store::BatchWrite::Op::kUpdate;
      bw.resource = kWorkloads;
      bw.object = std::move(w.patch);
      bw.update.status_only = true;
      writes.push_back(std::move(bw));
    }
    const auto flush_start = std::chrono::steady_clock::now();
    std::vector<Result<Json>> results = store_.WriteBatch(std::move(writes));
    if (loop_metrics_) loop_metrics_->StatusFlush(std::chrono::steady_clock::now() - flush_start);
    for (size_t i = 0; i < batch.size(); ++i) {
      StatusWritten(batch[i], i < results.size() ? std::move(results[i])
                                                 : Result<Json>(Status::Internal("not written")));
    }
  }
}

void Controller::StatusWritten(StatusWrite& write, Result<Json> stored) {
  const std::string& key = write.key;
  if (!stored.ok()) {
    auto last = last_status_.find(key);
    if (last != last_status_.end() && last->second == write.status) {
      last->second = std::move(write.previous);
    }
    const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
    if (wl != nullptr && stored.status().code() == StatusCode::kConflict && conflict_depth_ < 3) {
      // Take the stored object as the truth and decide again from it.
      const std::string ns = wl->ns(), name = wl->name();
      auto fresh = store_.Get(kWorkloads, ns, name);
      if (fresh.ok()) {
        ++conflict_depth_;
        ApplyObject(kWorkloads, *fresh);
        --conflict_depth_;
      }
      return;
    }
    if (stored.status().code() != StatusCode::kNotFound &&
        stored.status().code() != StatusCode::kConflict) {
      std::fprintf(stderr, "kuotad: writing status of %s: %s\n", key.c_str(),
                   stored.status().message().c_str());
    }
    return;
  }
  NoteOwnWrite(kWorkloads, *stored);
  workload_rv_[key] = MetaString(*stored, "resourceVersion");
  // Jobs follow their workload (as it is now: a later cycle may have evicted
  // it).
  const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
  if (wl == nullptr) return;
  if (wl->state == engine::WorkloadState::kAdmitted) {
    StartJob(key);
  } else if (wl->state == engine::WorkloadState::kPending ||
             wl->state == engine::WorkloadState::kInactive) {
    StopJob(key);
  }
}

namespace {

// The owning job of a workload: (resource, ns, name) or empty resource.
struct Owner {
  const jobs::JobKind* kind = nullptr;
  std::string ns, name;
};

Owner OwnerOf(const engine::WorkloadInfo& wl) {
  Owner o;
  for (const auto& ref : wl.object.metadata.owner_references) {
    if (!ref.controller) continue;
    for (const auto& jk : jobs::JobKinds()) {
      if (jk->Kind() == ref.kind && jk->ApiVersion() == ref.api_version) {
        o.kind = jk.get();
        o.ns = wl.ns();
        o.name = ref.name;
      }
    }
  }
  return o;
}

// A workload, the job that owns it, and that job as stored.
struct OwnedJob {
  const engine::WorkloadInfo* wl = nullptr;
  Owner owner;
  nlohmann::json job;
};

std::optional<OwnedJob> LoadOwnedJob(engine::Engine& engine, store::ObjectStore& store,
                                     const std::string& workload_key) {
  OwnedJob o;
  o.wl = engine.FindWorkload(workload_key);
  if (o.wl == nullptr) return std::nullopt;
  o.owner = OwnerOf(*o.wl);
  if (o.owner.kind == nullptr) return std::nullopt;
  auto job = store.Get(o.owner.kind->Resource(), o.owner.ns, o.owner.name);
  if (!job.ok()) return std::nullopt;
  o.job = std::move(job).value();
  return o;
}

}  // namespace

void Controller::ReportJobError(const std::string& workload_key, const std::string& err) {
  if (err.empty()) return;
  auto owned = LoadOwnedJob(engine_, store_, workload_key);
  if (owned) {
    errors_.Report(owned->owner.kind->Resource(), owned->job, "InvalidJob", err);
  } else {
    std::fprintf(stderr, "kuotad: workload %s: %s\n", workload_key.c_str(), err.c_str());
  }
}

void Controller::UngateTopologyPods() {
  ungater_.Reconcile([&](const std::string& key) -> const api::Workload* {
    const engine::WorkloadInfo* wl = engine_.FindWorkload(key);
    return wl != nullptr && wl->state == engine::WorkloadState::kAdmitted ? &wl->object : nullptr;
  });
  // A large gang is ungated over several rounds: the next one comes at once.
  if (ungater_.pending()) schedule_more_ = true;
}

void Controller::StartJob(const std::string& workload_key) {
  ReportJobError(workload_key, CatchAll([&] { StartJobUnsafe(workload_key); }));
}

void Controller::StartJobUnsafe(const std::string& workload_key) {
  if (const engine::WorkloadInfo* wl = engine_.FindWorkload(workload_key)) TouchElasticPods(*wl);
  if (pod_groups_.Owns(workload_key)) {
    const engine::WorkloadInfo* wl = engine_.FindWorkload(workload_key);
    if (wl == nullptr || wl->state != engine::WorkloadState::kAdmitted) return;
    // Dispatched by MultiKueue: the pods run on a worker and stay gated here
    // (Kueue's plain-pod adapter).
    if (AdmittedThroughMultiKueue(*wl)) return;
    auto started = pod_groups_.Start(workload_key, PlacementOf(*wl));
    if (!started.ok()) {
      std::fprintf(stderr, "kuotad: starting the pods of %s: %s\n", workload_key.c_str(),
                   started.status().message().c_str());
      return;
    }
    for (const auto& pod : *started) {
      RecordEvent(pod, "Normal", "Started",
                  "Admitted by clusterQueue " + (wl->admitted_in ? wl->admitted_in->name() : ""));
    }
    return;
  }
  // The Job's status is written by the Job controller meanwhile: on a
  // conflict, read it again and retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto owned = LoadOwnedJob(engine_, store_, workload_key);
    // A LeaderWorkerSet is started through its groups' pods only.
    if (!owned || RunsAsPodGroups(*owned->owner.kind)) return;
    if (!owned->owner.kind->IsSuspended(owned->job)) return;
    const engine::WorkloadInfo* wl = owned->wl;
    const Owner& owner = owned->owner;
    std::vector<jobs::PodSetPlacement> placement = PlacementOf(*wl);
    if (owner.kind->TopologyGatesInPlacement()) AddTopologyGatesToPlacement(wl->object, placement);
    Json started = owner.kind->Start(owned->job, placement);
    AddTopologyGates(*owner.kind, wl->object, started);
    auto updated = store_.Update(owner.kind->Resource(), started);
    if (updated.ok()) {
      NoteOwnWrite(owner.kind->Resource(), *updated);
      ungater_.Touch(workload_key);
      RecordEvent(*updated, "Normal", "Started",
                  "Admitted by clusterQueue " + (wl->admitted_in ? wl->admitted_in->name() : ""));
      return;
    }
    if (updated.status().code() != StatusCode::kConflict) return;
  }
}

bool Controller::AdmittedThroughMultiKueue(const engine::WorkloadInfo& wl) {
  for (const api::AdmissionCheckState& c : wl.object.status.admission_checks) {
    Result<Json> check = store_.Get("admissionchecks.kueue.x-k8s.io", "", c.name);
    if (check.ok() && server::StringField(*check, {"spec", "controllerName"}) ==
                          jobs::kMultiKueueControllerName) {
      return true;
    }
  }
  return false;
}

void Controller::StopJob(const std::string& workload_key) {
  ReportJobError(workload_key, CatchAll([&] { StopJobUnsafe(workload_key); }));
}

void Controller::StopJobUnsafe(const std::string& workload_key) {
  if (const engine::WorkloadInfo* wl = engine_.FindWorkload(workload_key);
      wl != nullptr && ElasticJobKeepsRunning(*wl)) {
    return;  // a new slice waits (or was dropped) while the admitted one runs the job
  }
  if (pod_groups_.Owns(workload_key)) {
    // Pods cannot be gated again: Kueue deletes the started ones.
    const engine::WorkloadInfo* wl = engine_.FindWorkload(workload_key);
    if (wl == nullptr) return;
    auto stopped = pod_groups_.Stop(workload_key);
    if (!stopped.ok()) {
      std::fprintf(stderr, "kuotad: stopping the pods of %s: %s\n", workload_key.c_str(),
                   stopped.status().message().c_str());
      return;
    }
    for (const auto& pod : *stopped) {
      RecordEvent(
          pod, "Normal", "Stopped",
          wl->pending_message().empty() ? "Not admitted by cluster queue" : wl->pending_message());
    }
    return;
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto owned = LoadOwnedJob(engine_, store_, workload_key);
    if (!owned || RunsAsPodGroups(*owned->owner.kind)) return;
    if (owned->owner.kind->IsSuspended(owned->job)) return;
    const engine::WorkloadInfo* wl = owned->wl;
    const Owner& owner = owned->owner;
    bool done = false;
    if (owner.kind->IsFinished(owned->job, &done)) return;
    Json stopped = owner.kind->Stop(owned->job);
    RemoveTopologyGates(*owner.kind, wl->object, stopped);
    auto updated = store_.Update(owner.kind->Resource(), stopped);
    if (updated.ok()) {
      NoteOwnWrite(owner.kind->Resource(), *updated);
      RecordEvent(
          *updated, "Normal", "Stopped",
          wl->pending_message().empty() ? "Not admitted by cluster queue" : wl->pending_message());
      return;
    }
    if (updated.status().code() != StatusCode::kConflict) return;
  }
}

void Controller::RecordEvent(const Json& involved, const std::string& type,
                             const std::string& reason, const std::string& message) {
  events_.Record(involved, type, reason, message);
}

std::string Controller::ActiveSince(const std::string& id, const Json& active,
                                    const std::string& now) const {
  auto prev = queue_status_.find(id);
  if (prev == queue_status_.end()) return now;
  const Json conditions = prev->second.value("conditions", Json::array());
  if (conditions.empty()) return now;
  const Json& pc = conditions[0];
  if (pc.value("status", "") != active.value("status", "") ||
      pc.value("reason", "") != active.value("reason", "")) {
    return now;
  }
  return pc.value("lastTransitionTime", now);
}

void Controller::WriteQueueStatus(bool force) {
  auto now = std::chrono::steady_clock::now();
  // The gauges cost a pass over every workload: at most once a second, and
  // not held back by the statuses' pacing below (which can wait many
  // seconds after a pass that wrote thousands of queues).
  if (metrics_ && (force || now - last_metrics_publish_ >= std::chrono::seconds(1))) {
    last_metrics_publish_ = now;
    metrics_->Publish(engine_.state());
  }
  if (!force && now - last_status_write_ < std::max<std::chrono::steady_clock::duration>(
                                               options_.status_interval, status_pause_)) {
    return;
  }
  last_status_write_ = now;
  status_pause_ = {};
  // Nothing a queue status shows changed since the last pass: nothing to build.
  if (!force && !queues_dirty_) return;
  queues_dirty_ = false;
  const engine::EngineState& s = engine_.state();
  // The statuses that changed, written in one transaction below.
  std::vector<store::BatchWrite> writes;
  std::vector<std::pair<std::string, Json>> written;  // id -> status, per write
  auto write = [&](const std::string& resource, const std::string& ns, const std::string& name,
                   const std::string& kind, Json status) {
    const std::string id = resource + "/" + ns + "/" + name;
    auto it = queue_status_.find(id);
    if (it != queue_status_.end() && it->second == status) return;
    Json obj = {{"apiVersion", api::kKueueV1beta2},
                {"kind", kind},
                {"metadata", {{"name", name}}},
                {"status", status}};
    if (!ns.empty()) obj["metadata"]["namespace"] = ns;
    store::BatchWrite bw;
    bw.op = store::BatchWrite::Op::kUpdate;
    bw.resource = resource;
    bw.object = std::move(obj);
    bw.update.status_only = true;
    writes.push_back(std::move(bw));
    written.emplace_back(id, std::move(status));
  };
  const std::string ts = FormatRfc3339(clock_.Now());
  for (const auto& entry : s.tree.cluster_queues()) {
    // Not a structured binding: the lambda below captures cq (clang 14
    // cannot capture bindings).
    const std::string& name = entry.first;
    const auto& cq = entry.second;
    int64_t admitted = 0;
    for (const auto* wl : cq->admitted()) admitted += wl->state == engine::WorkloadState::kAdmitted;
    // Usage per flavor and resource, as flavorsReservation / flavorsUsage.
    std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>> res, used;
    for (const auto* wl : cq->admitted()) {
      for (const auto& [fr, v] : wl->usage) {
        const auto& n = s.frs.Name(fr);
        res[n.flavor][n.resource].first += v;
        if (wl->state == engine::WorkloadState::kAdmitted) used[n.flavor][n.resource].first += v;
      }
    }
    auto flavors_json =
        [&](std::map<std::string, std::map<std::string, std::pair<int64_t, int64_t>>>& m) {
          Json arr = Json::array();
          for (const auto& g : cq->resource_groups()) {
            for (const auto& f : g.flavors) {
              Json resources = Json::array();
              for (size_t i = 0; i < g.covered.size(); ++i) {
                int64_t total = m[f.name][g.covered[i]].first;
                int64_t borrowed = std::max<int64_t>(0, total - cq->quota(f.frs[i]).nominal);
                bool bin = api::IsBinaryResource(g.covered[i]);
                resources.push_back(
                    {{"name", g.covered[i]},
                     {"total", api::Quantity::FromMilli(total).ToString(bin)},
                     {"borrowed", api::Quantity::FromMilli(borrowed).ToString(bin)}});
              }
              arr.push_back({{"name", f.name}, {"resources", resources}});
            }
          }
          return arr;
        };
    Json active = cq->active() ? Json{{"type", "Active"},
                                      {"status", "True"},
                                      {"reason", "Ready"},
                                      {"message", "Can admit new workloads"}}
                               : Json{{"type", "Active"},
                                      {"status", "False"},
                                      {"reason", cq->inactive_reason()},
                                      {"message", cq->inactive_message()}};
    active["lastTransitionTime"] = ActiveSince("clusterqueues.kueue.x-k8s.io//" + name, active, ts);
    Json status = {{"pendingWorkloads", cq->pending().size()},
                   {"reservingWorkloads", cq->admitted().size()},
                   {"admittedWorkloads", admitted},
                   {"flavorsReservation", flavors_json(res)},
                   {"flavorsUsage", flavors_json(used)},
                   {"conditions", Json::array({active})}};
    write("clusterqueues.kueue.x-k8s.io", "", name, "ClusterQueue", std::move(status));
  }
  // LocalQueues: counts of their workloads.
  std::map<std::string, std::array<int64_t, 3>> counts;  // pending, reserving, admitted
  for (const auto& [key, wl] : s.workloads) {
    auto& c = counts[wl->ns() + "/" + wl->object.spec.queue_name];
    if (wl->state == engine::WorkloadState::kPending && wl->queued_in) c[0]++;
    if (wl->holds_quota()) c[1]++;
    if (wl->state == engine::WorkloadState::kAdmitted) c[2]++;
  }
  for (const auto& [key, lq] : s.local_queues) {
    const auto& c = counts[key];
    const engine::ClusterQueueNode* cq = s.tree.FindClusterQueue(lq.cluster_queue);
    Json active;
    if (lq.stop_policy != api::StopPolicy::kNone) {
      active = {{"type", "Active"},
                {"status", "False"},
                {"reason", "Stopped"},
                {"message", "LocalQueue is stopped"}};
    } else if (cq == nullptr) {
      active = {{"type", "Active"},
                {"status", "False"},
                {"reason", "ClusterQueueDoesNotExist"},
                {"message", "Can't submit new workloads to clusterQueue"}};
    } else if (!cq->active()) {
      active = {{"type", "Active"},
                {"status", "False"},
                {"reason", "ClusterQueueIsInactive"},
                {"message", "Can't submit new workloads to clusterQueue"}};
    } else {
      active = {{"type", "Active"},
                {"status", "True"},
                {"reason", "Ready"},
                {"message", "Can submit new workloads to localQueue"}};
    }
    active["lastTransitionTime"] = ActiveSince("localqueues.kueue.x-k8s.io/" + key, active, ts);
    Json status = {{"pendingWorkloads", c[0]},
                   {"reservingWorkloads", c[1]},
                   {"admittedWorkloads", c[2]},
                   {"conditions", Json::array({active})}};
    // Admission fair sharing: the usage history, so that it survives a
    // restart (the engine seeds from it), and for users to read.
    if (const engine::AfsLedger::Entry* e = s.afs.Find(key);
        e != nullptr && s.config.admission_fair_sharing) {
      Json consumed = Json::object();
      for (const auto& [res, v] : e->consumed) {
        consumed[res] =
            api::Quantity::FromMilli(std::llround(v * 1000)).ToString(api::IsBinaryResource(res));
      }
      status["fairSharing"] = {
          {"weightedShare", 0},
          {"admissionFairSharingStatus",
           {{"consumedResources", consumed}, {"lastUpdate", FormatRfc3339(e->last_update)}}}};
    }
    write("localqueues.kueue.x-k8s.io", lq.metadata.namespace_, lq.metadata.name, "LocalQueue",
          std::move(status));
  }
  if (writes.empty()) return;
  status_pause_ = std::chrono::microseconds(static_cast<int64_t>(writes.size()) * 1000000 /
                                            std::max(1, options_.queue_status_writes_per_second));
  std::vector<std::string> resources;
  resources.reserve(writes.size());
  for (const store::BatchWrite& w : writes) resources.push_back(w.resource);
  std::vector<Result<Json>> results = store_.WriteBatch(std::move(writes));
  for (size_t i = 0; i < results.size() && i < written.size(); ++i) {
    if (!results[i].ok()) {
      // Try again on the next pass (a queue deleted meanwhile is gone from the
      // engine too).
      if (results[i].status().code() != StatusCode::kNotFound) queues_dirty_ = true;
      continue;
    }
    NoteOwnWrite(resources[i], *results[i]);
    queue_status_[written[i].first] = std::move(written[i].second);
  }
}

struct Controller::PendingQuery {
  std::string cq, ns, lq;  // cq set: a ClusterQueue query; else ns/lq
  std::promise<Result<std::vector<server::PendingWorkloadInfo>>> answer;
};

Result<std::vector<server::PendingWorkloadInfo>> Controller::ForClusterQueue(
    const std::string& cq) {
  return Ask(cq, "", "");
}

Result<std::vector<server::PendingWorkloadInfo>> Controller::ForLocalQueue(const std::string& ns,
                                                                           const std::string& lq) {
  return Ask("", ns, lq);
}

Result<std::vector<server::PendingWorkloadInfo>> Controller::Ask(std::string cq, std::string ns,
                                                                 std::string lq) {
  auto q = std::make_shared<PendingQuery>();
  q->cq = std::move(cq);
  q->ns = std::move(ns);
  q->lq = std::move(lq);
  auto future = q->answer.get_future();
  {
    std::lock_guard<std::mutex> lock(queries_mu_);
    queries_.push_back(q);
  }
  if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    return Status::Unavailable("the scheduler did not answer within 10s; try again");
  }
  return future.get();
}

void Controller::AnswerQueries() {
  std::vector<std::shared_ptr<PendingQuery>> queries;
  {
    std::lock_guard<std::mutex> lock(queries_mu_);
    queries.swap(queries_);
  }
  if (queries.empty()) return;
  const engine::EngineState& s = engine_.state();
  for (const auto& q : queries) {
    std::string cq_name = q->cq;
    if (cq_name.empty()) {
      auto lq = s.local_queues.find(q->ns + "/" + q->lq);
      if (lq == s.local_queues.end()) {
        q->answer.set_value(Status::NotFound("localqueues.kueue.x-k8s.io \"" + q->lq +
                                             "\" not found in namespace \"" + q->ns + "\""));
        continue;
      }
      cq_name = lq->second.cluster_queue;
    }
    const engine::ClusterQueueNode* cq = s.tree.FindClusterQueue(cq_name);
    if (cq == nullptr) {
      q->answer.set_value(
          Status::NotFound("clusterqueues.kueue.x-k8s.io \"" + cq_name + "\" not found"));
      continue;
    }
    std::vector<server::PendingWorkloadInfo> out;
    std::map<std::string, int64_t> per_lq;
    int64_t pos = 0;
    for (const engine::WorkloadInfo* wl : cq->pending().Ordered()) {
      server::PendingWorkloadInfo info;
      info.ns = wl->ns();
      info.name = wl->name();
      info.local_queue = wl->object.spec.queue_name;
      if (wl->object.metadata.creation_timestamp) {
        info.creation_timestamp = FormatRfc3339(*wl->object.metadata.creation_timestamp);
      }
      info.priority = static_cast<int32_t>(wl->priority);
      info.position_in_cluster_queue = pos++;
      info.position_in_local_queue = per_lq[info.ns + "/" + info.local_queue]++;
      if (const engine::Reservation& r = cq->reservation(); r.holder == wl->key && r.start) {
        info.expected_start = FormatRfc3339(*r.start);
      }
      if (!q->cq.empty() || (info.ns == q->ns && info.local_queue == q->lq)) {
        out.push_back(std::move(info));
      }
    }
    q->answer.set_value(std::move(out));
  }
}

bool Controller::FitsMachine(const nlohmann::json& workload) {
  if (!options_.machine) return true;
  const std::string key = ObjectKey(workload);
  ResourceAmounts need;
  const Json spec = workload.value("spec", Json::object());
  for (const auto& ps : spec.value("podSets", Json::array())) {
    const Json pod = {{"spec", ps.value("template", Json::object()).value("spec", Json::object())}};
    auto per_pod = PodRequests(pod);
    if (!per_pod.ok()) return true;  // the engine reports bad quantities
    const int64_t count = ps.value("count", int64_t{1});
    for (const auto& [name, v] : *per_pod) {
      need[name] = api::Quantity::Add(need[name], api::Quantity::Mul(v, count));
    }
  }
  const std::string shortfall = FirstShortfall(need, *options_.machine);
  if (shortfall.empty()) {
    unfit_.erase(key);
    return true;
  }
  const std::string message =
      "couldn't assign flavors to pod set: the workload cannot run on this "
      "machine even when it "
      "is empty: it needs " +
      shortfall;
  (void)engine_.Delete("Workload", MetaString(workload, "namespace"), MetaString(workload, "name"));
  if (unfit_[key] == message) return false;
  unfit_[key] = message;
  Json status = workload.value("status", Json::object());
  Json conditions = Json::array();
  for (const auto& c : status.value("conditions", Json::array())) {
    if (c.value("type", "") != api::kQuotaReserved) conditions.push_back(c);
  }
  conditions.push_back({{"type", api::kQuotaReserved},
                        {"status", "False"},
                        {"reason", "Pending"},
                        {"message", message},
                        {"lastTransitionTime", FormatRfc3339(clock_.Now())}});
  status["conditions"] = conditions;
  Json patch = {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "Workload"},
      {"metadata",
       {{"name", MetaString(workload, "name")}, {"namespace", MetaString(workload, "namespace")}}},
      {"status", status}};
  // Over the version read: a spec change made just before this write (say,
  // smaller requests) fails it with a conflict instead of being taken for an
  // echo of it, and that newer version is decided again when its event comes.
  if (const std::string rv = MetaString(workload, "resourceVersion"); !rv.empty()) {
    patch["metadata"]["resourceVersion"] = rv;
  }
  store::UpdateOptions uo;
  uo.status_only = true;
  auto stored = store_.Update(kWorkloads, patch, uo);
  if (stored.ok()) {
    NoteOwnWrite(kWorkloads, *stored);
    workload_rv_[key] = MetaString(*stored, "resourceVersion");
  } else {
    unfit_.erase(key);  // not written: the next version writes it again
  }
  RecordEvent(workload, "Warning", "Pending", message);
  return false;
}

Result<nlohmann::json> Controller::WriteInactive(const std::string& key) {
  const size_t slash = key.find('/');
  for (int attempt = 0;; ++attempt) {  // over the version read; again on conflict
    KUOTA_ASSIGN_OR_RETURN(nlohmann::json stored,
                           store_.Get(kWorkloads, key.substr(0, slash), key.substr(slash + 1)));
    const Json& spec = stored["spec"];
    if (spec.is_object() && spec.value("active", true) == false) return stored;
    stored["spec"]["active"] = false;
    Result<Json> written = store_.Update(kWorkloads, std::move(stored));
    if (written.ok() || written.status().code() != StatusCode::kConflict || attempt == 2) {
      return written;
    }
  }
}

void Controller::PersistDeactivations() {
  for (const std::string& key : engine_.TakeDeactivated()) {
    // Its status (evicted, the reason) is written first, then the spec.
    if (status_batch_keys_.count(key) != 0) FlushStatuses();
    Result<Json> written = WriteInactive(key);
    if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
      std::fprintf(stderr, "kuotad: deactivating workload %s: %s\n", key.c_str(),
                   written.status().message().c_str());
    }
  }
}

void Controller::CheckMaximumExecutionTime() {
  const Time now = clock_.Now();
  std::vector<std::pair<std::string, int32_t>> exceeded;
  // Only quota holders can be admitted: their ClusterQueues' lists, not every
  // workload, on each turn of the loop.
  for (const auto& [name, cq] : engine_.tree().cluster_queues()) {
    for (const engine::WorkloadInfo* wl : cq->admitted()) {
      if (wl->state != engine::WorkloadState::kAdmitted) continue;
      const auto& limit = wl->object.spec.maximum_execution_time_seconds;
      if (!limit || *limit <= 0) continue;
      const api::Condition* ad = api::FindCondition(wl->object.status.conditions, api::kAdmitted);
      if (ad == nullptr || !ad->last_transition_time) continue;
      if ((now - *ad->last_transition_time).ms >= int64_t{*limit} * 1000) {
        exceeded.emplace_back(wl->key, *limit);
      }
    }
  }
  for (const auto& [key, limit] : exceeded) {
    // Kueue's workload controller: the workload is deactivated (spec.active
    // false), which evicts it and stops its job.
    Result<Json> written = WriteInactive(key);
    if (!written.ok()) continue;  // a newer version comes as an event; checked again then
    RecordEvent((*written), "Warning", "MaximumExecutionTimeExceeded",
                "The maximum execution time (" + std::to_string(limit) + "s) exceeded");
    ApplyObject(kWorkloads, *written);
  }
}

void Controller::CheckPodsReady() {
  const auto& cfg = options_.config.wait_for_pods_ready;
  if (!cfg.enable) return;
  const Time now = clock_.Now();
  std::vector<std::string> timed_out;
  for (const engine::WorkloadInfo* wl : engine_.Workloads()) {
    if (wl->state != engine::WorkloadState::kAdmitted) continue;
    const auto& conds = wl->object.status.conditions;
    if (api::IsConditionTrue(conds, api::kPodsReady)) continue;
    const api::Condition* ad = api::FindCondition(conds, api::kAdmitted);
    if (ad == nullptr || !ad->last_transition_time) continue;
    if (now - *ad->last_transition_time >= cfg.timeout) timed_out.push_back(wl->key);
  }
  for (const auto& key : timed_out) {
    const std::string message = "Exceeded the PodsReady timeout " + key;
    if (!engine_.EvictWorkload(key, "PodsReadyTimeout", message, /*backoff=*/true).ok()) continue;
    if (const engine::WorkloadInfo* wl = engine_.FindWorkload(key)) {
      RecordEvent(WorkloadRef(*wl), "Normal", "EvictedDueToPodsReadyTimeout", message);
    }
    SyncWorkloadStatus(key);
  }
}

}  // namespace kuota::control
