#include "control/multikueue_controller.h"

#include <algorithm>
#include <cstdio>

#include "base/time.h"
#include "control/events.h"
#include "control/meta_string.h"
#include "control/multikueue_objects.h"
#include "control/object_errors.h"
#include "jobs/job_fields.h"
#include "jobs/leader_worker_set.h"
#include "jobs/managed_by.h"
#include "jobs/registry.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

constexpr const char* kMkWorkloads = "workloads.kueue.x-k8s.io";
constexpr const char* kMkChecks = "admissionchecks.kueue.x-k8s.io";
constexpr const char* kMkConfigs = "multikueueconfigs.kueue.x-k8s.io";
constexpr const char* kMkQueues = "clusterqueues.kueue.x-k8s.io";
constexpr const char* kMkLocalQueues = "localqueues.kueue.x-k8s.io";
constexpr const char* kMkPods = "pods";
constexpr const char* kMkLeaderWorkerSets = "leaderworkersets.leaderworkerset.x-k8s.io";
constexpr const char* kMkComponent = "kueue-multikueue";
constexpr const char* kIncremental = "kueue.x-k8s.io/multikueue-dispatcher-incremental";
constexpr const char* kDispatched = "kueue_multikueue_workloads_dispatched_total";
constexpr const char* kAdmitted = "kueue_multikueue_workloads_admitted_total";

std::string MkKey(const std::string& ns, const std::string& name) { return ns + "/" + name; }

constexpr const char* kComponentIndexAnnotation = "kueue.x-k8s.io/component-workload-index";
constexpr const char* kJobOwnerGvkAnnotation = "kueue.x-k8s.io/job-owner-gvk";
constexpr const char* kJobOwnerNameAnnotation = "kueue.x-k8s.io/job-owner-name";
constexpr const char* kLwsOwnerGvk = "leaderworkerset.x-k8s.io/v1, Kind=LeaderWorkerSet";

// Kueue's multi-workload adapters (LeaderWorkerSet): one of several
// Workloads of one job, numbered by the component index (-1: none).
int64_t ComponentIndex(const Json& wl) {
  if (jobs::MetaMapValue(wl, "annotations", kJobOwnerGvkAnnotation) != kLwsOwnerGvk) return -1;
  const std::string index = jobs::MetaMapValue(wl, "annotations", kComponentIndexAnnotation);
  char* end = nullptr;
  const long long n = std::strtoll(index.c_str(), &end, 10);
  return index.empty() || *end != '\0' || n < 0 ? -1 : n;
}

// The admission check names a stored (v1beta2) ClusterQueue lists.
std::vector<std::string> CheckNames(const Json& cq) {
  std::vector<std::string> out;
  for (const Json& c : server::FieldValue(cq, {"spec", "admissionChecks"})) {
    if (c.is_string()) out.push_back(c.get<std::string>());
  }
  for (const Json& rule :
       server::FieldValue(cq, {"spec", "admissionChecksStrategy", "admissionChecks"})) {
    if (rule.is_object() && rule.contains("name") && rule["name"].is_string()) {
      out.push_back(rule["name"].get<std::string>());
    }
  }
  return out;
}

std::vector<std::string> NominatedOf(const Json& wl) {
  std::vector<std::string> out;
  for (const Json& c : server::FieldValue(wl, {"status", "nominatedClusterNames"})) {
    if (c.is_string()) out.push_back(c.get<std::string>());
  }
  return out;
}

std::string FormatList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

}  // namespace

MultiKueueController::MultiKueueController(store::ObjectStore& store, const Clock& clock,
                                           RemoteClusterFactory factory, MultiKueueOptions options)
    : store_(store),
      clock_(clock),
      options_(std::move(options)),
      workers_(store, clock, std::move(factory), options_.controller_namespace) {
  if (options_.metrics != nullptr) {
    options_.metrics->DeclareCounter(kDispatched,
                                     "The total number of remote workloads created by the "
                                     "MultiKueue manager on a worker cluster, per "
                                     "'cluster_queue' and 'cluster'.",
                                     {"cluster_queue", "cluster"});
    options_.metrics->DeclareCounter(kAdmitted,
                                     "The total number of workloads admitted on a worker cluster "
                                     "and selected by the MultiKueue manager, per "
                                     "'cluster_queue' and 'cluster'.",
                                     {"cluster_queue", "cluster"});
  }
}

MultiKueueController::~MultiKueueController() { Stop(); }

