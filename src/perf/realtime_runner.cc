#include "perf/realtime_runner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/policy_names.h"
#include "api/conversion/kind_conversions.h"
#include "base/time.h"
#include "perf/process_usage.h"
#include "perf/store_writer_scrape.h"
#include "perf/workload_watch.h"

namespace kuota::perf {
namespace {

using Json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

constexpr const char* kKueueApi = "/apis/kueue.x-k8s.io/v1beta2";  // the stored version
constexpr size_t kMaxWarnings = 50;

std::string Qty(int64_t milli) { return api::Quantity::FromMilli(milli).ToString(); }

Json ClusterQueueJson(const Plan& plan, const PlannedQueue& q) {
  Json cpu = {{"name", "cpu"}, {"nominalQuota", Qty(q.nominal_milli)}};
  if (q.borrowing_limit_milli) cpu["borrowingLimit"] = Qty(*q.borrowing_limit_milli);
  Json cq = {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "ClusterQueue"},
      {"metadata", {{"name", q.name}, {"labels", {{kClassLabel, q.class_name}}}}},
      {"spec",
       {{"cohortName", q.cohort},
        {"namespaceSelector", Json::object()},
        {"resourceGroups",
         Json::array({{{"coveredResources", Json::array({"cpu"})},
                       {"flavors", Json::array({{{"name", plan.flavor_name},
                                                 {"resources", Json::array({cpu})}}})}}})},
        {"preemption",
         {{"reclaimWithinCohort", std::string(codec::NameOf(codec::kReclaimWithinCohortNames,
                                                            q.reclaim_within_cohort, "Never"))},
          {"withinClusterQueue", std::string(codec::NameOf(codec::kWithinClusterQueueNames,
                                                           q.within_cluster_queue, "Never"))}}},
        {"queueingStrategy", q.queueing_strategy == api::QueueingStrategy::kStrictFIFO
                                 ? "StrictFIFO"
                                 : "BestEffortFIFO"}}}};
  if (q.backfill) cq["metadata"]["annotations"] = {{"kuota.dev/backfill", "true"}};
  return cq;
}

Json WorkloadJson(const Plan& plan, const PlannedWorkload& w) {
  const PlannedQueue& q = plan.queues[w.queue];
  Json container = {{"name", "c"},
                    {"image", "registry.k8s.io/pause:3.9"},
                    {"resources", {{"requests", {{"cpu", Qty(w.request_milli)}}}}}};
  Json pod_set = {
      {"name", "main"},
      {"count", w.pod_count},
      {"template",
       {{"spec", {{"restartPolicy", "Never"}, {"containers", Json::array({container})}}}}}};
  if (w.tas_constraint != TasConstraint::kNone) {
    // As WorkloadObject: balanced runs as preferred (Kueue's TASBalancedPlacement is alpha).
    const std::string& level = plan.topology->levels[w.tas_level].node_label;
    Json tr = {{w.tas_constraint == TasConstraint::kRequired ? "required" : "preferred", level}};
    if (w.slice_size) {
      tr["podSetSliceRequiredTopology"] = level;
      tr["podSetSliceSize"] = *w.slice_size;
    }
    pod_set["topologyRequest"] = std::move(tr);
  }
  Json wl = {
      {"apiVersion", api::kKueueV1beta2},
      {"kind", "Workload"},
      {"metadata",
       {{"name", w.name},
        {"namespace", q.name},
        {"labels",
         {{kClassLabel, plan.workload_classes[w.class_index]},
          {kRunningTimeLabel, std::to_string(w.runtime_ms)}}}}},
      {"spec",
       {{"queueName", q.name}, {"priority", w.priority}, {"podSets", Json::array({pod_set})}}}};
  if (q.backfill) wl["spec"]["maximumExecutionTimeSeconds"] = (w.runtime_ms + 999) / 1000;
  return wl;
}

// One condition as a watcher sees it.
struct Cond {
  bool is_true = false;
  std::string last_transition;
};

// What the runner reads from a Workload.
struct Observed {
  std::string ns, name, rv, cluster_queue;
  std::optional<Placement> placement;  // the first pod set's topologyAssignment
  Cond reserved, admitted, evicted, finished;
  const Json* conditions = nullptr;  // points into the object
};

std::string StringAt(const Json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A topologyAssignment (v1beta2's slices, read as v1beta1's domains of values
// and a count) of the first pod set assignment that has one.
std::optional<Placement> PlacementIn(const Json& admission) {
  auto psas = admission.find("podSetAssignments");
  if (psas == admission.end() || !psas->is_array()) return std::nullopt;
  for (const Json& psa : *psas) {
    if (!psa.is_object()) continue;
    auto found = psa.find("topologyAssignment");
    if (found == psa.end() || !found->is_object()) continue;
    Json domains = *found;
    if (!conversion::TopologyAssignmentDown(domains, "topologyAssignment").ok()) continue;
    const Json* ta = &domains;
    Placement p;
    if (auto l = ta->find("levels"); l != ta->end() && l->is_array()) {
      for (const Json& v : *l) p.levels.push_back(v.is_string() ? v.get<std::string>() : "");
    }
    if (auto ds = ta->find("domains"); ds != ta->end() && ds->is_array()) {
      for (const Json& d : *ds) {
        if (!d.is_object()) continue;
        PlacedDomain pd;
        if (auto vs = d.find("values"); vs != d.end() && vs->is_array()) {
          for (const Json& v : *vs) pd.values.push_back(v.is_string() ? v.get<std::string>() : "");
        }
        if (auto c = d.find("count"); c != d.end() && c->is_number_integer()) {
          pd.pods = c->get<int32_t>();
        }
        p.domains.push_back(std::move(pd));
      }
    }
    return p;
  }
  return std::nullopt;
}

Observed Observe(const Json& obj) {
  Observed o;
  if (auto m = obj.find("metadata"); m != obj.end() && m->is_object()) {
    o.ns = StringAt(*m, "namespace");
    o.name = StringAt(*m, "name");
    o.rv = StringAt(*m, "resourceVersion");
  }
  auto st = obj.find("status");
  if (st == obj.end() || !st->is_object()) return o;
  if (auto a = st->find("admission"); a != st->end() && a->is_object()) {
    o.cluster_queue = StringAt(*a, "clusterQueue");
    o.placement = PlacementIn(*a);
  }
  auto conds = st->find("conditions");
  if (conds == st->end() || !conds->is_array()) return o;
  o.conditions = &*conds;
  for (const Json& c : *conds) {
    if (!c.is_object()) continue;
    const std::string type = StringAt(c, "type");
    Cond* slot = type == "QuotaReserved" ? &o.reserved
                 : type == "Admitted"    ? &o.admitted
                 : type == "Evicted"     ? &o.evicted
                 : type == "Finished"    ? &o.finished
                                         : nullptr;
    if (slot == nullptr) continue;
    slot->is_true = StringAt(c, "status") == "True";
    slot->last_transition = StringAt(c, "lastTransitionTime");
  }
  return o;
}

// The runner's view of one workload (guarded by RealTimeRun::mu_).
struct Live {
  bool seen = false, reserved = false, admitted = false, evicted = false, finished = false;
  std::string rv;
  std::string reserved_at;  // QuotaReserved's lastTransitionTime: names the admission
  Json conditions;          // as last seen, while admitted
};

// An admitted workload due to finish.
struct Due {
  SteadyClock::time_point at;
  int32_t workload;
  int32_t hold;
  bool operator>(const Due& o) const { return at > o.at; }
};

class RealTimeRun {
 public:
  RealTimeRun(const Plan& plan, const RealTimeOptions& options) : plan_(plan), options_(options) {
    for (size_t i = 0; i < plan.workloads.size(); ++i) {
      index_[plan.Key(plan.workloads[i])] = static_cast<int32_t>(i);
    }
    for (size_t q = 0; q < plan.queues.size(); ++q) {
      queue_index_[plan.queues[q].name] = static_cast<int32_t>(q);
    }
    live_.resize(plan.workloads.size());
    rec_.workloads.resize(plan.workloads.size());
  }

  Result<RunRecord> Go();

 private:
  Status Probe(ApiClient& c);
  Status Setup();
  Status SetupTopology(ApiClient& c);
  Result<int64_t> CurrentResourceVersion(ApiClient& c);
  void Creator(ApiClient& c);
  void Finisher(ApiClient& c);
  void FinishOne(ApiClient& c, const Due& due);
  void OnEvent(const std::string& type, const Json& obj);
  void Warn(const std::string& message);
  void WarnLocked(const std::string& message);
  void Fail(const std::string& message);
  bool Stopping() const { return stopping_.load(); }
  void StopAll();
  int64_t NowUs() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - t0_).count();
  }
  // A server timestamp on the run's clock; `fallback` when absent or bad.
  int64_t ServerUs(const std::string& rfc3339, int64_t fallback) const {
    if (rfc3339.empty()) return fallback;
    Result<Time> t = ParseRfc3339(rfc3339);
    if (!t.ok()) return fallback;
    return t->unix_ms * 1000 - sys0_us_;
  }

  const Plan& plan_;
  const RealTimeOptions& options_;
  std::unordered_map<std::string, int32_t> index_;        // const after construction
  std::unordered_map<std::string, int32_t> queue_index_;  // const after construction
  SteadyClock::time_point t0_;
  int64_t sys0_us_ = 0;
  SteadyClock::time_point sched0_;
  std::atomic<int64_t> requests_{0};
  std::atomic<size_t> next_create_{0};
  std::atomic<int64_t> max_lag_us_{0};
  std::atomic<int64_t> conflicts_{0};

  // Stop signal for sleeping creators and finishers.
  std::atomic<bool> stopping_{false};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;

  // What the watch saw, and the run's outcome.
  std::mutex mu_;
  std::condition_variable cv_;                       // signalled on finish and on failure
  RunRecord rec_;                                    // guarded by mu_
  std::vector<Live> live_;                           // guarded by mu_
  size_t created_ = 0, finished_ = 0, running_ = 0;  // guarded by mu_
  int64_t evictions_ = 0;                            // guarded by mu_
  int64_t last_change_us_ = 0, last_finish_us_ = 0;  // guarded by mu_
  std::string fatal_;                                // guarded by mu_

  // Admitted workloads waiting for their runtime to pass.
  std::mutex due_mu_;
  std::condition_variable due_cv_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;  // guarded by due_mu_
};

Status RealTimeRun::Probe(ApiClient& c) {
  ApiReply r = c.Get(kKueueApi);
  if (r.status == 0) {
    return Status::Unavailable("cannot reach kuotad at " + options_.server.url + ": " +
                               DescribeReply(r));
  }
  if (r.status != 200) {
    return Status::Unavailable(
        options_.server.url +
        " does not serve the kueue.x-k8s.io/v1beta2 API: " + DescribeReply(r));
  }
  return Status::Ok();
}

// The Topology and its Nodes (labels per level and the flavor's, allocatable
// and capacity as planned, Ready). A server that drops a new Node's status
// gets it again through the status subresource.
Status RealTimeRun::SetupTopology(ApiClient& c) {
  Json levels = Json::array();
  for (const TopologyLevel& l : plan_.topology->levels) {
    levels.push_back({{"nodeLabel", l.node_label}});
  }
  Json topo = {{"apiVersion", api::kKueueV1beta2},
               {"kind", "Topology"},
               {"metadata", {{"name", plan_.topology->name}}},
               {"spec", {{"levels", levels}}}};
  ApiReply r = c.Post(std::string(kKueueApi) + "/topologies", topo.dump());
  if (!r.ok()) {
    return Status::Unavailable("creating Topology " + plan_.topology->name + ": " +
                               DescribeReply(r));
  }
  Json allocatable = Json::object();
  for (const auto& [name, q] : plan_.node_allocatable) allocatable[name] = q.ToString();
  const Json status = {
      {"capacity", allocatable},
      {"allocatable", allocatable},
      {"conditions",
       Json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})}};
  for (const PlannedNode& node : plan_.nodes) {
    Json labels = Json::object();
    for (size_t l = 0; l < node.domains.size(); ++l) {
      labels[plan_.topology->levels[l].node_label] = node.domains[l];
    }
    if (!plan_.flavor_node_label.empty()) labels[plan_.flavor_node_label] = plan_.flavor_name;
    Json n = {{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", node.name}, {"labels", labels}}},
              {"status", status}};
    r = c.Post("/api/v1/nodes", n.dump());
    if (!r.ok()) return Status::Unavailable("creating Node " + node.name + ": " + DescribeReply(r));
    Json created = Json::parse(r.body, nullptr, false);
    const bool kept = created.is_object() && created.contains("status") &&
                      created["status"].is_object() && created["status"].contains("allocatable");
    if (!kept) {
      r = c.MergePatch("/api/v1/nodes/" + node.name + "/status", Json{{"status", status}}.dump());
      if (!r.ok()) {
        return Status::Unavailable("setting Node " + node.name + "'s status: " + DescribeReply(r));
      }
    }
  }
  return Status::Ok();
}

