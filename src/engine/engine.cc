#include "engine/engine.h"

#include <algorithm>
#include <variant>

#include "engine/queue_manager.h"
#include "engine/topology_assigner.h"
#include "engine/workload_slice.h"

namespace kuota::engine {
namespace {

std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

Engine::Engine(const Clock& clock, api::Configuration config)
    : state_(std::make_unique<EngineState>(clock)) {
  state_->config = std::move(config);
  scheduler_ = std::make_unique<Scheduler>(*state_);
}

Engine::~Engine() = default;

Status Engine::Apply(const api::Object& object) {
  EngineState& s = *state_;
  // Keeps `x` under `key`; `dirty`: the quota tree is rebuilt from it.
  auto put = [&](auto& map, const std::string& key, const auto& x, bool dirty = true) {
    map[key] = x;
    if (dirty) s.dirty = true;
    return Status::Ok();
  };
  return std::visit(
      Overloaded{
          [&](const api::ResourceFlavor& x) { return put(s.flavors, x.metadata.name, x); },
          [&](const api::ClusterQueue& x) { return put(s.cluster_queues, x.metadata.name, x); },
          [&](const api::Cohort& x) { return put(s.cohorts, x.metadata.name, x); },
          [&](const api::LocalQueue& x) {
            s.afs.Seed(Key(x.metadata.namespace_, x.metadata.name), x, s.clock.Now());
            return put(s.local_queues, Key(x.metadata.namespace_, x.metadata.name), x);
          },
          [&](const api::Namespace& x) { return put(s.namespaces, x.metadata.name, x); },
          [&](const api::WorkloadPriorityClass& x) {
            return put(s.workload_priority_classes, x.metadata.name, x, false);
          },
          [&](const api::PriorityClass& x) {
            return put(s.priority_classes, x.metadata.name, x, false);
          },
          [&](const api::AdmissionCheck& x) { return put(s.admission_checks, x.metadata.name, x); },
          [&](const api::Configuration& x) {
            s.config = x;
            s.dirty = true;
            return Status::Ok();
          },
          [&](const api::Workload& x) {
            AddWorkload(x);
            // A check's controller wrote its verdict in the status: Retry
            // evicts and Rejected deactivates a workload holding quota, as
            // Kueue's workload controller does.
            const std::string key = Key(x.metadata.namespace_, x.metadata.name);
            if (const WorkloadInfo* wl = s.FindWorkload(key); wl != nullptr && wl->holds_quota()) {
              for (const auto& c : x.status.admission_checks) {
                if (c.state == "Rejected" || c.state == "Retry") {
                  return SetAdmissionCheckState(key, c.name, c.state, c.message);
                }
              }
            }
            return Status::Ok();
          },
          [&](const api::Topology& x) {
            s.topologies[x.metadata.name] = x;
            s.topology_dirty = true;
            return Status::Ok();
          },
          [&](const api::Node& x) {
            s.nodes[x.metadata.name] = x;
            s.topology_dirty = true;
            return Status::Ok();
          },
          [&](const api::Pod& x) {
            s.pods[Key(x.metadata.namespace_, x.metadata.name)] = x;
            s.topology_dirty = true;
            return Status::Ok();
          },
      },
      object.value);
}

Status Engine::Delete(const std::string& kind, const std::string& ns, const std::string& name) {
  EngineState& s = *state_;
  auto erase = [&](auto& map, const std::string& key) {
    if (map.erase(key) == 0) return Status::NotFound(kind + " \"" + key + "\" not found");
    s.dirty = true;
    return Status::Ok();
  };
  if (kind == "ResourceFlavor") return erase(s.flavors, name);
  if (kind == "ClusterQueue") return erase(s.cluster_queues, name);
  if (kind == "Cohort") return erase(s.cohorts, name);
  if (kind == "LocalQueue") {
    s.afs.Forget(Key(ns, name));
    return erase(s.local_queues, Key(ns, name));
  }
  if (kind == "Namespace") return erase(s.namespaces, name);
  if (kind == "WorkloadPriorityClass") return erase(s.workload_priority_classes, name);
  if (kind == "PriorityClass") return erase(s.priority_classes, name);
  if (kind == "AdmissionCheck") return erase(s.admission_checks, name);
  auto erase_topology = [&](auto& map, const std::string& key) {
    if (map.erase(key) == 0) return Status::NotFound(kind + " \"" + key + "\" not found");
    s.topology_dirty = true;
    return Status::Ok();
  };
  if (kind == "Topology") return erase_topology(s.topologies, name);
  if (kind == "Node") return erase_topology(s.nodes, name);
  if (kind == "Pod") return erase_topology(s.pods, Key(ns, name));
  if (kind == "Workload") {
    if (!s.FindWorkload(Key(ns, name))) {
      return Status::NotFound("Workload \"" + Key(ns, name) + "\" not found");
    }
    RemoveWorkload(Key(ns, name));
    return Status::Ok();
  }
  return Status::Invalid("kind \"" + kind + "\" is not handled by the engine");
}

void Engine::Refresh() {
  EngineState& s = *state_;
  if (s.dirty || s.topology_dirty) {
    s.tas.Rebuild(s.flavors, s.topologies, s.nodes, s.pods);
    s.topology_dirty = false;
  }
  if (!s.dirty) return;
  s.dirty = false;
  for (auto& [key, wl] : s.workloads) {
    Dequeue(wl.get());
  }
  std::vector<std::unique_ptr<ClusterQueueNode>> removed;
  QuotaTree::Inputs in{&s.cluster_queues, &s.cohorts, &s.flavors, &s.admission_checks};
  s.tree.Rebuild(in, &removed);
  for (auto& node : removed) {
    for (WorkloadInfo* wl : node->admitted()) wl->admitted_in = nullptr;
  }
  for (auto& [key, wl] : s.workloads) {
    if (wl->holds_quota() && wl->admitted_in == nullptr && wl->object.status.admission) {
      if (ClusterQueueNode* cq =
              s.tree.FindClusterQueue(wl->object.status.admission->cluster_queue)) {
        wl->admitted_in = cq;
        cq->AddAdmitted(wl.get());
        wl->usage = UsageOf(s, wl->admission);
        for (const auto& [fr, v] : wl->usage) cq->AddUsage(fr, v);
      }
    }
  }
  StopHeldWorkloads();
  for (auto& [key, wl] : s.workloads) {
    if (wl->state == WorkloadState::kPending) RouteWorkload(s, wl.get());
  }
}

void Engine::StopHeldWorkloads() {
  for (const auto& [name, cq] : state_->tree.cluster_queues()) {
    std::vector<WorkloadInfo*> held = cq->admitted();
    for (WorkloadInfo* wl : held) StopHeldWorkload(wl);
  }
}

bool Engine::StopHeldWorkload(WorkloadInfo* wl) {
  EngineState& s = *state_;
  ClusterQueueNode* cq = wl->admitted_in;
  if (cq == nullptr) return false;
  const api::LocalQueue* lq = nullptr;
  auto it = s.local_queues.find(wl->ns() + "/" + wl->object.spec.queue_name);
  if (it != s.local_queues.end()) lq = &it->second;
  const bool lq_stopped = lq && lq->stop_policy != api::StopPolicy::kNone;
  const bool drain_cq = cq->spec().stop_policy == api::StopPolicy::kHoldAndDrain;
  const bool drain_lq = lq && lq->stop_policy == api::StopPolicy::kHoldAndDrain;
  std::string reason, message;
  if (wl->state == WorkloadState::kQuotaReserved && (!cq->active() || lq_stopped)) {
    // Reservations not yet admitted are cancelled when the queue stops.
    reason = "Inadmissible";
    message = lq_stopped
                  ? "LocalQueue " + wl->object.spec.queue_name + " is stopped"
                  : "ClusterQueue " + cq->name() + " is " +
                        (cq->spec().stop_policy != api::StopPolicy::kNone ? "stopped" : "inactive");
  } else if (wl->state == WorkloadState::kAdmitted && (drain_cq || drain_lq)) {
    reason = drain_cq ? "ClusterQueueStopped" : "LocalQueueStopped";
    message = drain_cq ? "The ClusterQueue is stopped" : "The LocalQueue is stopped";
  } else {
    return false;
  }
  ReturnToPending(s, wl, reason == "Inadmissible" ? "" : reason, reason, message,
                  /*always_write_admitted=*/true, s.clock.Now());
  wl->pending_reason = reason;
  return true;
}

void Engine::AddWorkload(const api::Workload& obj) {
  EngineState& s = *state_;
  Refresh();
  const std::string key = Key(obj.metadata.namespace_, obj.metadata.name);
  if (s.FindWorkload(key)) RemoveWorkload(key);
  auto info = std::make_unique<WorkloadInfo>();
  WorkloadInfo* wl = info.get();
  s.workloads[key] = std::move(info);
  wl->key = key;
  wl->seq = ++s.next_seq;
  wl->object = obj;
  const Time now = s.clock.Now();
  wl->creation = obj.metadata.creation_timestamp.value_or(now);
  if (!wl->object.metadata.creation_timestamp) wl->object.metadata.creation_timestamp = now;
  wl->queue_order_time = wl->creation;
  const auto& spec = wl->object.spec;
  // Priority: the value on the workload, else its class, else the pod's class,
  // else the lowest global default PriorityClass, else 0.
  if (spec.priority) {
    wl->priority = *spec.priority;
  } else if (!spec.priority_class_name.empty()) {
    auto wpc = s.workload_priority_classes.find(spec.priority_class_name);
    auto pc = s.priority_classes.find(spec.priority_class_name);
    if (spec.priority_class_source != api::kPodPriorityClassSource &&
        wpc != s.workload_priority_classes.end()) {
      wl->priority = wpc->second.value;
    } else if (pc != s.priority_classes.end()) {
      wl->priority = pc->second.value;
    }
  } else {
    bool found = false;
    for (const auto& ps : spec.pod_sets) {
      const auto& name = ps.template_.spec.priority_class_name;
      if (name.empty()) continue;
      auto pc = s.priority_classes.find(name);
      if (pc != s.priority_classes.end()) wl->priority = pc->second.value;
      found = true;
      break;
    }
    if (!found) {
      bool have_default = false;
      for (const auto& [name, pc] : s.priority_classes) {
        if (pc.global_default && (!have_default || pc.value < wl->priority)) {
          wl->priority = pc.value;
          have_default = true;
        }
      }
    }
  }
  // Its WorkloadPriorityClass's minimum runtime before preemption, if any.
  if (!spec.priority_class_name.empty() &&
      spec.priority_class_source != api::kPodPriorityClassSource) {
    auto wpc = s.workload_priority_classes.find(spec.priority_class_name);
    if (wpc != s.workload_priority_classes.end() &&
        wpc->second.metadata.annotations.count(kMinimumRuntimeAnnotation) > 0) {
      Result<MinimumRuntime> mr = ReadMinimumRuntime(wpc->second.metadata, false);
      if (mr.ok()) wl->minimum_runtime_ms = mr->ms;
    }
  }
  wl->pod_sets = BuildPodSets(wl->object);
  wl->spec_error = ValidateResources(wl->object);
  if (wl->spec_error.empty()) wl->spec_error = RequestsOverflow(wl->pod_sets);
  const auto& st = wl->object.status;
  if (const api::Condition* ev = api::FindCondition(st.conditions, api::kEvicted);
      ev && ev->status == "True" && ev->reason == "PodsReadyTimeout" &&
      s.config.wait_for_pods_ready.requeuing_strategy.timestamp ==
          api::RequeuingTimestamp::kEviction &&
      ev->last_transition_time) {
    wl->queue_order_time = *ev->last_transition_time;
  }
  if (st.requeue_state) {
    wl->requeue_at = st.requeue_state->requeue_at;
    wl->requeue_count = st.requeue_state->count.value_or(0);
  }
  if (!spec.active) {
    // Deactivated while holding quota: evicted, as Kueue's workload
    // controller does, so that its job is stopped.
    auto& cs = wl->object.status.conditions;
    if (api::IsConditionTrue(cs, api::kQuotaReserved)) {
      const std::string msg = "The workload is deactivated";
      SetCondition(cs, api::kEvicted, "True", "Deactivated", msg, now);
      SetCondition(cs, api::kQuotaReserved, "False", "Pending", msg, now);
      if (api::FindCondition(cs, api::kAdmitted)) {
        SetCondition(cs, api::kAdmitted, "False", "NoReservation",
                     "The workload has no reservation", now);
      }
      wl->object.status.admission.reset();
    }
    wl->state = WorkloadState::kInactive;
    wl->pending_reason = "Inactive";
    wl->set_pending_message("The workload is deactivated");
    return;
  }
  if (api::IsConditionTrue(st.conditions, api::kFinished)) {
    wl->state = WorkloadState::kFinished;
    return;
  }
  if (st.admission && api::IsConditionTrue(st.conditions, api::kQuotaReserved)) {
    std::vector<PodSetAdmission> admission;
    for (const auto& psa : st.admission->pod_set_assignments) {
      PodSetAdmission a;
      a.name = psa.name;
      const PodSetInfo* info = nullptr;
      for (const auto& p : wl->pod_sets) {
        if (p.name == psa.name) info = &p;
      }
      a.count = psa.count.value_or(info ? info->count : 1);
      a.flavors = psa.flavors;
      for (const auto& [res, flavor] : psa.flavors) {
        auto it = psa.resource_usage.find(res);
        int64_t v = 0;
        if (it != psa.resource_usage.end()) {
          v = it->second.milli();
        } else if (res == "pods") {
          v = int64_t{a.count} * 1000;
        } else if (info) {
          for (const auto& [r, per] : info->per_pod) {
            if (r == res) v = api::Quantity::Mul(per, a.count);
          }
        }
        a.usage.emplace_back(res, v);
      }
      // An elastic job scaled down in place (workload_slice.h): the pod set
      // now asks fewer pods than were admitted, and holds only their quota
      // (Kueue counts an admitted pod set at its current count).
      if (info != nullptr && info->count < a.count && IsElasticWorkload(obj)) {
        const int32_t admitted = a.count;
        for (auto& [res, v] : a.usage) v = ScaleUsage(v, admitted, info->count);
        a.count = info->count;
      }
      admission.push_back(std::move(a));
    }
    const api::Condition* qr = api::FindCondition(st.conditions, api::kQuotaReserved);
    wl->quota_reserved_at = qr->last_transition_time.value_or(now);
    ClusterQueueNode* cq = s.tree.FindClusterQueue(st.admission->cluster_queue);
    // Its pods are on their nodes whether or not its ClusterQueue exists.
    wl->tas_usage = TopologyUsageOf(s.tas, *wl, *st.admission);
    AddTopologyUsage(wl->tas_usage);
    if (cq) {
      HoldQuota(s, wl, cq, std::move(admission));
      if (api::IsConditionTrue(st.conditions, api::kAdmitted)) wl->state = WorkloadState::kAdmitted;
      // Loaded while being evicted: preemption takes such workloads first.
      wl->evicted = api::IsConditionTrue(st.conditions, api::kEvicted);
      if (wl->state == WorkloadState::kAdmitted &&
          !api::IsConditionTrue(wl->object.status.conditions, api::kAdmitted)) {
        // Every admission check became Ready: the reservation is now an admission.
        SetCondition(wl->object.status.conditions, api::kAdmitted, "True", "Admitted",
                     "The workload is admitted", now);
      }
      if (StopHeldWorkload(wl)) RouteWorkload(s, wl);
    } else {
      wl->admission = std::move(admission);
      wl->state = api::IsConditionTrue(st.conditions, api::kAdmitted)
                      ? WorkloadState::kAdmitted
                      : WorkloadState::kQuotaReserved;
    }
    return;
  }
  wl->state = WorkloadState::kPending;
  RouteWorkload(s, wl);
}

void Engine::RemoveWorkload(const std::string& key) {
  EngineState& s = *state_;
  WorkloadInfo* wl = s.FindWorkload(key);
  if (wl == nullptr) return;
  Dequeue(wl);
  if (wl->admitted_in) {
    ClusterQueueNode* cq = wl->admitted_in;
    ReleaseQuota(s, wl);
    FlushInadmissible(s, cq);
  }
  s.workloads.erase(key);
}

Status Engine::FinishWorkload(const std::string& key, const std::string& reason,
                              const std::string& message) {
  EngineState& s = *state_;
  Refresh();
  WorkloadInfo* wl = s.FindWorkload(key);
  if (wl == nullptr) return Status::NotFound("Workload \"" + key + "\" not found");
  Dequeue(wl);
  ClusterQueueNode* cq = wl->admitted_in;
  ReleaseQuota(s, wl);
  wl->state = WorkloadState::kFinished;
  SetCondition(wl->object.status.conditions, api::kFinished, "True", reason, message,
               s.clock.Now());
  if (cq) FlushInadmissible(s, cq);
  return Status::Ok();
}

Status Engine::EvictWorkload(const std::string& key, const std::string& reason,
                             const std::string& message, bool backoff) {
  EngineState& s = *state_;
  Refresh();
  WorkloadInfo* wl = s.FindWorkload(key);
  if (wl == nullptr) return Status::NotFound("Workload \"" + key + "\" not found");
  if (!wl->holds_quota()) return Status::Invalid("Workload \"" + key + "\" holds no quota");
  const Time now = s.clock.Now();
  ClusterQueueNode* cq = wl->admitted_in;
  ReturnToPending(s, wl, reason, "Pending", message, /*always_write_admitted=*/true, now);
  auto& st = wl->object.status;
  const auto& rs = s.config.wait_for_pods_ready.requeuing_strategy;
  if (reason == "PodsReadyTimeout" && rs.timestamp == api::RequeuingTimestamp::kEviction) {
    wl->queue_order_time = now;
  }
  if (backoff) {
    wl->requeue_count++;
    int64_t wait_s = rs.backoff_base_seconds;
    for (int i = 1; i < wl->requeue_count && wait_s < rs.backoff_max_seconds; ++i) wait_s *= 2;
    wait_s = std::min<int64_t>(wait_s, rs.backoff_max_seconds);
    wl->requeue_at = now + Duration{wait_s * 1000};
    st.requeue_state = api::RequeueState{wl->requeue_count, wl->requeue_at};
    if (rs.backoff_limit_count && wl->requeue_count > *rs.backoff_limit_count) {
      wl->state = WorkloadState::kInactive;
      wl->object.spec.active = false;
      s.deactivated.push_back(key);
      wl->pending_reason = "Inactive";
      wl->set_pending_message(
          "The workload is deactivated due to exceeding the maximum number of "
          "re-queuing retries");
    }
  }
  if (wl->state == WorkloadState::kPending) {
    wl->pending_reason = reason;
    wl->set_pending_message(message);
    RouteWorkload(s, wl);
  }
  if (cq) FlushInadmissible(s, cq);
  return Status::Ok();
}

Status Engine::SetPodsReady(const std::string& key, bool ready, const std::string& reason,
                            const std::string& message) {
  EngineState& s = *state_;
  WorkloadInfo* wl = s.FindWorkload(key);
  if (wl == nullptr) return Status::NotFound("Workload \"" + key + "\" not found");
  SetCondition(wl->object.status.conditions, api::kPodsReady, ready ? "True" : "False", reason,
               message, s.clock.Now());
  return Status::Ok();
}

Status Engine::SetAdmissionCheckState(const std::string& key, const std::string& check,
                                      const std::string& state, const std::string& message) {
  EngineState& s = *state_;
  Refresh();
  WorkloadInfo* wl = s.FindWorkload(key);
  if (wl == nullptr) return Status::NotFound("Workload \"" + key + "\" not found");
  if (state != "Pending" && state != "Ready" && state != "Retry" && state != "Rejected") {
    return Status::Invalid("admission check state \"" + state +
                           "\" is not one of Pending, Ready, Retry, Rejected");
  }
  const Time now = s.clock.Now();
  auto& checks = wl->object.status.admission_checks;
  auto it = std::find_if(checks.begin(), checks.end(),
                         [&](const api::AdmissionCheckState& c) { return c.name == check; });
  if (it == checks.end()) {
    api::AdmissionCheckState added;
    added.name = check;
    added.state = state;
    added.last_transition_time = now;
    added.message = message;
    checks.push_back(std::move(added));
  } else {
    it->state = state;
    it->message = message;
    it->last_transition_time = now;
  }
  if (wl->state == WorkloadState::kQuotaReserved && wl->admitted_in &&
      ChecksReady(s, *wl->admitted_in, *wl)) {
    wl->state = WorkloadState::kAdmitted;
    SetCondition(wl->object.status.conditions, api::kAdmitted, "True", "Admitted",
                 "The workload is admitted", now);
  }
  if (state == "Retry" && wl->holds_quota()) {
    // Kueue's eviction resets every check to Pending, counting a Retry in
    // its retryCount, and requeues the workload no sooner than the latest
    // retry time a check asked for (lastTransitionTime + requeueAfterSeconds).
    std::optional<Time> retry_at;
    for (const auto& c : checks) {
      if (c.state != "Retry" || !c.requeue_after_seconds || !c.last_transition_time) continue;
      Time t = *c.last_transition_time + Duration{int64_t{*c.requeue_after_seconds} * 1000};
      if (!retry_at || *retry_at < t) retry_at = t;
    }
    for (auto& c : checks) {
      if (c.state == "Pending") continue;
      if (c.state == "Retry") {
        c.retry_count = c.retry_count.value_or(0) + 1;
      } else {
        c.retry_count.reset();
      }
      c.message = "Reset to Pending after eviction. Previously: " + c.state;
      c.state = "Pending";
      c.last_transition_time = now;
      c.pod_set_updates.clear();
    }
    Status evicted =
        EvictWorkload(key, "AdmissionCheck", "At least one admission check is false", false);
    if (evicted.ok() && retry_at && now < *retry_at) {
      wl->requeue_at = *retry_at;
      auto& rs = wl->object.status.requeue_state;
      if (!rs) rs = api::RequeueState{};
      rs->requeue_at = *retry_at;
      if (wl->queued_in != nullptr) RouteWorkload(s, wl);
    }
    return evicted;
  }
  if (state == "Rejected") {
    ClusterQueueNode* cq = wl->admitted_in;
    Dequeue(wl);
    ReleaseQuota(s, wl);
    wl->state = WorkloadState::kInactive;
    wl->object.spec.active = false;
    s.deactivated.push_back(key);
    wl->pending_reason = "Inactive";
    wl->set_pending_message("The workload is deactivated due to Admission check(s): " + check +
                            ", were rejected");
    if (cq) FlushInadmissible(s, cq);
  }
  return Status::Ok();
}

std::vector<std::string> Engine::TakeDeactivated() {
  std::vector<std::string> out;
  out.swap(state_->deactivated);
  return out;
}

CycleResult Engine::RunCycle() {
  Refresh();
  return scheduler_->RunCycle();
}

bool Engine::HasPendingHeads() {
  Refresh();
  const Time now = state_->clock.Now();
  for (const auto& [name, cq] : state_->tree.cluster_queues()) {
    cq->pending().ReleaseExpiredBackoff(now);
    if (cq->active() && cq->pending().heap_size() > 0) return true;
  }
  return false;
}

const WorkloadInfo* Engine::FindWorkload(const std::string& key) {
  Refresh();
  return state_->FindWorkload(key);
}

std::vector<const WorkloadInfo*> Engine::Workloads() {
  Refresh();
  std::vector<const WorkloadInfo*> out;
  for (const auto& [k, wl] : state_->workloads) out.push_back(wl.get());
  return out;
}

const QuotaTree& Engine::tree() {
  Refresh();
  return state_->tree;
}

const EngineState& Engine::state() {
  Refresh();
  return *state_;
}

std::string Engine::PendingMessage(const std::string& key) {
  Refresh();
  const WorkloadInfo* wl = state_->FindWorkload(key);
  if (wl == nullptr) return "workload not found";
  if (wl->holds_quota()) {
    if (wl->state == WorkloadState::kQuotaReserved) {
      return "Quota reserved in ClusterQueue " +
             (wl->admitted_in ? wl->admitted_in->name() : std::string("?")) +
             "; waiting for admission checks to be Ready";
    }
    return "";
  }
  if (wl->state == WorkloadState::kFinished) return "finished";
  if (wl->queued_in && !wl->queued_in->active()) {
    return "ClusterQueue " + wl->queued_in->name() +
           " is inactive: " + wl->queued_in->inactive_message();
  }
  if (!wl->pending_message().empty()) return wl->pending_message();
  if (wl->queued_in) {
    int pos = wl->queued_in->pending().PositionOf(wl);
    if (pos <= 0)
      return "Waiting to be considered by the scheduler in ClusterQueue " + wl->queued_in->name();
    return "Waiting in ClusterQueue " + wl->queued_in->name() + ": " + std::to_string(pos) +
           " workload(s) ahead in the queue";
  }
  return "Pending";
}

}  // namespace kuota::engine
