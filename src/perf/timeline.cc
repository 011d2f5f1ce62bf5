#include "perf/timeline.h"

#include <algorithm>

namespace kuota::perf {
namespace {

struct Change {
  int64_t t_us;
  int32_t queue;
  int32_t wl_class;
  int64_t d_usage;
  int32_t d_pending;
  int32_t d_running;
  bool operator<(const Change& o) const { return t_us != o.t_us ? t_us < o.t_us : queue < o.queue; }
};

std::vector<Change> Changes(const Plan& plan, const RunRecord& record) {
  std::vector<Change> out;
  const size_t n = std::min(plan.workloads.size(), record.workloads.size());
  for (size_t i = 0; i < n; ++i) {
    const PlannedWorkload& p = plan.workloads[i];
    const WorkloadRecord& w = record.workloads[i];
    if (w.created_us < 0) continue;
    const int32_t c = p.class_index;
    out.push_back({w.created_us, p.queue, c, 0, +1, 0});
    for (const QuotaHold& h : w.holds) {
      if (h.reserved_us < 0) continue;
      const int32_t q = h.queue >= 0 ? h.queue : p.queue;
      out.push_back({h.reserved_us, q, c, p.total_milli(), 0, +1});
      out.push_back({h.reserved_us, p.queue, c, 0, -1, 0});
      if (h.released_us >= 0) {
        out.push_back({h.released_us, q, c, -p.total_milli(), 0, -1});
        if (!h.finished) out.push_back({h.released_us, p.queue, c, 0, +1, 0});
      }
    }
  }
  std::stable_sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<QueueRow> QueueTimeline(const Plan& plan, const RunRecord& record) {
  std::vector<Change> changes = Changes(plan, record);
  // Group by (millisecond, queue): sort again on the coarser key.
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    const int64_t ta = a.t_us / 1000, tb = b.t_us / 1000;
    return ta != tb ? ta < tb : a.queue < b.queue;
  });
  std::vector<QueueRow> state(plan.queues.size());
  for (size_t q = 0; q < state.size(); ++q) state[q].queue = static_cast<int32_t>(q);
  std::vector<QueueRow> rows;
  for (size_t i = 0; i < changes.size();) {
    const int64_t t_ms = changes[i].t_us / 1000;
    const int32_t q = changes[i].queue;
    QueueRow& s = state[q];
    for (; i < changes.size() && changes[i].t_us / 1000 == t_ms && changes[i].queue == q; ++i) {
      s.usage_milli += changes[i].d_usage;
      s.pending += changes[i].d_pending;
      s.running += changes[i].d_running;
    }
    s.t_ms = t_ms;
    rows.push_back(s);
  }
  return rows;
}

std::vector<TotalsSample> SampleTotals(const Plan& plan, const RunRecord& record, int samples) {
  std::vector<Change> changes = Changes(plan, record);
  int64_t nominal = 0;
  for (const PlannedQueue& q : plan.queues) nominal += q.nominal_milli;
  const int64_t end = std::max<int64_t>(record.end_us, 1);
  const int64_t step = std::max<int64_t>(1000, end / std::max(samples, 1));
  std::vector<TotalsSample> out;
  int64_t usage = 0, pending = 0, running = 0;
  std::vector<int64_t> by_class(plan.workload_classes.size(), 0);
  size_t i = 0;
  for (int64_t t = 0;; t += step) {
    const int64_t at = std::min(t, end);
    for (; i < changes.size() && changes[i].t_us <= at; ++i) {
      usage += changes[i].d_usage;
      pending += changes[i].d_pending;
      running += changes[i].d_running;
      by_class[changes[i].wl_class] += changes[i].d_pending;
    }
    TotalsSample s;
    s.t_s = static_cast<double>(at) / 1e6;
    s.usage_percent =
        nominal > 0 ? static_cast<double>(usage) * 100.0 / static_cast<double>(nominal) : 0;
    s.pending = pending;
    s.running = running;
    s.pending_by_class = by_class;
    out.push_back(std::move(s));
    if (at >= end) break;
  }
  return out;
}

}  // namespace kuota::perf