void MultiKueueController::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void MultiKueueController::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MultiKueueController::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    bool busy = true;
    std::string err = CatchAll([&] { busy = RunOnce(); });
    if (!err.empty()) std::fprintf(stderr, "kuotad: multikueue: %s\n", err.c_str());
    lock.lock();
    cv_.wait_for(lock, busy ? options_.tick : options_.tick * options_.idle_ticks,
                 [this] { return stop_; });
  }
}

bool MultiKueueController::ReadChecks(std::map<std::string, CheckUse>& by_cluster_queue) {
  Result<store::ListResult> checks = store_.List(kMkChecks, {});
  if (!checks.ok()) return false;
  std::map<std::string, std::vector<std::string>> clusters_of;  // check -> its config's clusters
  for (const Json& ac : checks->items) {
    if (server::FieldValue(ac, {"spec", "controllerName"}) != jobs::kMultiKueueControllerName)
      continue;
    const std::string name = MetaString(ac, "name");
    // Kueue's MultiKueue AdmissionCheck reconciler: Active unless its
    // parameters cannot be loaded or none of its clusters is usable.
    std::string status = "True", reason = "Active", message = "The admission check is active";
    const Json& params = server::FieldValue(ac, {"spec", "parameters"});
    Result<Json> config = Status::NotFound("");
    if (!params.is_object()) {
      config = Status::Invalid("missing parameters");
    } else if (params.value("apiGroup", "") != "kueue.x-k8s.io" ||
               params.value("kind", "") != "MultiKueueConfig") {
      config = Status::Invalid("wrong parameters reference: " + params.dump());
    } else {
      config = store_.Get(kMkConfigs, "", params.value("name", ""));
      if (!config.ok() && config.status().code() == StatusCode::kNotFound) {
        config = Status::NotFound("multikueueconfigs.kueue.x-k8s.io \"" + params.value("name", "") +
                                  "\" not found");
      }
    }
    if (!config.ok()) {
      status = "False";
      reason = "BadConfig";
      message = "Cannot load the AdmissionChecks parameters: " + config.status().message();
    } else {
      std::vector<std::string>& clusters = clusters_of[name];
      std::vector<std::string> missing, inactive;
      for (const Json& c : server::FieldValue(*config, {"spec", "clusters"})) {
        if (!c.is_string()) continue;
        const std::string cluster = c.get<std::string>();
        clusters.push_back(cluster);
        const WorkerCluster* w = workers_.Find(cluster);
        if (w == nullptr) {
          missing.push_back(cluster);
        } else if (!w->active) {
          inactive.push_back(cluster);
        }
      }
      const size_t unusable = missing.size() + inactive.size();
      if (unusable > 0) {
        if (unusable < clusters.size()) {
          reason = "SomeActiveClusters";
        } else {
          status = "False";
          reason = "NoUsableClusters";
        }
        message.clear();
        if (!missing.empty()) message = "Missing clusters: " + FormatList(missing);
        if (!inactive.empty()) {
          message += (message.empty() ? "" : ", ") + std::string("Inactive clusters: ") +
                     FormatList(inactive);
        }
      }
    }
    bool same = false;
    for (const Json& c : server::FieldValue(ac, {"status", "conditions"})) {
      if (c.is_object() && c.value("type", "") == "Active") {
        same = c.value("status", "") == status && c.value("reason", "") == reason &&
               c.value("message", "") == message;
      }
    }
    if (!same) {
      Json update = ac;
      Json conditions = Json::array();
      for (const Json& c : server::FieldValue(ac, {"status", "conditions"})) {
        if (c.is_object() && c.value("type", "") != "Active") conditions.push_back(c);
      }
      conditions.push_back(
          {{"type", "Active"},
           {"status", status},
           {"reason", reason},
           {"message", message},
           {"observedGeneration", server::FieldValue(ac, {"metadata", "generation"})},
           {"lastTransitionTime", FormatRfc3339(clock_.Now())}});
      update["status"]["conditions"] = std::move(conditions);
      store::UpdateOptions o;
      o.status_only = true;
      (void)store_.Update(kMkChecks, std::move(update), o);
    }
  }
  if (clusters_of.empty()) return false;
  Result<store::ListResult> queues = store_.List(kMkQueues, {});
  if (!queues.ok()) return true;
  for (const Json& cq : queues->items) {
    for (const std::string& check : CheckNames(cq)) {
      auto it = clusters_of.find(check);
      if (it == clusters_of.end()) continue;
      by_cluster_queue[MetaString(cq, "name")] = CheckUse{check, it->second};
      break;  // Kueue allows one MultiKueue check per ClusterQueue
    }
  }
  return true;
}

