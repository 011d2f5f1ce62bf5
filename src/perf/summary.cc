#include "perf/summary.h"

#include <algorithm>
#include <cmath>

namespace kuota::perf {
namespace {

double Ms(int64_t us) { return static_cast<double>(us) / 1000.0; }

int64_t AdmittedAt(const QuotaHold& h) {
  return h.admitted_us >= 0 ? h.admitted_us : h.reserved_us;
}

}  // namespace

double TimeToAdmissionMs(const WorkloadRecord& w) {
  for (auto it = w.holds.rbegin(); it != w.holds.rend(); ++it) {
    if (AdmittedAt(*it) >= 0 && w.created_us >= 0) return Ms(AdmittedAt(*it) - w.created_us);
  }
  return -1;
}

double TimeToFirstAdmissionMs(const WorkloadRecord& w) {
  for (const QuotaHold& h : w.holds) {
    if (AdmittedAt(h) >= 0 && w.created_us >= 0) return Ms(AdmittedAt(h) - w.created_us);
  }
  return -1;
}

Summary Summarize(const Plan& plan, const RunRecord& record) {
  Summary s;
  s.mode = record.mode;
  s.workloads = static_cast<int64_t>(plan.workloads.size());
  s.cluster_queues = static_cast<int64_t>(plan.queues.size());
  s.cohorts = static_cast<int64_t>(plan.cohorts.size());
  s.wall_s = Ms(record.wall_us) / 1000.0;
  s.setup_s = Ms(record.setup_us) / 1000.0;
  s.makespan_s = Ms(record.end_us - record.schedule_start_us) / 1000.0;
  s.real_s = record.real_s;
  s.runner_cpu_s = record.runner_cpu_s;
  s.completed = record.completed;

  // ClusterQueue classes: quota held per queue, integrated over time.
  const int64_t window_start = record.schedule_start_us;
  const int64_t window_end = std::max(record.end_us, window_start);
  std::vector<double> used(plan.queues.size(), 0.0);  // milli-cpu × µs
  for (size_t i = 0; i < record.workloads.size() && i < plan.workloads.size(); ++i) {
    const WorkloadRecord& w = record.workloads[i];
    const int64_t milli = plan.workloads[i].total_milli();
    for (const QuotaHold& h : w.holds) {
      if (h.queue < 0 || h.reserved_us < 0) continue;
      const int64_t from = std::max(h.reserved_us, window_start);
      const int64_t to = std::min(h.released_us >= 0 ? h.released_us : window_end, window_end);
      if (to > from) used[h.queue] += static_cast<double>(milli) * static_cast<double>(to - from);
    }
  }
  // The most any queue held at once: sweep each queue's hold edges.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> edges(plan.queues.size());
  for (size_t i = 0; i < record.workloads.size() && i < plan.workloads.size(); ++i) {
    const int64_t milli = plan.workloads[i].total_milli();
    for (const QuotaHold& h : record.workloads[i].holds) {
      if (h.queue < 0 || h.reserved_us < 0) continue;
      edges[h.queue].push_back({h.reserved_us, milli});
      if (h.released_us >= 0) edges[h.queue].push_back({h.released_us, -milli});
    }
  }
  std::vector<int64_t> max_usage(plan.queues.size(), 0);
  for (size_t q = 0; q < edges.size(); ++q) {
    std::sort(edges[q].begin(), edges[q].end());  // releases (negative) first at a tie
    int64_t cur = 0;
    for (const auto& [t, d] : edges[q]) {
      cur += d;
      max_usage[q] = std::max(max_usage[q], cur);
    }
  }
  s.queue_classes.resize(plan.queue_classes.size());
  for (size_t c = 0; c < plan.queue_classes.size(); ++c) {
    s.queue_classes[c].name = plan.queue_classes[c];
    s.queue_classes[c].monitored_ms = (window_end - window_start) / 1000;
  }
  s.queues.resize(plan.queues.size());
  for (size_t q = 0; q < plan.queues.size(); ++q) {
    s.queues[q].used_milli_ms = used[q] / 1000.0;
    s.queues[q].max_usage_milli = max_usage[q];
    QueueClassStats& c = s.queue_classes[plan.queue_class[q]];
    c.queues++;
    c.nominal_milli += plan.queues[q].nominal_milli;
    c.used_milli_ms += used[q] / 1000.0;
    c.max_usage_milli = std::max(c.max_usage_milli, max_usage[q]);
  }
  for (QueueClassStats& c : s.queue_classes) {
    const double denom = static_cast<double>(c.nominal_milli) * Ms(window_end - window_start);
    c.usage_percent = denom > 0 ? c.used_milli_ms * 100.0 / denom : 0;
  }

  // Workload classes.
  s.workload_classes.resize(plan.workload_classes.size());
  std::vector<std::vector<double>> tta(plan.workload_classes.size());
  std::vector<double> first_sum(plan.workload_classes.size(), 0),
      finish_sum(plan.workload_classes.size(), 0);
  for (size_t c = 0; c < plan.workload_classes.size(); ++c) {
    s.workload_classes[c].name = plan.workload_classes[c];
  }
  for (size_t i = 0; i < record.workloads.size() && i < plan.workloads.size(); ++i) {
    const WorkloadRecord& w = record.workloads[i];
    const int32_t c = plan.workloads[i].class_index;
    WorkloadClassStats& st = s.workload_classes[c];
    st.count++;
    st.evictions += w.evictions;
    const double t = TimeToAdmissionMs(w);
    if (t >= 0) {
      tta[c].push_back(t);
      first_sum[c] += TimeToFirstAdmissionMs(w);
    }
    if (w.finished_us >= 0 && w.created_us >= 0) {
      st.finished++;
      finish_sum[c] += Ms(w.finished_us - w.created_us);
    }
  }
  for (size_t c = 0; c < s.workload_classes.size(); ++c) {
    WorkloadClassStats& st = s.workload_classes[c];
    std::vector<double>& v = tta[c];
    if (!v.empty()) {
      double sum = 0;
      for (double x : v) sum += x;
      st.avg_time_to_admission_ms = sum / static_cast<double>(v.size());
      st.avg_time_to_first_admission_ms = first_sum[c] / static_cast<double>(v.size());
      std::sort(v.begin(), v.end());
      st.p90_time_to_admission_ms = v[std::min(
          v.size() - 1, static_cast<size_t>(std::ceil(0.9 * static_cast<double>(v.size()))) - 1)];
      st.max_time_to_admission_ms = v.back();
    }
    if (st.finished > 0)
      st.avg_time_to_finish_ms = finish_sum[c] / static_cast<double>(st.finished);
  }
  return s;
}

}  // namespace kuota::perf
