#include "engine/scheduler.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "engine/cohort_node.h"
#include "engine/fair_sharing.h"
#include "engine/pod_set_reducer.h"
#include "engine/queue_manager.h"
#include "engine/workload_slice.h"

namespace kuota::engine {
namespace {

constexpr std::string_view kNoCandidatesSuffix =
    "; no workload can be preempted to make room under this ClusterQueue's preemption policy";

// What a blocked head needs for its reservation: its assignment's usage when
// flavors were assigned, else its requests on the first flavor of each
// resource's group (a head that fits nowhere now).
std::vector<std::pair<FrId, int64_t>> ReservationNeed(const WorkloadInfo& wl,
                                                      const ClusterQueueNode& cq,
                                                      const Assignment& a) {
  if (a.mode != Mode::kNoFit && !a.usage.empty()) return a.usage;
  std::map<FrId, int64_t> total;
  for (const PodSetInfo& ps : wl.pod_sets) {
    for (const auto& [res, v] : ps.per_pod) {
      const int g = cq.GroupOf(res);
      if (g < 0) continue;
      const ResourceGroupInfo& group = cq.resource_groups()[static_cast<size_t>(g)];
      if (group.flavors.empty()) continue;
      for (size_t i = 0; i < group.covered.size(); ++i) {
        if (group.covered[i] != res) continue;
        FrId fr = group.flavors.front().frs[i];
        int64_t product = 0;
        if (__builtin_mul_overflow(v, int64_t{ps.count}, &product)) product = INT64_MAX;
        total[fr] = SatAdd(total[fr], product);
      }
    }
  }
  return {total.begin(), total.end()};
}

}  // namespace

struct Scheduler::Entry {
  enum class Status { kNotNominated, kSkipped, kAdmitted, kPendingPreemption };
  enum class Requeue {
    kGeneric,
    kNamespaceMismatch,
    kFailedAfterNomination,
    kPendingPreemption,
    kNoCandidates
  };
  WorkloadInfo* wl = nullptr;
  ClusterQueueNode* cq = nullptr;
  bool inadmissible = false;  // failed before flavor assignment
  Assignment assignment;
  std::vector<PreemptionTarget> targets;
  std::string message;
  Status status = Status::kNotNominated;
  Requeue requeue = Requeue::kGeneric;
  // The head's ordering fields, copied by Nominate while its record is in
  // the cache, so the cycle's sort does not reach into cold records.
  bool preempting = false;
  int32_t priority = 0;
  Time queue_order_time;
  // No victims found while minimum runtimes protected some candidates: the
  // one whose protection ends first, and when (minimum_runtime.h).
  const WorkloadInfo* protected_victim = nullptr;
  Time protected_until;
  // An elastic job's replacement slice: the slice it takes over (its quota
  // and flavors), or null (workload_slice.h).
  WorkloadInfo* replaced = nullptr;
};

Scheduler::Scheduler(EngineState& state)
    : s_(state),
      preemptor_(state.frs, state.config.fair_sharing),
      topology_(state.flavors, state.tas),
      assigner_(state.flavors, state.frs, state.config.fair_sharing, &preemptor_) {
  assigner_.set_topology(&topology_);
}

Scheduler::~Scheduler() = default;

void Scheduler::Nominate(Entry& e) {
  WorkloadInfo& wl = *e.wl;
  ClusterQueueNode& cq = *e.cq;
  e.preempting = wl.preempting;
  e.priority = wl.priority;
  e.queue_order_time = wl.queue_order_time;
  for (const auto& st : wl.object.status.admission_checks) {
    if (st.state == "Retry" || st.state == "Rejected") {
      e.inadmissible = true;
      e.message = "The workload has failed admission checks";
      return;
    }
  }
  // An empty selector matches every namespace: no lookup of the workload's.
  const auto& selector = cq.spec().namespace_selector;
  auto namespace_matches = [&] {
    if (!selector) return false;
    if (selector->empty()) return true;
    static const api::Labels kNoLabels;
    auto ns = s_.namespaces.find(wl.ns());
    return selector->Matches(ns == s_.namespaces.end() ? kNoLabels : ns->second.metadata.labels);
  };
  if (!namespace_matches()) {
    e.inadmissible = true;
    e.requeue = Entry::Requeue::kNamespaceMismatch;
    e.message = "Workload namespace doesn't match ClusterQueue selector";
    return;
  }
  if (!wl.spec_error.empty()) {  // the spec does not change while the workload exists
    e.inadmissible = true;
    e.message = wl.spec_error;
    return;
  }
  AssignAndTarget(e);
}

std::vector<PreemptionTarget> Scheduler::Targets(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                                 const Assignment& a) {
  if (!topology_.active() || !topology_.AnyRequested(wl, cq)) {
    return preemptor_.GetTargets(wl, cq, a.NeedPreemption(), a.usage);
  }
  // Victims must also leave room on the topology (Kueue's workloadFits).
  Assignment scratch = a;
  preemptor_.set_extra_fit([&] { return !topology_.Place(wl, cq, scratch, false).has_value(); });
  std::vector<PreemptionTarget> targets =
      preemptor_.GetTargets(wl, cq, a.NeedPreemption(), a.usage);
  preemptor_.set_extra_fit(nullptr);
  return targets;
}

void Scheduler::PlaceForPreemption(Entry& e) {
  if (e.assignment.mode != Mode::kPreempt || !topology_.active() ||
      !topology_.AnyRequested(*e.wl, *e.cq)) {
    return;
  }
  if (e.targets.empty()) {
    topology_.Place(*e.wl, *e.cq, e.assignment, /*simulate_empty=*/true);
    return;
  }
  for (const auto& t : e.targets) RemoveWorkloadUsage(*t.workload);
  topology_.Place(*e.wl, *e.cq, e.assignment, /*simulate_empty=*/false);
  for (const auto& t : e.targets) AddWorkloadUsage(*t.workload);
}

void Scheduler::AssignAndTarget(Entry& e) {
  WorkloadInfo& wl = *e.wl;
  ClusterQueueNode& cq = *e.cq;
  e.targets.clear();
  e.message.clear();
  e.replaced = ReplacedSlice(s_, wl, cq);
  // The replaced slice is taken over, never preempted: its usage is not in
  // the assignment's, so it is no victim either.
  auto drop_replaced = [&e](std::vector<PreemptionTarget>& targets) {
    if (e.replaced == nullptr) return;
    std::erase_if(targets, [&e](const PreemptionTarget& t) { return t.workload == e.replaced; });
  };
  e.assignment = assigner_.Assign(wl, cq, {}, e.replaced);
  if (e.assignment.mode == Mode::kFit) return;
  if (e.assignment.mode == Mode::kPreempt) {
    e.targets = Targets(wl, cq, e.assignment);
    drop_replaced(e.targets);
    e.protected_victim = e.targets.empty() ? preemptor_.protected_victim() : nullptr;
    e.protected_until = preemptor_.protected_until();
    if (!e.targets.empty()) {
      PlaceForPreemption(e);
      return;
    }
  }
  // Partial admission: shrink pod sets with minCount as little as needed.
  if (PodSetReducer::CanReduce(wl.pod_sets)) {
    PodSetReducer reducer(wl.pod_sets);
    auto attempt = [&](const std::vector<int32_t>& counts, Assignment* a,
                       std::vector<PreemptionTarget>* t) {
      *a = assigner_.Assign(wl, cq, counts, e.replaced);
      t->clear();
      if (a->mode == Mode::kFit) return true;
      if (a->mode == Mode::kPreempt) {
        *t = Targets(wl, cq, *a);
        drop_replaced(*t);
        return !t->empty();
      }
      return false;
    };
    Assignment a;
    std::vector<PreemptionTarget> t;
    auto counts = reducer.Reduce([&](const std::vector<int32_t>& c) { return attempt(c, &a, &t); });
    if (counts) {
      attempt(*counts, &e.assignment, &e.targets);
      PlaceForPreemption(e);
      return;
    }
  }
  PlaceForPreemption(e);
  // A Preempt without victims gets a suffix in Process: room for it now.
  e.message =
      e.assignment.Message(e.assignment.mode == Mode::kPreempt ? kNoCandidatesSuffix.size() : 0);
}

bool Scheduler::Backfill(Entry& e, bool blocked) {
  ClusterQueueNode& cq = *e.cq;
  Reservation& r = cq.reservation();
  if (!r.holder.empty()) {
    const WorkloadInfo* holder = s_.FindWorkload(r.holder);
    if (holder == nullptr || holder->state != WorkloadState::kPending || holder->queued_in != &cq) {
      r = Reservation{};
    }
  }
  if (blocked) {
    // The first blocked head in queue order holds the reservation.
    const bool first = r.holder.empty() || r.holder == e.wl->key || e.priority > r.priority ||
                       (e.priority == r.priority && e.queue_order_time < r.order_time);
    if (first) r = Reserve(*e.wl, cq, ReservationNeed(*e.wl, cq, e.assignment), cycle_now_);
    return true;
  }
  std::string why;
  if (BackfillAllows(r, *e.wl, cq, e.assignment.usage, cycle_now_, &why)) return true;
  e.message = std::move(why);
  return false;
}

void Scheduler::NoteReservation(Entry& e) {
  const Reservation& r = e.cq->reservation();
  if (r.holder != e.wl->key) return;
  e.message += "; capacity is reserved for it (kuota.dev/backfill): " + DescribeReservationStart(r);
}

void Scheduler::ReserveTopology(const Assignment& a) {
  for (const auto& p : a.pod_sets) {
    if (!p.topology) continue;
    AddTopologyUsage(p.topology->usage);
    cycle_tas_.insert(cycle_tas_.end(), p.topology->usage.begin(), p.topology->usage.end());
  }
}

bool Scheduler::FitsAfterRemovals(const ClusterQueueNode& cq, const FrUsage& usage,
                                  const std::vector<WorkloadInfo*>& extra,
                                  const Assignment* topology) const {
  std::vector<WorkloadInfo*> removed(preempted_);
  removed.insert(removed.end(), extra.begin(), extra.end());
  std::sort(removed.begin(), removed.end());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  for (WorkloadInfo* w : removed) RemoveWorkloadUsage(*w);
  bool fits = true;
  for (const auto& [fr, v] : usage) {
    if (v > std::max<int64_t>(0, cq.Available(fr))) fits = false;
  }
  if (fits && topology != nullptr) fits = topology_.StillFits(*topology);
  for (WorkloadInfo* w : removed) AddWorkloadUsage(*w);
  return fits;
}

void Scheduler::Process(Entry& e, CycleResult& out) {
  if (e.inadmissible) return;
  ClusterQueueNode& cq = *e.cq;
  // Kueue's TASRecomputeAssignmentWithinSchedulingCycle: heads nominated
  // side by side may have picked the same nodes; one whose quota still fits
  // but whose placement no longer does is assigned again.
  if (TopologyAssigner::HasTopology(e.assignment)) {
    std::vector<WorkloadInfo*> mine;
    for (const auto& t : e.targets) mine.push_back(t.workload);
    if (FitsAfterRemovals(cq, e.assignment.usage, mine) &&
        !FitsAfterRemovals(cq, e.assignment.usage, mine, &e.assignment)) {
      AssignAndTarget(e);
    }
  }
  const Mode mode = e.assignment.mode;
  const bool blocked = mode == Mode::kNoFit || (mode == Mode::kPreempt && e.targets.empty());
  if (cq.backfill().on && !Backfill(e, blocked)) return;
  if (mode == Mode::kNoFit) {
    if (cq.backfill().on) NoteReservation(e);
    return;
  }
  if (mode == Mode::kPreempt && e.targets.empty()) {
    e.requeue = Entry::Requeue::kNoCandidates;
    e.message += kNoCandidatesSuffix;
    if (cq.backfill().on) NoteReservation(e);
    if (const WorkloadInfo* p = e.protected_victim) {
      // Kuota's own sentence: whom it waits for, and until when (an instant,
      // not a countdown: the message stands until the next attempt).
      const int64_t total = p->minimum_runtime_ms >= 0  ? p->minimum_runtime_ms
                            : p->admitted_in != nullptr ? p->admitted_in->minimum_runtime().ms
                                                        : 0;
      e.message += "; waiting for " + p->key + " to reach its " + FormatMinimumRuntime(total) +
                   " minimum runtime (at " + FormatRfc3339(e.protected_until) + ")";
      if (!s_.protection_wakeup || e.protected_until < *s_.protection_wakeup) {
        s_.protection_wakeup = e.protected_until;
      }
    }
    if (cq.spec().preemption.reclaim_within_cohort != api::ReclaimWithinCohortPolicy::kAny) {
      taken_by_.emplace_back(e.wl, QuotaTree::Root(&cq));
      ReserveTopology(e.assignment);
      // Hold back the capacity this workload could reclaim, so that others
      // processed later in the cycle cannot borrow it.
      const size_t first = cycle_usage_.size();
      for (const auto& [fr, v] : e.assignment.usage) {
        const FrQuota& q = cq.quota(fr);
        int64_t r;
        if (e.assignment.borrowing > 0) {
          r = q.borrowing_limit
                  ? std::min(v, SatSub(SatAdd(q.nominal, *q.borrowing_limit), cq.usage(fr)))
                  : v;
        } else {
          r = std::min(v, q.nominal - cq.usage(fr));
        }
        r = std::max<int64_t>(0, r);
        if (r > 0) cycle_usage_.push_back({&cq, fr, r});
      }
      for (size_t i = first; i < cycle_usage_.size(); ++i) {
        cq.AddUsage(cycle_usage_[i].fr, cycle_usage_[i].value);
      }
    }
    return;
  }
  if (e.replaced != nullptr &&
      (!e.replaced->holds_quota() ||
       std::find(preempted_.begin(), preempted_.end(), e.replaced) != preempted_.end())) {
    // The slice it was to take over lost its quota earlier in this cycle:
    // it is assigned again, needing its full quota, next time.
    e.status = Entry::Status::kSkipped;
    e.requeue = Entry::Requeue::kFailedAfterNomination;
    e.message = "The workload slice it replaces (" + e.replaced->key +
                ") was preempted earlier in this cycle";
    return;
  }
  std::vector<WorkloadInfo*> mine;
  for (const auto& t : e.targets) mine.push_back(t.workload);
  for (WorkloadInfo* w : mine) {
    if (std::find(preempted_.begin(), preempted_.end(), w) != preempted_.end()) {
      e.status = Entry::Status::kSkipped;
      e.requeue = Entry::Requeue::kFailedAfterNomination;
      e.message = "Workload has overlapping preemption targets with another workload";
      return;
    }
  }
  if (!FitsAfterRemovals(cq, e.assignment.usage, mine, &e.assignment)) {
    e.status = Entry::Status::kSkipped;
    e.requeue = Entry::Requeue::kFailedAfterNomination;
    e.message = "Workload no longer fits after processing another workload";
    // Appended in place, sized first: a busy tree lists many workloads.
    const QuotaNode* my_root = QuotaTree::Root(&cq);
    size_t size = 0;
    for (const auto& [w, root] : taken_by_) {
      if (root == my_root) size += w->key.size() + 2;
    }
    if (size > 0) {
      constexpr std::string_view kTaken = " (capacity taken earlier in this cycle by ";
      e.message.reserve(e.message.size() + kTaken.size() + size);
      e.message += kTaken;
      bool first = true;
      for (const auto& [w, root] : taken_by_) {
        if (root != my_root) continue;
        if (!first) e.message += ", ";
        first = false;
        e.message += w->key;
      }
      e.message += ')';
    }
    return;
  }
  preempted_.insert(preempted_.end(), mine.begin(), mine.end());
  taken_by_.emplace_back(e.wl, QuotaTree::Root(&cq));
  if (mode == Mode::kPreempt) {
    for (const auto& [fr, v] : e.assignment.usage) {
      cq.AddUsage(fr, v);
      cycle_usage_.push_back({&cq, fr, v});
    }
    ReserveTopology(e.assignment);
    for (const auto& t : e.targets) {
      PreemptionDecision d;
      d.workload = t.workload->key;
      d.preemptor = e.wl->key;
      d.reason = t.reason;
      std::string why = t.reason == "InClusterQueue"        ? "prioritization in the ClusterQueue"
                        : t.reason == "InCohortFairSharing" ? "Fair Sharing within the cohort"
                        : t.reason == "InCohortReclaimWhileBorrowing"
                            ? "reclamation within the cohort while borrowing"
                            : "reclamation within the cohort";
      d.message = "Preempted to accommodate a workload (" +
                  (e.wl->uid().empty() ? "" : "UID: " + e.wl->uid() + ", ") + "name: " + e.wl->key +
                  ") due to " + why;
      out.preempted.push_back(std::move(d));
    }
    e.message = e.assignment.Message();
    if (e.message.empty()) e.message = "Needs preemption";
    e.message += ". Pending the preemption of " + std::to_string(e.targets.size()) + " workload(s)";
    e.status = Entry::Status::kPendingPreemption;
    e.requeue = Entry::Requeue::kPendingPreemption;
    return;
  }
  Admit(e, out);
}

void Scheduler::Admit(Entry& e, CycleResult& out) {
  const Time now = cycle_now_;
  std::vector<PodSetAdmission> admission;
  std::vector<TasUse> tas_usage;
  for (const auto& psa : e.assignment.pod_sets) {
    if (psa.topology) {
      tas_usage.insert(tas_usage.end(), psa.topology->usage.begin(), psa.topology->usage.end());
    }
    PodSetAdmission a;
    a.name = psa.name;
    a.count = psa.count;
    for (const auto& [res, ra] : psa.flavors) {
      a.flavors[res] = ra.flavor;
      a.usage.emplace_back(res, ra.value);
    }
    admission.push_back(std::move(a));
  }
  WorkloadInfo& wl = *e.wl;
  wl.preempting = false;
  if (const auto& afs = s_.config.admission_fair_sharing;
      afs && e.cq->spec().usage_based_admission_fair_sharing) {
    std::vector<std::pair<std::string, int64_t>> total;
    for (const auto& a : admission) total.insert(total.end(), a.usage.begin(), a.usage.end());
    s_.afs.AddPenalty(wl.ns() + "/" + wl.object.spec.queue_name, total, *afs, now);
  }
  if (e.replaced != nullptr) {
    // Kueue's replaceWorkloadSlice: the old slice is finished as the new one
    // is admitted; its quota goes as the new slice's comes.
    FinishReplacedSlice(s_, e.replaced, wl, now);
    out.replaced.push_back(e.replaced->key);
  }
  HoldQuota(s_, &wl, e.cq, std::move(admission));
  wl.tas_usage = std::move(tas_usage);
  AddTopologyUsage(wl.tas_usage);
  wl.quota_reserved_at = now;
  auto& st = wl.object.status;
  api::Admission adm;
  adm.cluster_queue = e.cq->name();
  for (const auto& a : wl.admission) {
    api::PodSetAssignment psa;
    psa.name = a.name;
    psa.count = a.count;
    psa.flavors = a.flavors;
    for (const auto& [r, v] : a.usage) psa.resource_usage[r] = api::Quantity::FromMilli(v);
    for (const auto& p : e.assignment.pod_sets) {
      if (p.name == a.name && p.topology) psa.topology_assignment = p.topology->assignment;
    }
    adm.pod_set_assignments.push_back(std::move(psa));
  }
  st.admission = std::move(adm);
  SetCondition(st.conditions, api::kQuotaReserved, "True", "QuotaReserved",
               "Quota reserved in ClusterQueue " + e.cq->name(), now);
  for (const char* t : {api::kEvicted, api::kPreempted}) {
    if (const api::Condition* c = api::FindCondition(st.conditions, t); c && c->status == "True") {
      SetCondition(st.conditions, t, "False", "QuotaReserved", "Previously: " + c->message, now);
    }
  }
  const bool admitted = wl.state == WorkloadState::kAdmitted;
  if (admitted) {
    SetCondition(st.conditions, api::kAdmitted, "True", "Admitted", "The workload is admitted",
                 now);
  } else {
    SetCondition(st.conditions, api::kAdmitted, "False", "UnsatisfiedChecks",
                 "The workload has not all checks ready", now);
  }
  e.status = Entry::Status::kAdmitted;
  out.admitted.push_back({wl.key, e.cq->name(), admitted});
}

void Scheduler::Requeue(Entry& e) {
  WorkloadInfo& wl = *e.wl;
  const Time now = cycle_now_;
  wl.pending_reason = "Pending";
  // The message is kept once, on the condition (e is done with it).
  SetConditionTakingMessage(wl.object.status.conditions, api::kQuotaReserved, "False", "Pending",
                            std::move(e.message), now);
  wl.set_pending_message_on_condition();
  bool immediate;
  if (e.cq->spec().queueing_strategy == api::QueueingStrategy::kStrictFIFO) {
    immediate = e.requeue != Entry::Requeue::kNamespaceMismatch;
  } else {
    immediate = e.requeue == Entry::Requeue::kFailedAfterNomination ||
                e.requeue == Entry::Requeue::kPendingPreemption;
  }
  wl.queued_in = e.cq;
  wl.preempting = e.requeue == Entry::Requeue::kPendingPreemption;
  if (wl.preempting) {
    e.cq->pending().PushPinned(&wl);  // first in line for the capacity it freed
  } else if (immediate) {
    e.cq->pending().Push(&wl);
  } else {
    e.cq->pending().PushInadmissible(&wl);
  }
}

void Scheduler::Evict(WorkloadInfo* victim, const PreemptionDecision& d) {
  const Time now = cycle_now_;
  ClusterQueueNode* cq = victim->admitted_in;
  ReturnToPending(s_, victim, "Preempted", "Pending", d.message,
                  /*always_write_admitted=*/false, now);
  auto& st = victim->object.status;
  SetCondition(st.conditions, api::kPreempted, "True", d.reason, d.message, now);
  SetCondition(st.conditions, api::kRequeued, "True", "Preempted", d.message, now);
  victim->pending_reason = "Preempted";
  RouteWorkload(s_, victim);
  FlushInadmissible(s_, cq);
}

WorkloadInfo* Scheduler::PopHead(ClusterQueueNode& cq) {
  const auto& afs = s_.config.admission_fair_sharing;
  if (!afs || !cq.spec().usage_based_admission_fair_sharing) {
    return cq.pending().PopLeavingRecord();
  }
  std::map<std::string, double> usage;  // by LocalQueue, for this pop
  auto usage_of = [&](const WorkloadInfo* wl) {
    std::string key = wl->ns() + "/" + wl->object.spec.queue_name;
    if (auto it = usage.find(key); it != usage.end()) return it->second;
    double weight = 1;
    if (auto lq = s_.local_queues.find(key);
        lq != s_.local_queues.end() && lq->second.fair_sharing_weight) {
      weight = static_cast<double>(lq->second.fair_sharing_weight->milli()) / 1000.0;
    }
    const double u = AfsLedger::Usage(s_.afs.Find(key), weight, afs->resource_weights);
    usage.emplace(std::move(key), u);
    return u;
  };
  return cq.pending().PopLeavingRecordBy([&](const WorkloadInfo* a, const WorkloadInfo* b) {
    const double ua = usage_of(a), ub = usage_of(b);
    if (ua != ub) return ua < ub;
    if (a->slot_priority != b->slot_priority) return a->slot_priority > b->slot_priority;
    if (a->slot_time != b->slot_time) return a->slot_time < b->slot_time;
    return a->seq < b->seq;
  });
}

void Scheduler::SampleAdmissionFairSharing(Time now) {
  const api::AdmissionFairSharingConfig& cfg = *s_.config.admission_fair_sharing;
  bool due = false;
  for (const auto& [key, e] : s_.afs.entries()) {
    due = due || now.unix_ms - e.last_update.unix_ms >= cfg.usage_sampling_interval.ms;
  }
  if (!due) return;
  std::map<std::string, std::map<std::string, int64_t>> admitted;  // LocalQueue -> usage
  for (const auto& [key, wl] : s_.workloads) {
    if (!wl->holds_quota()) continue;
    auto& sum = admitted[wl->ns() + "/" + wl->object.spec.queue_name];
    for (const auto& a : wl->admission) {
      for (const auto& [res, v] : a.usage) sum[res] = SatAdd(sum[res], v);
    }
  }
  s_.afs.Sample(now, cfg, admitted);
}

CycleResult Scheduler::RunCycle() {
  CycleResult out;
  preempted_.clear();
  taken_by_.clear();
  cycle_usage_.clear();
  const Time now = s_.clock.Now();
  cycle_now_ = now;
  if (s_.config.admission_fair_sharing) SampleAdmissionFairSharing(now);
  // Minimum runtime before preemption: on when anything asks for it; heads
  // that waited for a protection to end are offered again once it has.
  bool minimum_runtime_on = false;
  for (const auto& [name, cq] : s_.tree.cluster_queues()) {
    minimum_runtime_on = minimum_runtime_on || cq->minimum_runtime().ms > 0;
  }
  for (const auto& [name, wpc] : s_.workload_priority_classes) {
    minimum_runtime_on =
        minimum_runtime_on || wpc.metadata.annotations.count(kMinimumRuntimeAnnotation) > 0;
  }
  preemptor_.set_minimum_runtime(minimum_runtime_on, now);
  if (s_.protection_wakeup && now >= *s_.protection_wakeup) {
    s_.protection_wakeup.reset();
    for (const auto& [name, cq] : s_.tree.cluster_queues()) cq->pending().QueueInadmissible();
  }
  // Reused across cycles: its buffer (one entry per ClusterQueue) is not
  // allocated and freed every cycle.
  std::vector<Entry>& entries = entries_;
  entries.clear();
  // The queues are cold with many ClusterQueues: the one two ahead is asked
  // for its heap's top while this one pops.
  const auto& cqs = s_.tree.cluster_queues();
  auto ahead = cqs.begin();
  for (int k = 0; k < 2 && ahead != cqs.end(); ++k) ++ahead;
  for (const auto& [name, cq] : cqs) {
    if (ahead != cqs.end()) {
      ahead->second->pending().PrefetchHead();
      ++ahead;
    }
    cq->pending().ReleaseExpiredBackoff(now);
    if (!cq->active()) continue;
    // The head's record is written (taken, no longer queued) in the
    // nominate loop below, where it is fetched ahead.
    WorkloadInfo* wl = PopHead(*cq);
    if (wl == nullptr) continue;
    Entry e;
    e.wl = wl;
    e.cq = cq.get();
    entries.push_back(std::move(e));
  }
  out.heads = static_cast<int>(entries.size());
  // No workload starts or stops holding quota while heads are nominated.
  preemptor_.holders().Freeze();
  // Each head's pod sets are cold in the cache (100,000 workloads): fetch
  // the next heads' while this one is nominated.
  // Three stages, so that no address is loaded before its line was asked
  // for: the workload's fields, its queue slot (written: taken from the
  // queue) and its admission checks' states (i + 3), its pod sets (i + 2),
  // the first pod set's requests (i + 1).
  const size_t n = entries.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + 3 < n) {
      __builtin_prefetch(&entries[i + 3].wl->pod_sets);
      __builtin_prefetch(&entries[i + 3].wl->slot, 1);
      __builtin_prefetch(&entries[i + 3].wl->object.status.admission_checks);
    }
    if (i + 2 < n) __builtin_prefetch(entries[i + 2].wl->pod_sets.data());
    if (i + 1 < n && !entries[i + 1].wl->pod_sets.empty()) {
      // A request is 40 bytes: a pod's usual three span two lines (the
      // second asked for only where the requests reach it).
      const auto& reqs = entries[i + 1].wl->pod_sets.front().per_pod;
      const char* first = reinterpret_cast<const char*>(reqs.data());
      __builtin_prefetch(first);
      if (reqs.size() * sizeof(reqs[0]) > 64) __builtin_prefetch(first + 64);
    }
    PendingQueue::Taken(entries[i].wl);
    entries[i].wl->queued_in = nullptr;
    Nominate(entries[i]);
  }
  preemptor_.holders().Thaw();

  if (s_.config.fair_sharing.enable) {
    while (true) {
      auto order = FairSharingOrder(entries);  // recomputed: admissions change shares
      if (order.empty()) break;
      Process(*order.front(), out);
      processed_.insert(order.front());
    }
    processed_.clear();
  } else {
    std::vector<Entry*> order;
    for (auto& e : entries) order.push_back(&e);
    std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
      if (a->preempting != b->preempting) return a->preempting;
      if (a->assignment.borrowing != b->assignment.borrowing) {
        return a->assignment.borrowing < b->assignment.borrowing;
      }
      if (a->priority != b->priority) return a->priority > b->priority;
      if (a->queue_order_time != b->queue_order_time) {
        return a->queue_order_time < b->queue_order_time;
      }
      return a->wl->key < b->wl->key;
    });
    for (Entry* e : order) Process(*e, out);
  }

  for (const auto& u : cycle_usage_) u.cq->RemoveUsage(u.fr, u.value);
  cycle_usage_.clear();
  RemoveTopologyUsage(cycle_tas_);
  cycle_tas_.clear();
  out.pending.reserve(entries.size());
  for (size_t i = 0; i < n; ++i) {
    // The conditions and pending reason Requeue writes are cold: asked for
    // two heads ahead.
    if (i + 2 < n) {
      __builtin_prefetch(&entries[i + 2].wl->object.status.conditions);
      __builtin_prefetch(&entries[i + 2].wl->pending_reason, 1);
    }
    Entry& e = entries[i];
    if (e.status == Entry::Status::kAdmitted) continue;
    Requeue(e);
    out.pending.push_back(PendingDecision{e.wl});
  }
  for (const auto& d : out.preempted) {
    if (WorkloadInfo* victim = s_.FindWorkload(d.workload); victim && victim->holds_quota()) {
      Evict(victim, d);
    }
  }
  preempted_.clear();
  entries.clear();
  return out;
}