const std::map<std::string, Json>* MultiKueueController::RemoteObjects(const std::string& cluster,
                                                                       RemoteCluster& remote,
                                                                       const std::string& resource,
                                                                       const std::string& ns) {
  const std::string key = cluster + "|" + resource + "|" + ns;
  auto it = snapshot_.find(key);
  if (it != snapshot_.end()) return it->second ? &*it->second : nullptr;
  store::ListOptions o;
  o.ns = ns;
  o.label_selector = std::string(kMultiKueueOriginLabel) + "=" + options_.settings.origin;
  Result<store::ListResult> listed = remote.Store().List(resource, o);
  std::optional<std::map<std::string, Json>>& slot = snapshot_[key];
  if (!listed.ok()) {
    workers_.ReportFailure(cluster, listed.status());
    return nullptr;
  }
  slot.emplace();
  for (Json& item : listed->items) {
    const std::string name = MetaString(item, "name");
    (*slot)[name] = std::move(item);
  }
  return &*slot;
}

bool MultiKueueController::RunOnce() {
  snapshot_.clear();
  workers_.Refresh(options_.probe_every);
  std::map<std::string, CheckUse> uses;
  const bool any = ReadChecks(uses);
  if (!any && dispatched_.empty()) return !workers_.empty();
  Result<store::ListResult> workloads = store_.List(kMkWorkloads, {});
  if (!workloads.ok()) return true;
  components_.clear();
  for (const Json& wl : workloads->items) {
    if (ComponentIndex(wl) < 0) continue;
    if (std::optional<OwnerJob> owner = OwnerJobOf(wl)) components_[owner->uid].push_back(&wl);
  }
  std::set<std::string> seen;
  for (const Json& wl : workloads->items) {
    const std::string key = MkKey(MetaString(wl, "namespace"), MetaString(wl, "name"));
    seen.insert(key);
    const std::string cq =
        server::FieldValue(wl, {"status", "admission", "clusterQueue"}).is_string()
            ? server::FieldValue(wl, {"status", "admission", "clusterQueue"}).get<std::string>()
            : "";
    auto use = uses.find(cq);
    if (use == uses.end() && dispatched_.count(key) == 0 &&
        server::FieldValue(wl, {"status", "clusterName"}).is_null() &&
        server::FieldValue(wl, {"status", "nominatedClusterNames"}).is_null()) {
      continue;
    }
    SyncWorkload(wl, use == uses.end() ? nullptr : &use->second);
  }
  components_.clear();
  // Gone here: gone from the workers too (deleting a job on the manager
  // deletes it on its worker).
  for (auto it = dispatched_.begin(); it != dispatched_.end();) {
    if (seen.count(it->first) != 0) {
      ++it;
      continue;
    }
    const size_t slash = it->first.find('/');
    const bool all_gone =
        RemoveRemotes(it->first.substr(0, slash), it->first.substr(slash + 1), it->second);
    it = all_gone ? dispatched_.erase(it) : std::next(it);
  }
  const Time now = clock_.Now();
  if (options_.settings.gc_interval.ms > 0 &&
      (!last_gc_ || now - *last_gc_ >= options_.settings.gc_interval)) {
    last_gc_ = now;
    CollectGarbage(uses);
  }
  return true;
}

std::string MultiKueueController::CannotDispatch(const Json& wl) {
  if (!OwnerPodsOf(wl).empty()) return "";  // plain pods: Kueue's pod adapter
  std::optional<OwnerJob> owner = OwnerJobOf(wl);
  // Kueue's LeaderWorkerSet adapter: it has no managedBy, every set goes.
  if (owner && ComponentIndex(wl) >= 0) return "";
  if (!owner || !jobs::ManagedByPointer(*owner->kind)) {
    for (const Json& ref : server::FieldValue(wl, {"metadata", "ownerReferences"})) {
      if (!ref.is_object() || !ref.value("controller", false)) continue;
      // Go's schema.GroupVersionKind.String().
      std::string api = ref.value("apiVersion", "");
      if (api.find('/') == std::string::npos) api = "/" + api;
      return "No multikueue adapter found for owner kind \"" + api +
             ", Kind=" + ref.value("kind", "") + "\"";
    }
    return "No multikueue adapter found";
  }
  Result<Json> job = store_.Get(owner->kind->Resource(), MetaString(wl, "namespace"), owner->name);
  if (!job.ok()) return "";  // gone or unreadable now: decided on the next pass
  const std::string managed_by = jobs::ManagedBy(*owner->kind, *job);
  if (managed_by != jobs::kMultiKueueControllerName) {
    std::string field = jobs::ManagedByPointer(*owner->kind)->to_string().substr(1);
    std::replace(field.begin(), field.end(), '/', '.');
    return "The owner is not managed by Kueue: Expecting " + field + " to be \"" +
           jobs::kMultiKueueControllerName + "\" not \"" + managed_by + "\"";
  }
  return "";
}

