#include "control/kueue_metrics.h"

#include <array>
#include <map>
#include <string_view>

#include "engine/cluster_queue_node.h"
#include "engine/fair_sharing.h"

namespace kuota::control {
namespace {

using metrics::Labels;
using metrics::MetricFamily;
using metrics::MetricType;
using metrics::Sample;

// Kueue's wait-time buckets: 1, then 2.5 doubling (13 more), in seconds.
std::vector<double> WaitBuckets() {
  std::vector<double> b = {1};
  for (double v : metrics::ExponentialBuckets(2.5, 2, 13)) b.push_back(v);
  return b;
}

// Prometheus' default buckets (Kueue's admission attempt duration).
std::vector<double> DefaultBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

MetricFamily Gauge(std::string name, std::string help) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = MetricType::kGauge;
  return f;
}

void Put(MetricFamily& f, Labels labels, double value) {
  Sample s;
  s.labels = std::move(labels);
  s.value = value;
  f.samples.push_back(std::move(s));
}

// A quantity in milli-units as Kueue reports it: whole units (cores, bytes, GPUs).
double Units(int64_t milli) { return static_cast<double>(milli) / 1000.0; }

// Kueue's weighted share: an integer (x1000), the maximum int64 when infinite.
double ShareValue(const engine::Share& share) {
  return share.infinite ? 9223372036854775807.0 : static_cast<double>(int64_t(share.value));
}

}  // namespace

KueueMetrics::KueueMetrics(metrics::Registry& r) : registry_(r) {
  r.DeclareCounter("kueue_admission_attempts_total",
                   "The total number of attempts to admit workloads. Each admission attempt "
                   "might try to admit more than one workload. result: success (at least one "
                   "workload admitted) or inadmissible (none).",
                   {"result"});
  r.DeclareHistogram("kueue_admission_attempt_duration_seconds",
                     "The latency of an admission attempt, per result.", {"result"},
                     DefaultBuckets());
  r.DeclareCounter("kueue_quota_reserved_workloads_total",
                   "The total number of quota reserved workloads per 'cluster_queue'",
                   {"cluster_queue"});
  r.DeclareHistogram("kueue_quota_reserved_wait_time_seconds",
                     "The time between a workload was created or requeued until it got quota "
                     "reservation, per 'cluster_queue'",
                     {"cluster_queue"}, WaitBuckets());
  r.DeclareCounter("kueue_admitted_workloads_total",
                   "The total number of admitted workloads per 'cluster_queue'", {"cluster_queue"});
  r.DeclareHistogram("kueue_admission_wait_time_seconds",
                     "The time between a workload was created or requeued until admission, per "
                     "'cluster_queue'",
                     {"cluster_queue"}, WaitBuckets());
  r.DeclareCounter("kueue_evicted_workloads_total",
                   "The number of evicted workloads per 'cluster_queue' and 'reason' "
                   "(Preempted, PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped, "
                   "Deactivated)",
                   {"cluster_queue", "reason"});
  r.DeclareCounter("kueue_preempted_workloads_total",
                   "The number of preempted workloads per 'preempting_cluster_queue' and "
                   "'reason' (InClusterQueue, InCohortReclamation, InCohortFairSharing, "
                   "InCohortReclaimWhileBorrowing)",
                   {"preempting_cluster_queue", "reason"});
  r.DeclareCounter("kueue_finished_workloads_total",
                   "The number of finished workloads per 'cluster_queue'", {"cluster_queue"});
  r.DeclareCounter("kueue_replaced_workload_slices_total",
                   "The number of replaced workload slices per 'cluster_queue'", {"cluster_queue"});
  r.DeclareCounter("kueue_local_queue_quota_reserved_workloads_total",
                   "The total number of quota reserved workloads per 'local_queue'",
                   {"name", "namespace"});
  r.DeclareHistogram("kueue_local_queue_quota_reserved_wait_time_seconds",
                     "The time between a workload was created or requeued until it got quota "
                     "reservation, per 'local_queue'",
                     {"name", "namespace"}, WaitBuckets());
  r.DeclareCounter("kueue_local_queue_admitted_workloads_total",
                   "The total number of admitted workloads per 'local_queue'",
                   {"name", "namespace"});
  r.DeclareHistogram("kueue_local_queue_admission_wait_time_seconds",
                     "The time between a workload was created or requeued until admission, per "
                     "'local_queue'",
                     {"name", "namespace"}, WaitBuckets());
  r.DeclareCounter("kueue_local_queue_evicted_workloads_total",
                   "The number of evicted workloads per 'local_queue' and 'reason'",
                   {"name", "namespace", "reason"});
  r.DeclareCounter("kueue_local_queue_finished_workloads_total",
                   "The number of finished workloads per 'local_queue'", {"name", "namespace"});
}