std::vector<Scheduler::Entry*> Scheduler::FairSharingOrder(std::vector<Entry>& entries) {
  // Candidates: entries not yet processed and not inadmissible.
  std::vector<Entry*> live;
  for (auto& e : entries) {
    if (!e.inadmissible && processed_.count(&e) == 0) live.push_back(&e);
  }
  if (live.empty()) return {};
  for (Entry* e : live) {
    if (e->wl->preempting) return {e};  // its victims were evicted for it
  }
  Entry* first = live.front();
  if (!first->cq->has_parent()) return {first};
  const QuotaNode* root = QuotaTree::Root(first->cq);
  std::map<const ClusterQueueNode*, Entry*> by_cq;
  for (Entry* e : live) {
    if (QuotaTree::Root(e->cq) == root) by_cq[e->cq] = e;
  }
  // Shares each entry would give each subtree on its path, if admitted.
  struct Score {
    Share share;
    bool borrowing = false;
  };
  std::map<std::pair<const QuotaNode*, Entry*>, Score> score;
  for (auto& [cq, e] : by_cq) {
    for (const auto& [fr, v] : e->assignment.usage) e->cq->AddUsage(fr, v);
    const QuotaNode* child = e->cq;
    for (const QuotaNode* a = e->cq->parent(); a != nullptr; a = a->parent()) {
      Score sc;
      sc.share = DominantResourceShare(*child, s_.frs);
      for (const auto& [fr, v] : e->assignment.usage) {
        sc.borrowing = sc.borrowing || child->usage(fr) > child->subtree_quota(fr);
      }
      score[{a, e}] = sc;
      child = a;
    }
    for (const auto& [fr, v] : e->assignment.usage) e->cq->RemoveUsage(fr, v);
  }
  std::function<Entry*(const CohortNode*)> tournament = [&](const CohortNode* c) -> Entry* {
    std::vector<Entry*> cands;
    for (const CohortNode* child : c->child_cohorts()) {
      if (Entry* w = tournament(child)) cands.push_back(w);
    }
    for (const ClusterQueueNode* x : c->child_cluster_queues()) {
      auto it = by_cq.find(x);
      if (it != by_cq.end()) cands.push_back(it->second);
    }
    Entry* best = nullptr;
    for (Entry* cand : cands) {
      if (best == nullptr) {
        best = cand;
        continue;
      }
      const Score& a = score[{c, cand}];
      const Score& b = score[{c, best}];
      bool less;
      if (a.borrowing != b.borrowing) {
        less = !a.borrowing;
      } else if (int cmp = CompareShare(a.share, b.share); cmp != 0) {
        less = cmp < 0;
      } else if (cand->wl->priority != best->wl->priority) {
        less = cand->wl->priority > best->wl->priority;
      } else if (cand->wl->queue_order_time != best->wl->queue_order_time) {
        less = cand->wl->queue_order_time < best->wl->queue_order_time;
      } else {
        less = cand->wl->key < best->wl->key;
      }
      if (less) best = cand;
    }
    return best;
  };
  Entry* winner = tournament(static_cast<const CohortNode*>(root));
  if (winner == nullptr) return {first};
  return {winner};
}

}  // namespace kuota::engine