void MultiKueueController::SyncWorkload(const Json& wl, const CheckUse* use) {
  const std::string ns = MetaString(wl, "namespace"), name = MetaString(wl, "name");
  const std::string key = MkKey(ns, name);
  const bool holds = server::ConditionIsTrue(wl, "QuotaReserved");
  const bool finished = server::ConditionIsTrue(wl, "Finished");
  const bool deleting = !MetaString(wl, "deletionTimestamp").empty();
  if (use == nullptr || !holds || finished || deleting) {
    // Kueue: the copies go when the workload finished or lost its quota.
    if (auto d = dispatched_.find(key); d != dispatched_.end()) {
      if (RemoveRemotes(ns, name, d->second)) dispatched_.erase(d);
    }
    const bool has_names = !server::FieldValue(wl, {"status", "clusterName"}).is_null() ||
                           !server::FieldValue(wl, {"status", "nominatedClusterNames"}).is_null();
    if (!holds && !finished && !deleting && has_names) {
      (void)WriteCheck(wl, "", "", "", std::string(), std::vector<std::string>{});
    }
    return;
  }
  const Json* entry = CheckEntry(wl, use->check);
  const std::string state = entry != nullptr ? entry->value("state", "Pending") : "Pending";
  if (state == "Retry" || state == "Rejected") return;  // the engine evicts or deactivates
  // Kueue dispatches only jobs whose kind has a MultiKueue adapter and that
  // MultiKueue manages (else the manager would run them too).
  if (std::string why = CannotDispatch(wl); !why.empty()) {
    (void)WriteCheck(wl, use->check, "Rejected", why, std::nullopt, std::nullopt);
    return;
  }
  Dispatch& d = dispatched_[key];
  const std::string uid = MetaString(wl, "uid");
  std::map<std::string, Json> remotes;
  std::set<std::string> unreachable;
  for (const std::string& cluster : use->clusters) {
    RemoteCluster* remote = workers_.Active(cluster);
    if (remote == nullptr) {
      unreachable.insert(cluster);
      continue;
    }
    const std::map<std::string, Json>* there = RemoteObjects(cluster, *remote, kMkWorkloads, ns);
    if (there == nullptr) {
      unreachable.insert(cluster);
      continue;
    }
    auto found = there->find(name);
    if (found == there->end()) continue;
    const Json& got = found->second;
    const Json& annotations = server::FieldValue(got, {"metadata", "annotations"});
    if (!annotations.is_object() || annotations.value(kMultiKueueOriginUidAnnotation, "") != uid) {
      RemoveRemote(*remote, ns, name);  // a copy of an older Workload of that name
      continue;
    }
    remotes[cluster] = got;
    d.clusters.insert(cluster);
  }
  // A worker finished it: its job's final status comes back, which finishes
  // the manager's job and so its Workload.
  for (const auto& [cluster, remote_wl] : remotes) {
    if (server::ConditionIsTrue(remote_wl, "Finished")) {
      if (RemoteCluster* remote = workers_.Active(cluster)) SyncJob(*remote, wl, cluster);
      return;
    }
  }
  std::string winner;
  for (const std::string& cluster : use->clusters) {
    auto it = remotes.find(cluster);
    if (it != remotes.end() && server::ConditionIsTrue(it->second, "Admitted")) {
      winner = cluster;
      break;
    }
  }
  if (!winner.empty()) {
    for (const auto& [cluster, remote_wl] : remotes) {
      if (cluster == winner) continue;
      if (RemoteCluster* remote = workers_.Active(cluster)) RemoveRemote(*remote, ns, name);
      d.clusters.erase(cluster);
    }
    SyncJob(*workers_.Active(winner), wl, winner);
    const Json& cn = server::FieldValue(wl, {"status", "clusterName"});
    const std::string current = cn.is_string() ? cn.get<std::string>() : "";
    if (state == "Ready" && current == winner) return;
    // Kueue's rules: clusterName is set to one of the nominated clusters,
    // and never changed once set (it may be cleared).
    const std::vector<std::string> nominated_now = NominatedOf(wl);
    if (current != winner &&
        (!current.empty() ||
         std::find(nominated_now.begin(), nominated_now.end(), winner) == nominated_now.end())) {
      (void)WriteCheck(wl, use->check, state, entry != nullptr ? entry->value("message", "") : "",
                       std::string(), std::vector<std::string>{winner});
      return;  // the next pass sets it Ready over this nomination
    }
    const std::string message = "The workload was admitted on \"" + winner + "\"";
    if (WriteCheck(wl, use->check, "Ready", message, winner, std::vector<std::string>{})) {
      RecordEvent(store_, clock_, wl, "Normal", "MultiKueue", message, kMkComponent);
      if (options_.metrics != nullptr) {
        options_.metrics->Add(
            kAdmitted,
            {server::FieldValue(wl, {"status", "admission", "clusterQueue"}).get<std::string>(),
             winner});
      }
    }
    return;
  }
  if (state == "Ready") {
    const Json& cn = server::FieldValue(wl, {"status", "clusterName"});
    const std::string admitting = cn.is_string() ? cn.get<std::string>() : "";
    if (!admitting.empty() && unreachable.count(admitting) != 0) {
      const WorkerCluster* w = workers_.Find(admitting);
      if (w != nullptr && w->lost_since &&
          clock_.Now() - *w->lost_since < options_.settings.worker_lost_timeout) {
        return;  // it may come back: Kueue waits workerLostTimeout
      }
      if (WriteCheck(wl, use->check, "Retry", "Admitting remote lost", std::nullopt,
                     std::nullopt)) {
        RecordEvent(store_, clock_, wl, "Warning", "MultiKueue",
                    "Worker cluster \"" + admitting + "\" lost: the workload is dispatched again",
                    kMkComponent);
      }
      return;
    }
    (void)WriteCheck(wl, use->check, "Retry", "Admitting remote no longer exists", std::nullopt,
                     std::nullopt);
    return;
  }
  std::vector<std::string> nominated;
  if (ComponentIndex(wl) >= 0) {
    std::optional<std::string> follow;
    if (!ComponentMayGo(wl, &follow)) return;
    if (follow && workers_.Active(*follow) == nullptr) return;  // it waits for that worker
    nominated = follow ? std::vector<std::string>{*follow} : Nominate(*use, d);
  } else {
    nominated = Nominate(*use, d);
  }
  const std::string cq =
      server::FieldValue(wl, {"status", "admission", "clusterQueue"}).get<std::string>();
  for (const std::string& cluster : use->clusters) {
    RemoteCluster* remote = workers_.Active(cluster);
    if (remote == nullptr) continue;
    const bool wanted = std::find(nominated.begin(), nominated.end(), cluster) != nominated.end();
    if (wanted && remotes.count(cluster) == 0) {
      Result<Json> created =
          remote->Store().Create(kMkWorkloads, RemoteWorkloadFor(wl, options_.settings.origin));
      if (created.ok()) {
        d.clusters.insert(cluster);
        if (options_.metrics != nullptr) options_.metrics->Add(kDispatched, {cq, cluster});
      } else if (created.status().code() != StatusCode::kAlreadyExists) {
        workers_.ReportFailure(cluster, created.status());
        std::fprintf(stderr, "kuotad: multikueue: creating workload %s on %s: %s\n", key.c_str(),
                     cluster.c_str(), created.status().message().c_str());
      }
    } else if (!wanted && remotes.count(cluster) != 0) {
      RemoveRemote(*remote, ns, name);
      d.clusters.erase(cluster);
    }
  }
  const bool stale_cluster = !server::FieldValue(wl, {"status", "clusterName"}).is_null();
  if (NominatedOf(wl) != nominated || stale_cluster) {
    (void)WriteCheck(wl, use->check, "Pending", entry != nullptr ? entry->value("message", "") : "",
                     stale_cluster ? std::optional<std::string>(std::string()) : std::nullopt,
                     nominated);
  }
}