void KueueMetrics::AdmissionAttempt(bool success, double seconds) {
  const std::string result = success ? "success" : "inadmissible";
  registry_.Add("kueue_admission_attempts_total", {result});
  registry_.Observe("kueue_admission_attempt_duration_seconds", {result}, seconds);
}

void KueueMetrics::QuotaReserved(const std::string& cq, const std::string& ns,
                                 const std::string& lq, double wait) {
  registry_.Add("kueue_quota_reserved_workloads_total", {cq});
  registry_.Observe("kueue_quota_reserved_wait_time_seconds", {cq}, wait);
  registry_.Add("kueue_local_queue_quota_reserved_workloads_total", {lq, ns});
  registry_.Observe("kueue_local_queue_quota_reserved_wait_time_seconds", {lq, ns}, wait);
}

void KueueMetrics::Admitted(const std::string& cq, const std::string& ns, const std::string& lq,
                            double wait) {
  registry_.Add("kueue_admitted_workloads_total", {cq});
  registry_.Observe("kueue_admission_wait_time_seconds", {cq}, wait);
  registry_.Add("kueue_local_queue_admitted_workloads_total", {lq, ns});
  registry_.Observe("kueue_local_queue_admission_wait_time_seconds", {lq, ns}, wait);
}

void KueueMetrics::Evicted(const std::string& cq, const std::string& ns, const std::string& lq,
                           const std::string& reason) {
  registry_.Add("kueue_evicted_workloads_total", {cq, reason});
  registry_.Add("kueue_local_queue_evicted_workloads_total", {lq, ns, reason});
}

void KueueMetrics::Preempted(const std::string& preempting_cq, const std::string& reason) {
  registry_.Add("kueue_preempted_workloads_total", {preempting_cq, reason});
}

void KueueMetrics::Finished(const std::string& cq, const std::string& ns, const std::string& lq) {
  registry_.Add("kueue_finished_workloads_total", {cq});
  registry_.Add("kueue_local_queue_finished_workloads_total", {lq, ns});
}

void KueueMetrics::ReplacedSlice(const std::string& cq) {
  registry_.Add("kueue_replaced_workload_slices_total", {cq});
}