Status RealTimeRun::Setup() {
  ApiClient c(options_.server, &requests_);
  Json rf = {{"apiVersion", api::kKueueV1beta2},
             {"kind", "ResourceFlavor"},
             {"metadata", {{"name", plan_.flavor_name}}}};
  if (!plan_.flavor_node_label.empty()) {
    rf["spec"]["nodeLabels"][plan_.flavor_node_label] = plan_.flavor_name;
  }
  if (plan_.topology) {
    rf["spec"]["topologyName"] = plan_.topology->name;
    KUOTA_RETURN_IF_ERROR(SetupTopology(c));
  }
  ApiReply r = c.Post(std::string(kKueueApi) + "/resourceflavors", rf.dump());
  if (!r.ok() && r.status != 409) {
    return Status::Unavailable("creating ResourceFlavor " + plan_.flavor_name + ": " +
                               DescribeReply(r));
  }
  // ClusterQueue, namespace and LocalQueue of each queue, from several clients.
  std::atomic<size_t> next{0};
  std::mutex err_mu;
  Status first_error;
  auto worker = [&] {
    ApiClient cli(options_.server, &requests_);
    auto post = [&](const std::string& path, const Json& body, bool conflict_ok,
                    const std::string& what) -> Status {
      for (int attempt = 0;; ++attempt) {
        ApiReply reply = cli.Post(path, body.dump());
        if (reply.ok() || (conflict_ok && reply.status == 409)) return Status::Ok();
        if (reply.status == 409) {
          return Status::AlreadyExists(what + " already exists on " + options_.server.url +
                                       ": run kuota perf against a fresh kuotad");
        }
        if (reply.status != 0 || attempt >= 5) {
          return Status::Unavailable("creating " + what + ": " + DescribeReply(reply));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    };
    for (size_t q; (q = next++) < plan_.queues.size();) {
      const PlannedQueue& pq = plan_.queues[q];
      Status st = post(std::string(kKueueApi) + "/clusterqueues", ClusterQueueJson(plan_, pq),
                       false, "ClusterQueue " + pq.name);
      if (st.ok()) {
        st = post(
            "/api/v1/namespaces",
            Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", pq.name}}}},
            true, "namespace " + pq.name);
      }
      if (st.ok()) {
        st = post(std::string(kKueueApi) + "/namespaces/" + pq.name + "/localqueues",
                  Json{{"apiVersion", api::kKueueV1beta2},
                       {"kind", "LocalQueue"},
                       {"metadata", {{"name", pq.name}, {"namespace", pq.name}}},
                       {"spec", {{"clusterQueue", pq.name}}}},
                  false, "LocalQueue " + pq.name + "/" + pq.name);
      }
      if (!st.ok()) {
        std::lock_guard lock(err_mu);
        if (first_error.ok()) first_error = st;
        next = plan_.queues.size();
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < options_.clients; ++i) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return first_error;
}

Result<int64_t> RealTimeRun::CurrentResourceVersion(ApiClient& c) {
  ApiReply r = c.Get(std::string(kWorkloadsPath) + "?limit=1");
  if (!r.ok()) return Status::Unavailable("listing Workloads: " + DescribeReply(r));
  Json list = Json::parse(r.body, nullptr, false);
  if (list.is_discarded() || !list.is_object()) {
    return Status::Unavailable("listing Workloads: the reply is not JSON");
  }
  const std::string rv = list.value("metadata", Json::object()).value("resourceVersion", "0");
  return std::strtoll(rv.c_str(), nullptr, 10);
}

void RealTimeRun::Warn(const std::string& message) {
  std::lock_guard lock(mu_);
  WarnLocked(message);
}

void RealTimeRun::WarnLocked(const std::string& message) {
  if (rec_.warnings.size() < kMaxWarnings) rec_.warnings.push_back(message);
}

void RealTimeRun::Fail(const std::string& message) {
  std::lock_guard lock(mu_);
  if (fatal_.empty()) fatal_ = message;
  cv_.notify_all();
}

void RealTimeRun::Creator(ApiClient& c) {
  for (size_t i; (i = next_create_++) < plan_.workloads.size();) {
    const PlannedWorkload& w = plan_.workloads[i];
    const auto at = sched0_ + std::chrono::milliseconds(w.create_at_ms);
    {
      std::unique_lock lock(stop_mu_);
      if (stop_cv_.wait_until(lock, at, [&] { return Stopping(); })) return;
    }
    const int64_t lag =
        std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - at).count();
    int64_t prev = max_lag_us_.load();
    while (lag > prev && !max_lag_us_.compare_exchange_weak(prev, lag)) {
    }
    const std::string body = WorkloadJson(plan_, w).dump();
    const std::string path =
        std::string(kKueueApi) + "/namespaces/" + plan_.queues[w.queue].name + "/workloads";
    for (int attempt = 0;; ++attempt) {
      ApiReply r = c.Post(path, body);
      if (r.ok()) break;
      if (r.status == 409) {
        Fail("Workload " + plan_.Key(w) + " already exists on " + options_.server.url +
             ": run kuota perf against a fresh kuotad");
        return;
      }
      if (r.status != 0 || attempt >= 5 || Stopping()) {
        Fail("creating Workload " + plan_.Key(w) + ": " + DescribeReply(r));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

void RealTimeRun::Finisher(ApiClient& c) {
  while (!Stopping()) {
    Due due;
    {
      std::unique_lock lock(due_mu_);
      for (;;) {
        if (Stopping()) return;
        if (!due_.empty() && due_.top().at <= SteadyClock::now()) break;
        if (due_.empty()) {
          due_cv_.wait_for(lock, std::chrono::milliseconds(200));
        } else {
          // A copy: the queue may reallocate while this thread waits.
          const SteadyClock::time_point until =
              std::min(due_.top().at, SteadyClock::now() + std::chrono::milliseconds(200));
          due_cv_.wait_until(lock, until);
        }
      }
      due = due_.top();
      due_.pop();
    }
    FinishOne(c, due);
  }
}

// Marks one admitted workload Finished with a merge patch of its status that
// names the resourceVersion it was read at, so a concurrent eviction wins.
void RealTimeRun::FinishOne(ApiClient& c, const Due& due) {
  std::string rv, reserved_at;
  Json conditions;
  {
    std::lock_guard lock(mu_);
    const Live& s = live_[due.workload];
    const WorkloadRecord& w = rec_.workloads[due.workload];
    if (!s.admitted || s.finished || static_cast<int32_t>(w.holds.size()) != due.hold + 1 ||
        w.holds.back().released_us >= 0) {
      return;  // evicted since: the next admission schedules a new finish
    }
    rv = s.rv;
    reserved_at = s.reserved_at;
    conditions = s.conditions;
  }
  const PlannedWorkload& pw = plan_.workloads[due.workload];
  const std::string ns = plan_.queues[pw.queue].name;
  const std::string object_path =
      std::string(kKueueApi) + "/namespaces/" + ns + "/workloads/" + pw.name;
  for (int attempt = 0; attempt < 20 && !Stopping(); ++attempt) {
    Json conds = Json::array();
    if (conditions.is_array()) {
      for (const Json& cnd : conditions) {
        if (cnd.is_object() && cnd.value("type", "") != "Finished") conds.push_back(cnd);
      }
    }
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    conds.push_back(
        {{"type", "Finished"},
         {"status", "True"},
         {"reason", "Succeeded"},
         {"message", "Finished by kuota perf after " + std::to_string(pw.runtime_ms) + " ms"},
         {"lastTransitionTime", FormatRfc3339(Time::FromMillis(now_ms))}});
    Json body = {{"metadata", {{"resourceVersion", rv}}}, {"status", {{"conditions", conds}}}};
    ApiReply r = c.MergePatch(object_path + "/status", body.dump());
    if (r.ok()) return;
    if (r.status == 404) {
      Warn("Workload " + ns + "/" + pw.name + " was deleted before it finished");
      return;
    }
    if (r.status == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (r.status != 409) {
      Fail("marking Workload " + ns + "/" + pw.name + " Finished: " + DescribeReply(r));
      return;
    }
    // Lost a race: finish it only if it still holds the same admission.
    conflicts_++;
    ApiReply g = c.Get(object_path);
    if (!g.ok()) continue;
    Json obj = Json::parse(g.body, nullptr, false);
    if (obj.is_discarded() || !obj.is_object()) continue;
    Observed o = Observe(obj);
    if (!o.reserved.is_true || !o.admitted.is_true || o.finished.is_true ||
        o.reserved.last_transition != reserved_at || o.conditions == nullptr) {
      return;  // evicted (and maybe readmitted) or finished meanwhile
    }
    rv = o.rv;
    conditions = *o.conditions;
  }
  if (!Stopping())
    Fail("could not mark Workload " + ns + "/" + pw.name + " Finished after 20 attempts");
}

void RealTimeRun::OnEvent(const std::string& type, const Json& obj) {
  const int64_t t = NowUs();
  Observed o = Observe(obj);
  auto it = index_.find(o.ns + "/" + o.name);
  if (it == index_.end()) return;  // not one of ours
  const int32_t i = it->second;
  const PlannedWorkload& pw = plan_.workloads[i];
  std::vector<Due> schedule;
  {
    std::lock_guard lock(mu_);
    Live& s = live_[i];
    WorkloadRecord& w = rec_.workloads[i];
    last_change_us_ = t;
    if (!s.seen) {
      s.seen = true;
      w.created_us = t;
      w.creations++;
      created_++;
    }
    if (type == "DELETED") {
      WarnLocked("Workload " + o.ns + "/" + o.name + " was deleted during the run");
      return;
    }
    s.rv = o.rv;
    if (o.finished.is_true && !s.finished) {
      s.finished = true;
      w.finishes++;
      w.finished_us = t;
      finished_++;
      last_finish_us_ = t;
      if (!w.holds.empty() && w.holds.back().released_us < 0) {
        QuotaHold& h = w.holds.back();
        h.released_us = t;
        h.finished = true;
        h.sched_end_us = ServerUs(o.finished.last_transition, t);
        running_--;
      }
      cv_.notify_all();
    } else if (!s.finished) {
      if (o.reserved.is_true && !s.reserved) {
        QuotaHold h;
        auto q = queue_index_.find(o.cluster_queue);
        h.queue = q == queue_index_.end() ? -1 : q->second;
        h.reserved_us = t;
        h.sched_start_us = ServerUs(o.reserved.last_transition, t);
        h.placement = o.placement;
        w.holds.push_back(h);
        s.reserved_at = o.reserved.last_transition;
        running_++;
      } else if (!o.reserved.is_true && s.reserved && !w.holds.empty() &&
                 w.holds.back().released_us < 0) {
        QuotaHold& h = w.holds.back();
        h.released_us = t;
        h.sched_end_us = ServerUs(o.reserved.last_transition, t);
        running_--;
      }
      if (o.admitted.is_true && !s.admitted && o.reserved.is_true && !w.holds.empty()) {
        w.admissions++;
        w.holds.back().admitted_us = t;
        schedule.push_back(
            {t0_ + std::chrono::microseconds(t) + std::chrono::milliseconds(pw.runtime_ms), i,
             static_cast<int32_t>(w.holds.size() - 1)});
      }
    }
    if (s.finished && !o.finished.is_true) w.finish_lost = true;
    if (o.evicted.is_true && !s.evicted) {
      if (s.finished) {
        w.evictions_after_finish++;
      } else {
        w.evictions++;
        evictions_++;
        // Held quota before this event? (An eviction and a readmission are
        // separate writes, so s.reserved is the state before the eviction.)
        if (!s.reserved) w.evictions_unseen_admission++;
      }
    }
    s.evicted = o.evicted.is_true;
    s.reserved = o.reserved.is_true && !s.finished;
    s.admitted = o.admitted.is_true && !s.finished;
    if (s.admitted && o.conditions != nullptr) {
      s.conditions = *o.conditions;
    } else {
      s.conditions = Json();
    }
  }
  if (!schedule.empty()) {
    std::lock_guard lock(due_mu_);
    for (const Due& d : schedule) due_.push(d);
    due_cv_.notify_one();
  }
}

void RealTimeRun::StopAll() {
  {
    std::lock_guard lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  std::lock_guard lock(due_mu_);
  due_cv_.notify_all();
}

// The store writer's counters on the server's /metrics, when it exports them.
// A connection of its own each time (not counted as the run's requests): a
// kept-alive one would have been closed by the server during the schedule.
std::optional<StoreWriterCost> ScrapeStoreWriter(const ServerAddress& server) {
  ApiClient client(server);
  const ApiReply reply = client.Get("/metrics");
  if (!reply.ok()) return std::nullopt;
  return ParseStoreWriter(reply.body);
}

Result<RunRecord> RealTimeRun::Go() {
  t0_ = SteadyClock::now();
  sys0_us_ = std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  const double cpu0 = SelfCpuSeconds();
  ApiClient main(options_.server, &requests_);
  KUOTA_RETURN_IF_ERROR(Probe(main));
  KUOTA_RETURN_IF_ERROR(Setup());
  KUOTA_ASSIGN_OR_RETURN(int64_t rv, CurrentResourceVersion(main));
  WorkloadWatch watch(
      options_.server, &requests_,
      [this](const std::string& type, const Json& obj) { OnEvent(type, obj); },
      [this](const std::string& m) { Warn(m); });
  watch.Start(rv);
  // Every creating and finishing connection is open (TLS handshake done)
  // before the schedule starts, one after another (~5 ms each): opened on
  // their first requests, dozens at once held the first finishes back.
  const int creators = std::max(1, options_.clients);
  const int finishers = std::max(1, options_.finishers);
  std::vector<std::unique_ptr<ApiClient>> conns;
  for (int i = 0; i < creators + finishers; ++i) {
    conns.push_back(std::make_unique<ApiClient>(options_.server, &requests_));
  }
  for (const std::unique_ptr<ApiClient>& c : conns) KUOTA_RETURN_IF_ERROR(Probe(*c));
  // kuotad's store writer before and after the schedule.
  const std::optional<StoreWriterCost> writer_before = ScrapeStoreWriter(options_.server);
  const int64_t setup_us = NowUs();
  sched0_ = SteadyClock::now();
  {
    std::lock_guard lock(mu_);
    last_change_us_ = setup_us;
  }
  if (options_.progress) {
    options_.progress("setup done in " + std::to_string(setup_us / 1000) + " ms (" +
                      std::to_string(plan_.queues.size()) + " ClusterQueues); creating " +
                      std::to_string(plan_.workloads.size()) + " workloads");
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < creators; ++i) {
    threads.emplace_back([this, c = conns[i].get()] { Creator(*c); });
  }
  for (int i = 0; i < finishers; ++i) {
    threads.emplace_back([this, c = conns[creators + i].get()] { Finisher(*c); });
  }

  const size_t n = plan_.workloads.size();
  std::string stop_reason;
  auto next_progress = SteadyClock::now() + std::chrono::seconds(5);
  {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait_for(lock, std::chrono::milliseconds(250),
                   [&] { return finished_ == n || !fatal_.empty(); });
      if (finished_ == n) break;
      if (!fatal_.empty()) {
        stop_reason = fatal_;
        break;
      }
      const int64_t now = NowUs();
      if (std::chrono::microseconds(now) > options_.timeout) {
        stop_reason = "timed out after " + std::to_string(options_.timeout.count() / 1000) +
                      " s with " + std::to_string(n - finished_) + " workloads unfinished";
        break;
      }
      if (created_ == n &&
          std::chrono::microseconds(now - last_change_us_) > options_.stall_timeout) {
        stop_reason = "nothing changed for " +
                      std::to_string(options_.stall_timeout.count() / 1000) + " s with " +
                      std::to_string(n - finished_) + " workloads unfinished";
        break;
      }
      if (std::string werr = watch.error(); !werr.empty()) {
        stop_reason = werr;
        break;
      }
      if (options_.progress && SteadyClock::now() >= next_progress) {
        next_progress += std::chrono::seconds(5);
        char line[200];
        std::snprintf(line, sizeof line,
                      "%7.1f s: created %zu/%zu, holding quota %zu, finished %zu, evictions %lld",
                      static_cast<double>(now) / 1e6, created_, n, running_, finished_,
                      static_cast<long long>(evictions_));
        const std::string text = line;
        lock.unlock();
        options_.progress(text);
        lock.lock();
      }
    }
  }
  const int64_t stop_us = NowUs();
  StopAll();
  for (auto& t : threads) t.join();
  watch.Stop();
  const std::optional<StoreWriterCost> writer_after = ScrapeStoreWriter(options_.server);

  std::lock_guard lock(mu_);
  RunRecord rec = std::move(rec_);
  if (writer_before && writer_after) {
    rec.store_writer = StoreWriterDelta(*writer_before, *writer_after);
  }
  rec.mode = "real-time";
  rec.server_url = options_.server.url;
  rec.completed = finished_ == n;
  rec.stop_reason = stop_reason;
  rec.setup_us = setup_us;
  rec.schedule_start_us = setup_us;
  rec.end_us = rec.completed ? last_finish_us_ : stop_us;
  rec.wall_us = rec.end_us;
  rec.real_s = static_cast<double>(NowUs()) / 1e6;
  rec.runner_cpu_s = SelfCpuSeconds() - cpu0;
  rec.watch_events = watch.events();
  rec.http_requests = requests_.load();
  rec.finish_conflicts = conflicts_.load();
  rec.max_create_lag_us = max_lag_us_.load();
  if (rec.max_create_lag_us > 1'000'000) {
    rec.warnings.push_back("creations fell behind their schedule by up to " +
                           std::to_string(rec.max_create_lag_us / 1000) +
                           " ms (the server answered slower than workloads arrive)");
  }
  return rec;
}

}  // namespace

Result<RunRecord> RunRealTime(const Plan& plan, const RealTimeOptions& options) {
  RealTimeRun run(plan, options);
  return run.Go();
}

}  // namespace kuota::perf
