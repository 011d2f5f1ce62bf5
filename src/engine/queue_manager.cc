#include "engine/queue_manager.h"
#include "engine/topology_assigner.h"

#include <algorithm>
#include <set>

namespace kuota::engine {
namespace {

// Sets a condition's type, status and reason (lastTransitionTime as
// SetCondition keeps it) and returns it for its message.
api::Condition& SetConditionButMessage(std::vector<api::Condition>& conditions,
                                       std::string_view type, std::string_view status,
                                       std::string_view reason, Time now) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    if (c.status != status) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    return c;
  }
  api::Condition& c = conditions.emplace_back();
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.last_transition_time = now;
  return c;
}

}  // namespace

void SetCondition(std::vector<api::Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string_view message,
                  Time now) {
  SetConditionButMessage(conditions, type, status, reason, now).message = message;
}

void SetConditionTakingMessage(std::vector<api::Condition>& conditions, std::string_view type,
                               std::string_view status, std::string_view reason,
                               std::string&& message, Time now) {
  SetConditionButMessage(conditions, type, status, reason, now).message.swap(message);
}

void RouteWorkload(EngineState& s, WorkloadInfo* wl) {
  Dequeue(wl);
  if (wl->state != WorkloadState::kPending) return;
  const std::string lq_key = wl->ns() + "/" + wl->object.spec.queue_name;
  auto lq = s.local_queues.find(lq_key);
  if (wl->object.spec.queue_name.empty()) {
    wl->pending_reason = "Inadmissible";
    wl->set_pending_message("Workload has no queue name (spec.queueName)");
    return;
  }
  // A workload with no queue to wait in says why in its status, as Kueue's
  // workload controller writes it (QuotaReserved False, Inadmissible).
  auto inadmissible = [&](std::string message) {
    wl->pending_reason = "Inadmissible";
    wl->set_pending_message(message);
    SetCondition(wl->object.status.conditions, api::kQuotaReserved, "False", "Inadmissible",
                 message, s.clock.Now());
  };
  if (lq == s.local_queues.end()) {
    inadmissible("LocalQueue " + wl->object.spec.queue_name + " doesn't exist");
    return;
  }
  if (lq->second.stop_policy != api::StopPolicy::kNone) {
    wl->pending_reason = "Inadmissible";
    wl->set_pending_message("LocalQueue " + wl->object.spec.queue_name + " is inactive");
    return;
  }
  ClusterQueueNode* cq = s.tree.FindClusterQueue(lq->second.cluster_queue);
  if (cq == nullptr) {
    inadmissible("ClusterQueue " + lq->second.cluster_queue + " doesn't exist");
    return;
  }
  wl->queued_in = cq;
  if (!cq->active()) {
    wl->pending_reason = "Inadmissible";
    wl->set_pending_message("ClusterQueue " + cq->name() + " is inactive");
  }
  if (wl->requeue_at && *wl->requeue_at > s.clock.Now()) {
    cq->pending().PushBackoff(wl);
  } else {
    wl->requeue_at.reset();
    cq->pending().Push(wl);
  }
}

std::vector<std::pair<FrId, int64_t>> UsageOf(EngineState& s,
                                              const std::vector<PodSetAdmission>& admission) {
  std::map<FrId, int64_t> total;
  for (const auto& ps : admission) {
    for (const auto& [res, flavor] : ps.flavors) {
      FrId fr = s.frs.Intern(flavor, res);
      int64_t v = 0;
      for (const auto& [r, amount] : ps.usage) {
        if (r == res) v = amount;
      }
      total[fr] = SatAdd(total[fr], v);
    }
  }
  return {total.begin(), total.end()};
}

std::vector<std::string> RequiredChecks(const ClusterQueueNode& cq,
                                        const std::vector<PodSetAdmission>& admission) {
  std::vector<std::string> out = cq.spec().admission_checks;
  std::set<std::string> used;
  for (const auto& ps : admission) {
    for (const auto& [r, f] : ps.flavors) used.insert(f);
  }
  for (const auto& rule : cq.spec().admission_checks_strategy) {
    bool applies = rule.on_flavors.empty();
    for (const auto& f : rule.on_flavors) applies = applies || used.count(f);
    if (applies) out.push_back(rule.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool ChecksReady(const EngineState&, const ClusterQueueNode& cq, const WorkloadInfo& wl) {
  for (const auto& name : RequiredChecks(cq, wl.admission)) {
    bool ready = false;
    for (const auto& st : wl.object.status.admission_checks) {
      if (st.name == name && st.state == "Ready") ready = true;
    }
    if (!ready) return false;
  }
  return true;
}

void HoldQuota(EngineState& s, WorkloadInfo* wl, ClusterQueueNode* cq,
               std::vector<PodSetAdmission> admission) {
  Dequeue(wl);
  wl->admission = std::move(admission);
  wl->usage = UsageOf(s, wl->admission);
  wl->admitted_in = cq;
  wl->evicted = false;
  cq->AddAdmitted(wl);
  for (const auto& [fr, v] : wl->usage) cq->AddUsage(fr, v);
  wl->state = ChecksReady(s, *cq, *wl) ? WorkloadState::kAdmitted : WorkloadState::kQuotaReserved;
  wl->pending_reason.clear();
  wl->set_pending_message({});
}

void Dequeue(WorkloadInfo* wl) {
  if (wl->queued_in == nullptr) return;
  wl->queued_in->pending().Remove(wl);
  wl->queued_in = nullptr;
}

void ReturnToPending(EngineState& s, WorkloadInfo* wl, const std::string& evicted_reason,
                     const std::string& pending_reason, const std::string& message,
                     bool always_write_admitted, Time now) {
  ReleaseQuota(s, wl);
  wl->state = WorkloadState::kPending;
  auto& st = wl->object.status;
  st.admission.reset();
  if (!evicted_reason.empty()) {
    SetCondition(st.conditions, api::kEvicted, "True", evicted_reason, message, now);
  }
  SetCondition(st.conditions, api::kQuotaReserved, "False", pending_reason, message, now);
  if (always_write_admitted || api::FindCondition(st.conditions, api::kAdmitted)) {
    SetCondition(st.conditions, api::kAdmitted, "False", "NoReservation",
                 "The workload has no reservation", now);
  }
  wl->set_pending_message(message);
}

void ReleaseQuota(EngineState&, WorkloadInfo* wl) {
  // Its pods leave their nodes even when its ClusterQueue is gone.
  RemoveTopologyUsage(wl->tas_usage);
  wl->tas_usage.clear();
  if (wl->admitted_in == nullptr) return;
  for (const auto& [fr, v] : wl->usage) wl->admitted_in->RemoveUsage(fr, v);
  wl->admitted_in->RemoveAdmitted(wl);
  wl->admitted_in = nullptr;
  wl->usage.clear();
  wl->admission.clear();
  wl->holder_hint = kNoHint;  // a position among holders; it holds none now
}

void FlushInadmissible(EngineState&, const ClusterQueueNode* cq) {
  if (cq == nullptr) return;
  QuotaTree::ForEachClusterQueue(QuotaTree::Root(cq),
                                 [](ClusterQueueNode* x) { x->pending().QueueInadmissible(); });
}

}  // namespace kuota::engine