bool MultiKueueController::ComponentMayGo(const Json& wl, std::optional<std::string>* follow) {
  std::optional<OwnerJob> owner = OwnerJobOf(wl);
  if (!owner) return false;
  Result<Json> job = store_.Get(owner->kind->Resource(), MetaString(wl, "namespace"), owner->name);
  if (!job.ok()) return false;
  auto siblings = components_.find(owner->uid);
  if (siblings == components_.end()) return false;
  // Every group's Workload exists before any is dispatched.
  if (static_cast<int64_t>(siblings->second.size()) < jobs::LeaderWorkerSetKind::Replicas(*job)) {
    return false;
  }
  const std::string name = MetaString(wl, "name");
  const int64_t index = ComponentIndex(wl);
  bool lower = false;
  for (const Json* member : siblings->second) {
    if (MetaString(*member, "name") == name) continue;
    const Json& cn = server::FieldValue(*member, {"status", "clusterName"});
    if (cn.is_string() && !cn.get<std::string>().empty()) {
      if (*follow && **follow != cn.get<std::string>()) {
        std::fprintf(stderr, "kuotad: multikueue: the Workloads of %s %s are on %s and %s\n",
                     owner->kind->Kind().c_str(), owner->name.c_str(), (*follow)->c_str(),
                     cn.get_ref<const std::string&>().c_str());
        return false;
      }
      *follow = cn.get<std::string>();
    }
    const int64_t other = ComponentIndex(*member);
    if (other >= 0 && other < index) lower = true;
  }
  // The others follow the worker one of them went to; until then the
  // lowest-numbered one alone is dispatched.
  return *follow || !lower;
}