void KueueMetrics::Publish(const engine::EngineState& s) {
  MetricFamily pending = Gauge(
      "kueue_pending_workloads",
      "The number of pending workloads, per 'cluster_queue' and 'status' (active: in the "
      "admission queue; inadmissible: a failed admission attempt, not retried until conditions "
      "change)");
  MetricFamily reserving = Gauge("kueue_reserving_active_workloads",
                                 "The number of Workloads that are reserving quota, per "
                                 "'cluster_queue'");
  MetricFamily admitted = Gauge("kueue_admitted_active_workloads",
                                "The number of admitted Workloads that are active (unsuspended "
                                "and not finished), per 'cluster_queue'");
  MetricFamily status = Gauge("kueue_cluster_queue_status",
                              "Reports 'cluster_queue' with its 'status' (pending, active or "
                              "terminating): 1 for its status, 0 for the others");
  MetricFamily reservation = Gauge("kueue_cluster_queue_resource_reservation",
                                   "Reports the cluster_queue's total resource reservation "
                                   "within all the flavors");
  MetricFamily usage = Gauge("kueue_cluster_queue_resource_usage",
                             "Reports the cluster_queue's total resource usage within all the "
                             "flavors");
  MetricFamily nominal = Gauge("kueue_cluster_queue_nominal_quota",
                               "Reports the cluster_queue's resource nominal quota within all "
                               "the flavors");
  MetricFamily borrowing = Gauge("kueue_cluster_queue_borrowing_limit",
                                 "Reports the cluster_queue's resource borrowing limit within "
                                 "all the flavors");
  MetricFamily lending = Gauge("kueue_cluster_queue_lending_limit",
                               "Reports the cluster_queue's resource lending limit within all "
                               "the flavors");
  MetricFamily cq_share = Gauge("kueue_cluster_queue_weighted_share",
                                "The maximum over its resources of the usage above nominal quota "
                                "to the cohort's lendable resources, divided by the weight "
                                "(x1000, as Kueue)");
  MetricFamily cohort_share =
      Gauge("kueue_cohort_weighted_share", "The weighted share of a Cohort, as for ClusterQueues");

  for (const auto& entry : s.tree.cluster_queues()) {
    const std::string& name = entry.first;
    const engine::ClusterQueueNode& cq = *entry.second;
    const std::string cohort = cq.has_parent() ? cq.parent()->name() : "";
    const size_t inadmissible = cq.pending().inadmissible_size();
    Put(pending, {{"cluster_queue", name}, {"status", "active"}},
        static_cast<double>(cq.pending().size() - inadmissible));
    Put(pending, {{"cluster_queue", name}, {"status", "inadmissible"}},
        static_cast<double>(inadmissible));
    int64_t n_admitted = 0;
    std::map<engine::FrId, std::array<int64_t, 2>> used;  // reserved, in use
    for (const engine::WorkloadInfo* wl : cq.admitted()) {
      const bool is_admitted = wl->state == engine::WorkloadState::kAdmitted;
      n_admitted += is_admitted;
      for (const auto& [fr, v] : wl->usage) {
        auto& u = used[fr];
        u[0] += v;
        if (is_admitted) u[1] += v;
      }
    }
    Put(reserving, {{"cluster_queue", name}}, static_cast<double>(cq.admitted().size()));
    Put(admitted, {{"cluster_queue", name}}, static_cast<double>(n_admitted));
    const std::string state = cq.active() ? "active" : "pending";
    for (const char* st : {"pending", "active", "terminating"}) {
      Put(status, {{"cluster_queue", name}, {"status", st}}, state == st ? 1 : 0);
    }
    for (const auto& g : cq.resource_groups()) {
      for (const auto& f : g.flavors) {
        for (size_t i = 0; i < g.covered.size() && i < f.frs.size(); ++i) {
          const Labels labels = {{"cohort", cohort},
                                 {"cluster_queue", name},
                                 {"flavor", f.name},
                                 {"resource", g.covered[i]}};
          const auto& u = used[f.frs[i]];
          Put(reservation, labels, Units(u[0]));
          Put(usage, labels, Units(u[1]));
          const engine::FrQuota& q = cq.quota(f.frs[i]);
          Put(nominal, labels, Units(q.nominal));
          if (q.borrowing_limit) Put(borrowing, labels, Units(*q.borrowing_limit));
          if (q.lending_limit) Put(lending, labels, Units(*q.lending_limit));
        }
      }
    }
    Put(cq_share, {{"cluster_queue", name}}, ShareValue(engine::DominantResourceShare(cq, s.frs)));
  }
  for (const auto& entry : s.tree.cohorts()) {
    Put(cohort_share, {{"cohort", entry.first}},
        ShareValue(engine::DominantResourceShare(*entry.second, s.frs)));
  }

  // LocalQueues.
  MetricFamily lq_pending = Gauge("kueue_local_queue_pending_workloads",
                                  "The number of pending workloads, per 'local_queue' and "
                                  "'status' (active or inadmissible)");
  MetricFamily lq_reserving = Gauge("kueue_local_queue_reserving_active_workloads",
                                    "The number of Workloads that are reserving quota, per "
                                    "'localQueue'");
  MetricFamily lq_admitted = Gauge("kueue_local_queue_admitted_active_workloads",
                                   "The number of admitted Workloads that are active, per "
                                   "'localQueue'");
  MetricFamily lq_status = Gauge("kueue_local_queue_status",
                                 "Reports 'localQueue' with its 'active' status (True, False or "
                                 "Unknown): 1 for its status, 0 for the others");
  MetricFamily lq_reservation = Gauge("kueue_local_queue_resource_reservation",
                                      "Reports the localQueue's total resource reservation "
                                      "within all the flavors");
  MetricFamily lq_usage = Gauge("kueue_local_queue_resource_usage",
                                "Reports the localQueue's total resource usage within all the "
                                "flavors");
  MetricFamily lq_afs = Gauge("kueue_local_queue_admission_fair_sharing_usage",
                              "Reports a value representing the LocalQueue's Admission Fair "
                              "Sharing usage, calculated from the resource-weighted sum of "
                              "consumed resources and pending admission penalties, divided by "
                              "the LocalQueue's fair sharing weight");
  struct LqCounts {
    int64_t active = 0, inadmissible = 0, reserving = 0, admitted = 0;
    std::map<engine::FrId, std::array<int64_t, 2>> used;  // reserved, in use
  };
  // (namespace, name) -> counts; views into the engine's workloads, which
  // outlive this call.
  std::map<std::pair<std::string_view, std::string_view>, LqCounts> lqs;
  for (const auto& [key, wl] : s.workloads) {
    LqCounts& c = lqs[{wl->ns(), wl->object.spec.queue_name}];
    if (wl->state == engine::WorkloadState::kPending && wl->queued_in) {
      if (wl->queued_in->pending().IsInadmissible(wl.get())) {
        c.inadmissible++;
      } else {
        c.active++;
      }
    }
    if (wl->holds_quota()) {
      c.reserving++;
      const bool is_admitted = wl->state == engine::WorkloadState::kAdmitted;
      c.admitted += is_admitted;
      for (const auto& [fr, v] : wl->usage) {
        auto& u = c.used[fr];
        u[0] += v;
        if (is_admitted) u[1] += v;
      }
    }
  }
  const LqCounts none;
  for (const auto& [key, lq] : s.local_queues) {
    const std::string& ns = lq.metadata.namespace_;
    const std::string& name = lq.metadata.name;
    auto found = lqs.find({ns, name});
    const LqCounts& c = found == lqs.end() ? none : found->second;
    Put(lq_pending, {{"name", name}, {"namespace", ns}, {"status", "active"}},
        static_cast<double>(c.active));
    Put(lq_pending, {{"name", name}, {"namespace", ns}, {"status", "inadmissible"}},
        static_cast<double>(c.inadmissible));
    Put(lq_reserving, {{"name", name}, {"namespace", ns}}, static_cast<double>(c.reserving));
    Put(lq_admitted, {{"name", name}, {"namespace", ns}}, static_cast<double>(c.admitted));
    const engine::ClusterQueueNode* cq = s.tree.FindClusterQueue(lq.cluster_queue);
    const bool active = lq.stop_policy == api::StopPolicy::kNone && cq != nullptr && cq->active();
    for (const char* st : {"True", "False", "Unknown"}) {
      Put(lq_status, {{"name", name}, {"namespace", ns}, {"active", st}},
          (active ? std::string("True") : std::string("False")) == st ? 1 : 0);
    }
    if (const auto& afs = s.config.admission_fair_sharing;
        afs && cq != nullptr && cq->spec().usage_based_admission_fair_sharing) {
      const double weight = lq.fair_sharing_weight
                                ? static_cast<double>(lq.fair_sharing_weight->milli()) / 1000.0
                                : 1.0;
      Put(lq_afs, {{"name", name}, {"namespace", ns}, {"cluster_queue", lq.cluster_queue}},
          engine::AfsLedger::Usage(s.afs.Find(key), weight, afs->resource_weights));
    }
    for (const auto& [fr, u] : c.used) {
      const auto& n = s.frs.Name(fr);
      const Labels labels = {
          {"name", name}, {"namespace", ns}, {"flavor", n.flavor}, {"resource", n.resource}};
      Put(lq_reservation, labels, Units(u[0]));
      Put(lq_usage, labels, Units(u[1]));
    }
  }
  registry_.PublishGauges({std::move(pending), std::move(reserving), std::move(admitted),
                           std::move(status), std::move(reservation), std::move(usage),
                           std::move(nominal), std::move(borrowing), std::move(lending),
                           std::move(cq_share), std::move(cohort_share), std::move(lq_pending),
                           std::move(lq_reserving), std::move(lq_admitted), std::move(lq_status),
                           std::move(lq_reservation), std::move(lq_usage), std::move(lq_afs)});
}

}  // namespace kuota::control
