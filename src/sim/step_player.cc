#include "sim/step_player.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "api/object.h"

namespace kuota::sim {
namespace {

using engine::WorkloadInfo;
using engine::WorkloadState;

// When the workload's current admission began (its Admitted condition).
std::optional<Time> AdmittedAt(const WorkloadInfo& wl) {
  const api::Condition* c = api::FindCondition(wl.object.status.conditions, api::kAdmitted);
  if (c == nullptr || c->status != "True") return std::nullopt;
  return c->last_transition_time;
}

bool PodsReady(const WorkloadInfo& wl) {
  return api::IsConditionTrue(wl.object.status.conditions, api::kPodsReady);
}

constexpr const char* kReadyReason = "Started";
constexpr const char* kReadyMessage = "All pods reached readiness and the workload is running";

}  // namespace

StepPlayer::StepPlayer(engine::Engine& engine, ManualClock& clock, std::vector<SimNode> nodes,
                       Report& report)
    : engine_(engine), clock_(clock), placement_(std::move(nodes)), report_(report) {}

void StepPlayer::Settle(int cycles) {
  FireTimeouts();
  ForgetStopped();
  RunCycles(cycles);
  PlacePods();
}

void StepPlayer::RunCycles(int cycles) {
  // "Until nothing changes": a cycle that admits and preempts nothing may
  // still have set a head aside (BestEffortFIFO) so that the next cycle
  // offers another; stop once no head is offered, or after more idle
  // cycles in a row than there are workloads (a StrictFIFO head that never
  // fits).
  const size_t workloads = engine_.Workloads().size();
  size_t idle = 0;
  const int max_cycles = cycles > 0 ? cycles : 100000;
  for (int i = 0; i < max_cycles; ++i) {
    engine::CycleResult r = engine_.RunCycle();
    ++report_.cycles_run;
    for (const auto& a : r.admitted) reserved_order_[a.workload] = ++reservations_;
    for (const auto& p : r.preempted) {
      report_.preempted.push_back({p.workload, p.preemptor, p.reason, report_.cycles_run});
    }
    if (!r.preempted.empty()) ForgetStopped();
    if (cycles > 0) continue;
    if (!r.admitted.empty() || !r.preempted.empty()) {
      idle = 0;
      continue;
    }
    if (r.heads == 0 || ++idle > workloads) break;
  }
}

void StepPlayer::FireTimeouts() {
  const api::WaitForPodsReady& cfg = engine_.state().config.wait_for_pods_ready;
  if (!cfg.enable) return;
  const Time now = clock_.Now();
  std::vector<std::string> due;
  for (const WorkloadInfo* wl : engine_.Workloads()) {
    if (wl->state != WorkloadState::kAdmitted || PodsReady(*wl)) continue;
    std::optional<Time> at = AdmittedAt(*wl);
    if (at && now - *at >= cfg.timeout) due.push_back(wl->key);
  }
  for (const std::string& key : due) {
    // Kueue's workload controller: evicted with reason PodsReadyTimeout and
    // requeued after the requeuingStrategy's backoff (or deactivated once
    // backoffLimitCount is exceeded).
    if (!engine_
             .EvictWorkload(key, "PodsReadyTimeout", "Exceeded the PodsReady timeout " + key,
                            /*backoff=*/true)
             .ok()) {
      continue;
    }
    report_.evicted.push_back({key, "PodsReadyTimeout", FormatRfc3339(now)});
    placement_.Release(key);
    placed_at_.erase(key);
  }
}

void StepPlayer::ForgetStopped() {
  for (const WorkloadInfo* wl : engine_.Workloads()) {
    if (wl->holds_quota()) continue;
    placement_.Release(wl->key);
    placed_at_.erase(wl->key);
    if (PodsReady(*wl)) {
      (void)engine_.SetPodsReady(wl->key, false, "WaitForStart",
                                 "Not all pods are ready or succeeded");
    }
  }
}

void StepPlayer::PlacePods() {
  if (placement_.empty()) return;
  std::vector<std::tuple<Time, uint64_t, std::string>> todo;
  for (const WorkloadInfo* wl : engine_.Workloads()) {
    if (wl->state != WorkloadState::kAdmitted) continue;
    const Time at = AdmittedAt(*wl).value_or(clock_.Now());
    auto it = placed_at_.find(wl->key);
    if (it != placed_at_.end() && it->second == at) continue;  // placed for this admission
    if (it != placed_at_.end()) {
      placement_.Release(wl->key);
      placed_at_.erase(it);
    }
    auto order = reserved_order_.find(wl->key);
    todo.emplace_back(at, order == reserved_order_.end() ? 0 : order->second, wl->key);
  }
  std::sort(todo.begin(), todo.end());  // admission order, then name
  const auto& flavors = engine_.state().flavors;
  for (const auto& [at, order, key] : todo) {
    const WorkloadInfo* wl = engine_.FindWorkload(key);
    if (wl == nullptr || !placement_.Place(*wl, flavors)) continue;
    placed_at_[key] = at;
    if (!PodsReady(*wl)) (void)engine_.SetPodsReady(key, true, kReadyReason, kReadyMessage);
  }
}

std::optional<Time> StepPlayer::NextEvent() {
  const api::WaitForPodsReady& cfg = engine_.state().config.wait_for_pods_ready;
  const Time now = clock_.Now();
  std::optional<Time> next;
  auto consider = [&](Time t) {
    if (t > now && (!next || t < *next)) next = t;
  };
  for (const WorkloadInfo* wl : engine_.Workloads()) {
    if (cfg.enable && wl->state == WorkloadState::kAdmitted && !PodsReady(*wl)) {
      if (std::optional<Time> at = AdmittedAt(*wl)) consider(*at + cfg.timeout);
    }
    if (wl->state == WorkloadState::kPending && wl->requeue_at) consider(*wl->requeue_at);
  }
  // A head that waits for a victim's minimum runtime to end.
  if (const std::optional<Time>& wake = engine_.state().protection_wakeup) consider(*wake);
  return next;
}

Status StepPlayer::AdvanceTo(Time t) {
  for (int events = 0;; ++events) {
    std::optional<Time> next = NextEvent();
    if (!next || *next >= t) break;
    if (events == 100000) {
      return Status::Invalid("more than 100000 timed events before " + FormatRfc3339(t));
    }
    clock_.Set(*next);
    Settle(0);
  }
  if (t > clock_.Now()) clock_.Set(t);
  return Status::Ok();
}

std::set<std::string> StepPlayer::Holders() {
  std::set<std::string> out;
  for (const WorkloadInfo* wl : engine_.Workloads()) {
    if (wl->holds_quota()) out.insert(wl->key);
  }
  return out;
}

void StepPlayer::RecordEvictions(const std::set<std::string>& before) {
  const std::string now = FormatRfc3339(clock_.Now());
  for (const std::string& key : before) {
    const WorkloadInfo* wl = engine_.FindWorkload(key);
    if (wl == nullptr || wl->holds_quota() || wl->state == WorkloadState::kFinished) continue;
    std::string reason;
    const api::Condition* ev = api::FindCondition(wl->object.status.conditions, api::kEvicted);
    if (ev != nullptr && ev->status == "True") {
      reason = ev->reason;
    } else if (wl->state == WorkloadState::kInactive) {
      reason = "Deactivated";
    } else {
      reason = wl->pending_reason.empty() ? "Evicted" : wl->pending_reason;
    }
    report_.evicted.push_back({key, reason, now});
  }
}

Status StepPlayer::Apply(const Step& step) {
  const std::string now = FormatRfc3339(clock_.Now());
  auto fail = [&](const Status& st, const std::string& field) {
    return st.WithContext(step.where + ": " + field);
  };
  const std::set<std::string> before = Holders();
  for (const auto& [key, checks] : step.admission_checks) {
    for (const auto& [check, state] : checks) {
      if (engine_.state().admission_checks.count(check) == 0) {
        return fail(Status::NotFound("AdmissionCheck \"" + check + "\" not found"),
                    "admissionChecks[" + key + "][" + check + "]");
      }
      Status st = engine_.SetAdmissionCheckState(key, check, state,
                                                 "Set to " + state + " by the scenario at " + now);
      if (!st.ok()) return fail(st, "admissionChecks[" + key + "][" + check + "]");
    }
  }
  for (const auto& [name, policy] : step.cluster_queue_stop_policy) {
    const auto& cqs = engine_.state().cluster_queues;
    auto it = cqs.find(name);
    const std::string field = "stopPolicy.clusterQueues[" + name + "]";
    if (it == cqs.end()) {
      return fail(Status::NotFound("ClusterQueue \"" + name + "\" not found"), field);
    }
    api::ClusterQueue cq = it->second;
    cq.spec.stop_policy = policy;
    Status st = engine_.Apply(api::Object{api::kKueueV1beta1, "ClusterQueue", std::move(cq)});
    if (!st.ok()) return fail(st, field);
  }
  for (const auto& [key, policy] : step.local_queue_stop_policy) {
    const auto& lqs = engine_.state().local_queues;
    auto it = lqs.find(key);
    const std::string field = "stopPolicy.localQueues[" + key + "]";
    if (it == lqs.end())
      return fail(Status::NotFound("LocalQueue \"" + key + "\" not found"), field);
    api::LocalQueue lq = it->second;
    lq.stop_policy = policy;
    Status st = engine_.Apply(api::Object{api::kKueueV1beta1, "LocalQueue", std::move(lq)});
    if (!st.ok()) return fail(st, field);
  }
  for (size_t i = 0; i < step.finished.size(); ++i) {
    Status st = engine_.FinishWorkload(step.finished[i]);
    if (!st.ok()) return fail(st, "finished[" + std::to_string(i) + "]");
  }
  for (size_t i = 0; i < step.pods_ready.size(); ++i) {
    const std::string& key = step.pods_ready[i];
    const std::string field = "podsReady[" + std::to_string(i) + "]";
    const WorkloadInfo* wl = engine_.FindWorkload(key);
    if (wl == nullptr) return fail(Status::NotFound("Workload \"" + key + "\" not found"), field);
    if (wl->state != WorkloadState::kAdmitted) {
      return fail(Status::Invalid("Workload \"" + key + "\" is not admitted at " + now +
                                  ", so it has no pods to be ready"),
                  field);
    }
    (void)engine_.SetPodsReady(key, true, kReadyReason, kReadyMessage);
  }
  RecordEvictions(before);
  Settle(step.cycles);
  return Status::Ok();
}

}  // namespace kuota::sim