std::vector<std::string> MultiKueueController::Nominate(const CheckUse& use, Dispatch& d) {
  std::vector<std::string> active;
  for (const std::string& c : use.clusters) {
    if (workers_.Active(c) != nullptr) active.push_back(c);
  }
  const Time now = clock_.Now();
  if (!d.nominated_at) d.nominated_at = now;
  if (options_.settings.dispatcher_name != kIncremental) return active;
  // Kueue's Incremental dispatcher: a few more clusters each round that
  // passes without an admission, in the config's order.
  const int64_t rounds = options_.incremental_round.ms > 0
                             ? (now - *d.nominated_at).ms / options_.incremental_round.ms
                             : 0;
  const size_t n = std::min(active.size(), static_cast<size_t>(options_.incremental_step) *
                                               static_cast<size_t>(rounds + 1));
  active.resize(n);
  return active;
}

void MultiKueueController::RemoveRemote(RemoteCluster& remote, const std::string& ns,
                                        const std::string& name) {
  store::ObjectStore& rs = remote.Store();
  if (Result<Json> wl = rs.Get(kMkWorkloads, ns, name); wl.ok()) {
    if (std::optional<OwnerJob> owner = OwnerJobOf(*wl)) {
      (void)rs.Delete(owner->kind->Resource(), ns, owner->name);
    }
    // Kueue's LeaderWorkerSet adapter: the worker's copy of the set goes
    // with any of its group Workloads (re-made when one is dispatched again).
    if (ComponentIndex(*wl) >= 0) {
      const std::string set = jobs::MetaMapValue(*wl, "annotations", kJobOwnerNameAnnotation);
      if (!set.empty()) {
        Result<Json> there = rs.Get(kMkLeaderWorkerSets, ns, set);
        if (there.ok() && LabelString(*there, kMultiKueueOriginLabel) == options_.settings.origin) {
          (void)rs.Delete(kMkLeaderWorkerSets, ns, set);
        }
      }
    }
  }
  // A job made before its Workload took it (not yet owned), and pods, are
  // found by their labels.
  std::vector<std::string> resources = {kMkPods};
  for (const auto& k : jobs::JobKinds()) {
    if (jobs::ManagedByPointer(*k)) resources.push_back(k->Resource());
  }
  for (const std::string& resource : resources) {
    store::ListOptions o;
    o.ns = ns;
    o.label_selector = std::string(kPrebuiltWorkloadLabel) + "=" + name + "," +
                       kMultiKueueOriginLabel + "=" + options_.settings.origin;
    Result<store::ListResult> there = rs.List(resource, o);
    if (!there.ok()) continue;
    for (const Json& j : there->items) (void)rs.Delete(resource, ns, MetaString(j, "name"));
  }
  (void)rs.Delete(kMkWorkloads, ns, name);
}

bool MultiKueueController::RemoveRemotes(const std::string& ns, const std::string& name,
                                         Dispatch& d) {
  for (auto it = d.clusters.begin(); it != d.clusters.end();) {
    RemoteCluster* remote = workers_.Active(*it);
    if (remote == nullptr) {
      // Unreachable now; a worker that is gone for good is forgotten.
      it = workers_.Find(*it) == nullptr ? d.clusters.erase(it) : std::next(it);
      continue;
    }
    RemoveRemote(*remote, ns, name);
    it = d.clusters.erase(it);
  }
  return d.clusters.empty();
}

