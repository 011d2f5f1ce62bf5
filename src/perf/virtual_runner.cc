#include "perf/virtual_runner.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

#include "base/clock.h"
#include "engine/engine.h"
#include "perf/process_usage.h"

namespace kuota::perf {
namespace {

// A workload due to finish: its plan index and which of its holds.
struct FinishAt {
  int64_t t_ms;
  int32_t workload;
  int32_t hold;
  bool operator>(const FinishAt& o) const {
    return t_ms != o.t_ms ? t_ms > o.t_ms : workload > o.workload;
  }
};

// Where the engine placed a workload's pods (its first pod set with a
// topology assignment), or nothing.
std::optional<Placement> PlacementOf(const engine::WorkloadInfo* wl) {
  if (wl == nullptr || !wl->object.status.admission) return std::nullopt;
  for (const api::PodSetAssignment& psa : wl->object.status.admission->pod_set_assignments) {
    if (!psa.topology_assignment) continue;
    Placement p;
    p.levels = psa.topology_assignment->levels;
    for (const api::TopologyDomainAssignment& d : psa.topology_assignment->domains) {
      p.domains.push_back({d.values, d.count});
    }
    return p;
  }
  return std::nullopt;
}

// The virtual clock starts at a fixed instant so runs are reproducible.
const Time kEpoch = Time::FromSeconds(1767225600);  // 2026-01-01T00:00:00Z

}  // namespace

Result<RunRecord> RunVirtual(const Plan& plan, const VirtualOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = SelfCpuSeconds();
  ManualClock clock(kEpoch);
  engine::Engine engine(clock);

  if (plan.topology) {
    KUOTA_RETURN_IF_ERROR(engine.Apply(TopologyObject(plan)));
    for (const PlannedNode& node : plan.nodes) {
      KUOTA_RETURN_IF_ERROR(engine.Apply(NodeObject(plan, node)));
    }
  }
  KUOTA_RETURN_IF_ERROR(engine.Apply(FlavorObject(plan)));
  std::unordered_map<std::string, int32_t> queue_index;
  for (size_t q = 0; q < plan.queues.size(); ++q) {
    KUOTA_RETURN_IF_ERROR(engine.Apply(NamespaceObject(plan.queues[q])));
    KUOTA_RETURN_IF_ERROR(engine.Apply(ClusterQueueObject(plan, plan.queues[q])));
    KUOTA_RETURN_IF_ERROR(engine.Apply(LocalQueueObject(plan.queues[q])));
    queue_index[plan.queues[q].name] = static_cast<int32_t>(q);
  }
  const size_t n = plan.workloads.size();
  std::unordered_map<std::string, int32_t> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) index[plan.Key(plan.workloads[i])] = static_cast<int32_t>(i);

  RunRecord rec;
  rec.mode = "virtual";
  rec.workloads.resize(n);
  std::priority_queue<FinishAt, std::vector<FinishAt>, std::greater<FinishAt>> finishes;
  size_t next = 0;
  size_t finished = 0;
  int64_t now_ms = 0;
  while (finished < n) {
    int64_t t = std::numeric_limits<int64_t>::max();
    if (next < n) t = plan.workloads[next].create_at_ms;
    if (!finishes.empty()) t = std::min(t, finishes.top().t_ms);
    if (t == std::numeric_limits<int64_t>::max()) {
      rec.stop_reason = std::to_string(n - finished) +
                        " workloads can never be admitted (nothing left that would free quota)";
      break;
    }
    if (t > options.max_virtual_ms) {
      rec.stop_reason = "virtual time passed " + std::to_string(options.max_virtual_ms) + " ms";
      break;
    }
    now_ms = t;
    clock.Set(kEpoch + Duration{t});
    const int64_t t_us = t * 1000;
    // Finishes release quota before this instant's arrivals are queued.
    while (!finishes.empty() && finishes.top().t_ms == t) {
      const FinishAt f = finishes.top();
      finishes.pop();
      WorkloadRecord& w = rec.workloads[f.workload];
      if (f.hold + 1 != static_cast<int32_t>(w.holds.size()) || w.holds.back().released_us >= 0) {
        continue;  // evicted since; its readmission scheduled a new finish
      }
      KUOTA_RETURN_IF_ERROR(engine.FinishWorkload(plan.Key(plan.workloads[f.workload])));
      QuotaHold& h = w.holds.back();
      h.released_us = h.sched_end_us = t_us;
      h.finished = true;
      w.finished_us = t_us;
      w.finishes++;
      finished++;
    }
    while (next < n && plan.workloads[next].create_at_ms == t) {
      KUOTA_RETURN_IF_ERROR(engine.Apply(WorkloadObject(plan, plan.workloads[next])));
      WorkloadRecord& w = rec.workloads[next];
      w.created_us = t_us;
      w.creations++;
      ++next;
    }
    // Schedule until a cycle changes nothing, as kuotad does.
    for (;;) {
      engine::CycleResult r = engine.RunCycle();
      rec.cycles++;
      for (const engine::PreemptionDecision& p : r.preempted) {
        auto it = index.find(p.workload);
        if (it == index.end()) continue;
        WorkloadRecord& w = rec.workloads[it->second];
        w.evictions++;
        if (!w.holds.empty() && w.holds.back().released_us < 0) {
          w.holds.back().released_us = w.holds.back().sched_end_us = t_us;
        }
      }
      for (const engine::AdmissionDecision& a : r.admitted) {
        auto it = index.find(a.workload);
        if (it == index.end()) continue;
        const int32_t i = it->second;
        WorkloadRecord& w = rec.workloads[i];
        QuotaHold h;
        auto q = queue_index.find(a.cluster_queue);
        h.queue = q == queue_index.end() ? -1 : q->second;
        h.reserved_us = h.sched_start_us = t_us;
        if (a.admitted) {
          h.admitted_us = t_us;
          w.admissions++;
        }
        if (plan.topology) h.placement = PlacementOf(engine.FindWorkload(a.workload));
        w.holds.push_back(h);
        finishes.push(
            {t + plan.workloads[i].runtime_ms, i, static_cast<int32_t>(w.holds.size() - 1)});
      }
      if (r.admitted.empty() && r.preempted.empty()) break;
    }
  }
  rec.completed = finished == n;
  rec.end_us = now_ms * 1000;
  rec.schedule_start_us = 0;
  rec.wall_us =
      rec.end_us;  // virtual wall time: the schedule as a zero-latency control plane runs it
  rec.runner_cpu_s = SelfCpuSeconds() - cpu_start;
  rec.setup_us = 0;
  rec.real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return rec;
}

}  // namespace kuota::perf