void MultiKueueController::SyncJob(RemoteCluster& remote, const Json& wl,
                                   const std::string& cluster) {
  if (std::vector<std::string> pods = OwnerPodsOf(wl); !pods.empty()) {
    // (Every member of a pod group owns its Workload, a StatefulSet's later
    // ordinals too: Controller::EnsureOwnedByMembers.)
    SyncPods(remote, wl, cluster, pods);
    return;
  }
  std::optional<OwnerJob> owner = OwnerJobOf(wl);
  if (!owner) return;  // a Workload made by hand: no job to run
  const std::string ns = MetaString(wl, "namespace");
  const std::string resource = owner->kind->Resource();
  Result<Json> local = store_.Get(resource, ns, owner->name);
  if (!local.ok()) return;
  store::ObjectStore& rs = remote.Store();
  const std::map<std::string, Json>* objects = RemoteObjects(cluster, remote, resource, ns);
  if (objects == nullptr) return;
  auto found = objects->find(owner->name);
  // Kueue's LeaderWorkerSet adapter: one copy of the set serves every group
  // Workload (so no prebuilt Workload name), and its status is not copied
  // back (LWS has no managedBy: the manager's own controller writes it).
  const bool one_of_several = ComponentIndex(wl) >= 0;
  if (found == objects->end()) {
    Result<Json> created = rs.Create(
        resource, RemoteJobFor(*owner->kind, *local, one_of_several ? "" : MetaString(wl, "name"),
                               options_.settings.origin));
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      std::fprintf(stderr, "kuotad: multikueue: creating %s %s/%s on %s: %s\n",
                   owner->kind->Kind().c_str(), ns.c_str(), owner->name.c_str(), cluster.c_str(),
                   created.status().message().c_str());
    }
    return;
  }
  const Json* there = &found->second;
  if (one_of_several) return;
  if (LabelString(*there, kMultiKueueOriginLabel) != options_.settings.origin ||
      LabelString(*there, kPrebuiltWorkloadLabel) != MetaString(wl, "name")) {
    return;  // not ours: Kueue leaves such an object alone
  }
  // Kueue defers the copy until the manager's job runs (unsuspended), unless
  // the remote one finished.
  bool succeeded = false;
  if (owner->kind->IsSuspended(*local) && !owner->kind->IsFinished(*there, &succeeded)) return;
  const Json& status = server::FieldValue(*there, {"status"});
  if (status.is_null() || server::FieldValue(*local, {"status"}) == status) return;
  Json update = std::move(*local);
  update["status"] = status;
  store::UpdateOptions o;
  o.status_only = true;
  (void)store_.Update(resource, std::move(update), o);
}

void MultiKueueController::SyncPods(RemoteCluster& remote, const Json& wl,
                                    const std::string& cluster,
                                    const std::vector<std::string>& pods) {
  const std::string ns = MetaString(wl, "namespace");
  const std::map<std::string, Json>* there = RemoteObjects(cluster, remote, kMkPods, ns);
  if (there == nullptr) return;
  for (const std::string& name : pods) {
    Result<Json> local = store_.Get(kMkPods, ns, name);
    if (!local.ok()) continue;
    auto found = there->find(name);
    if (found == there->end()) {
      Result<Json> created = remote.Store().Create(
          kMkPods, RemotePodFor(*local, MetaString(wl, "name"), options_.settings.origin));
      if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
        std::fprintf(stderr, "kuotad: multikueue: creating pod %s/%s on %s: %s\n", ns.c_str(),
                     name.c_str(), cluster.c_str(), created.status().message().c_str());
      }
      continue;
    }
    if (LabelString(found->second, kPrebuiltWorkloadLabel) != MetaString(wl, "name")) continue;
    // The manager's pod stays gated; the worker's status is its own.
    const Json& status = server::FieldValue(found->second, {"status"});
    if (status.is_null() || server::FieldValue(*local, {"status"}) == status) continue;
    Json update = std::move(*local);
    update["status"] = status;
    store::UpdateOptions o;
    o.status_only = true;
    (void)store_.Update(kMkPods, std::move(update), o);
  }
}

bool MultiKueueController::WriteCheck(const Json& wl, const std::string& check,
                                      const std::string& state, const std::string& message,
                                      const std::optional<std::string>& cluster_name,
                                      const std::optional<std::vector<std::string>>& nominated) {
  Json update = wl;
  Json& status = update["status"];
  if (!check.empty()) {
    Json& checks = status["admissionChecks"];
    if (!checks.is_array()) checks = Json::array();
    Json* entry = nullptr;
    for (Json& c : checks) {
      if (c.is_object() && c.value("name", "") == check) entry = &c;
    }
    if (entry == nullptr) {
      checks.push_back({{"name", check}});
      entry = &checks.back();
    }
    if (entry->value("state", "") != state) {
      (*entry)["lastTransitionTime"] = FormatRfc3339(clock_.Now());
    } else if (!entry->contains("lastTransitionTime")) {
      (*entry)["lastTransitionTime"] = FormatRfc3339(clock_.Now());
    }
    (*entry)["state"] = state;
    (*entry)["message"] = message;
  }
  if (cluster_name) {
    if (cluster_name->empty()) {
      status.erase("clusterName");
    } else {
      status["clusterName"] = *cluster_name;
    }
  }
  if (nominated) {
    if (nominated->empty()) {
      status.erase("nominatedClusterNames");
    } else {
      status["nominatedClusterNames"] = *nominated;
    }
  }
  store::UpdateOptions o;
  o.status_only = true;
  Result<Json> written = store_.Update(kMkWorkloads, std::move(update), o);
  if (!written.ok() && written.status().code() != StatusCode::kConflict &&
      written.status().code() != StatusCode::kNotFound) {
    std::fprintf(stderr, "kuotad: multikueue: writing the status of %s/%s: %s\n",
                 MetaString(wl, "namespace").c_str(), MetaString(wl, "name").c_str(),
                 written.status().message().c_str());
  }
  return written.ok();
}

void MultiKueueController::CollectGarbage(const std::map<std::string, CheckUse>& uses) {
  // The namespaces whose LocalQueues feed a MultiKueue ClusterQueue: the
  // manager's credential on a worker may be confined to them.
  std::set<std::string> namespaces;
  if (Result<store::ListResult> lqs = store_.List(kMkLocalQueues, {}); lqs.ok()) {
    for (const Json& lq : lqs->items) {
      const Json& cq = server::FieldValue(lq, {"spec", "clusterQueue"});
      if (cq.is_string() && uses.count(cq.get<std::string>()) != 0) {
        namespaces.insert(MetaString(lq, "namespace"));
      }
    }
  }
  for (const auto& [cluster, w] : workers_.all()) {
    RemoteCluster* remote = workers_.Active(cluster);
    if (remote == nullptr) continue;
    for (const std::string& ns : namespaces) {
      store::ListOptions o;
      o.ns = ns;
      o.label_selector = std::string(kMultiKueueOriginLabel) + "=" + options_.settings.origin;
      Result<store::ListResult> there = remote->Store().List(kMkWorkloads, o);
      if (!there.ok()) continue;
      for (const Json& remote_wl : there->items) {
        const std::string name = MetaString(remote_wl, "name");
        Result<Json> here = store_.Get(kMkWorkloads, ns, name);
        const std::string want_uid =
            server::FieldValue(remote_wl,
                               {"metadata", "annotations", kMultiKueueOriginUidAnnotation})
                    .is_string()
                ? server::FieldValue(remote_wl,
                                     {"metadata", "annotations", kMultiKueueOriginUidAnnotation})
                      .get<std::string>()
                : "";
        if (here.ok() && MetaString(*here, "uid") == want_uid) continue;
        if (!here.ok() && here.status().code() != StatusCode::kNotFound) continue;
        std::fprintf(stderr, "kuotad: multikueue: collecting %s/%s on %s (no workload here)\n",
                     ns.c_str(), name.c_str(), cluster.c_str());
        RemoveRemote(*remote, ns, name);
      }
    }
  }
}

bool QueueUsesMultiKueue(store::ObjectStore& store, const std::string& ns,
                         const std::string& local_queue) {
  Result<Json> lq = store.Get(kMkLocalQueues, ns, local_queue);
  if (!lq.ok()) return false;
  const Json& cq_name = server::FieldValue(*lq, {"spec", "clusterQueue"});
  if (!cq_name.is_string()) return false;
  Result<Json> cq = store.Get(kMkQueues, "", cq_name.get<std::string>());
  if (!cq.ok()) return false;
  for (const std::string& check : CheckNames(*cq)) {
    Result<Json> ac = store.Get(kMkChecks, "", check);
    if (ac.ok() &&
        server::FieldValue(*ac, {"spec", "controllerName"}) == jobs::kMultiKueueControllerName) {
      return true;
    }
  }
  return false;
}

}  // namespace kuota::control
