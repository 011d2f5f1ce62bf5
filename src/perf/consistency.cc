#include "perf/consistency.h"

#include <algorithm>
#include <cstdio>

#include "perf/topology_consistency.h"

namespace kuota::perf {
namespace {

std::string AtMs(int64_t us) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "at %.3f s", static_cast<double>(us) / 1e6);
  return buf;
}

class Failures {
 public:
  Failures(ConsistencyReport& r, size_t max) : r_(r), max_(max) {}
  void Add(std::string s) {
    r_.failure_count++;
    if (r_.failures.size() < max_) r_.failures.push_back(std::move(s));
  }

 private:
  ConsistencyReport& r_;
  size_t max_;
};

// One edge of a hold on the scheduler's clock.
struct Edge {
  int64_t t;
  int64_t delta;  // milli-cpu; releases are negative and sort first at a tie
  int32_t workload;
  bool operator<(const Edge& o) const { return t != o.t ? t < o.t : delta < o.delta; }
};

// The holds that ended soon after an over-quota instant `at` in sorted
// `edges`: the likeliest cause (a release the scheduler counted before the
// clock did), named with how each ended and when the runner saw it.
std::string EndedJustAfter(const std::vector<Edge>& edges, size_t at, const Plan& plan,
                           const RunRecord& record) {
  constexpr int64_t kWindowUs = 1'000'000;
  constexpr int kMax = 5;
  std::string out;
  int n = 0;
  for (size_t j = at + 1; j < edges.size() && edges[j].t - edges[at].t <= kWindowUs; ++j) {
    const Edge& x = edges[j];
    if (x.delta >= 0) continue;
    if (n++ == kMax) {
      out += ", ...";
      break;
    }
    const auto i = static_cast<size_t>(x.workload);
    std::string how = "released";
    for (const QuotaHold& h : record.workloads[i].holds) {
      if (h.sched_end_us != x.t) continue;
      how = std::string(h.finished ? "finished " : "evicted ") + AtMs(x.t) + ", seen " +
            AtMs(h.released_us);
      break;
    }
    out += (out.empty() ? "" : ", ") + plan.Key(plan.workloads[i]) + " (" + how + ")";
  }
  return out.empty() ? out : "; holds that ended within 1 s after it: " + out;
}

}  // namespace

std::string CpuText(int64_t milli) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(milli) / 1000.0);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

ConsistencyReport CheckConsistency(const Plan& plan, const RunRecord& record, size_t max_listed) {
  ConsistencyReport report;
  Failures fail(report, max_listed);
  if (record.workloads.size() != plan.workloads.size()) {
    fail.Add("the run recorded " + std::to_string(record.workloads.size()) +
             " workloads; the plan has " + std::to_string(plan.workloads.size()));
    return report;
  }
  std::vector<std::vector<Edge>> queue_edges(plan.queues.size());
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const PlannedWorkload& p = plan.workloads[i];
    const WorkloadRecord& w = record.workloads[i];
    const std::string key = plan.Key(p);
    if (w.creations != 1) {
      fail.Add(key + ": created " + std::to_string(w.creations) + " times (want 1)");
      continue;
    }
    if (w.finish_lost) {
      fail.Add(key + ": lost its Finished condition after it finished" +
               (w.evictions_after_finish > 0 ? std::string(", shown evicted instead") : "") +
               " (a later status write overwrote the runner's Finished)");
    } else if (w.evictions_after_finish > 0) {
      fail.Add(key + ": evicted after it finished");
    }
    if (w.finishes != 1) {
      fail.Add(key + ": finished " + std::to_string(w.finishes) + " times (want 1)");
    }
    if (w.admissions != w.evictions + 1) {
      if (w.evictions_unseen_admission > 0 &&
          w.admissions == w.evictions - w.evictions_unseen_admission + 1) {
        fail.Add(key + ": evicted " + std::to_string(w.evictions_unseen_admission) +
                 " time(s) without having been seen admitted (the server published the "
                 "eviction but never the admission before it)");
      } else {
        fail.Add(key + ": admitted " + std::to_string(w.admissions) + " times, evicted " +
                 std::to_string(w.evictions) + " times (want admissions = evictions + 1)");
      }
    }
    if (static_cast<int64_t>(w.holds.size()) != w.admissions) {
      fail.Add(key + ": held quota " + std::to_string(w.holds.size()) + " times but was admitted " +
               std::to_string(w.admissions) + " times");
    }
    int64_t prev_end = w.created_us;
    for (size_t h = 0; h < w.holds.size(); ++h) {
      const QuotaHold& hold = w.holds[h];
      if (hold.queue != p.queue) {
        fail.Add(
            key + ": admitted in " +
            (hold.queue >= 0 ? plan.queues[hold.queue].name : std::string("an unknown queue")) +
            ", not in its own ClusterQueue " + plan.queues[p.queue].name);
      }
      if (hold.reserved_us < prev_end) {
        fail.Add(key + ": admission " + std::to_string(h + 1) + " " + AtMs(hold.reserved_us) +
                 " before its creation or its previous release " + AtMs(prev_end));
      }
      const bool last = h + 1 == w.holds.size();
      if (!last && hold.finished) {
        fail.Add(key + ": admitted again after it finished");
      }
      if (hold.released_us >= 0) prev_end = hold.released_us;
      if (last && hold.finished && hold.admitted_us >= 0 && hold.released_us >= 0 &&
          hold.released_us - hold.admitted_us < p.runtime_ms * 1000) {
        fail.Add(key + ": finished after running " +
                 std::to_string((hold.released_us - hold.admitted_us) / 1000) + " ms of its " +
                 std::to_string(p.runtime_ms) + " ms");
      }
      if (hold.queue >= 0 && hold.sched_start_us >= 0) {
        const int64_t milli = p.total_milli();
        queue_edges[hold.queue].push_back({hold.sched_start_us, milli, static_cast<int32_t>(i)});
        if (hold.sched_end_us >= 0) {
          queue_edges[hold.queue].push_back({hold.sched_end_us, -milli, static_cast<int32_t>(i)});
        }
      }
    }
    if (w.finishes >= 1 && !w.holds.empty() && !w.holds.back().finished) {
      fail.Add(key + ": finished while not holding quota");
    }
  }
  // Quota: each queue within nominal + borrowingLimit; each cohort within
  // the sum of its queues' nominal quotas.
  std::vector<int64_t> cohort_quota(plan.cohorts.size(), 0);
  std::vector<std::vector<Edge>> cohort_edges(plan.cohorts.size());
  for (size_t q = 0; q < plan.queues.size(); ++q) {
    cohort_quota[plan.queue_cohort[q]] += plan.queues[q].nominal_milli;
    auto& ce = cohort_edges[plan.queue_cohort[q]];
    ce.insert(ce.end(), queue_edges[q].begin(), queue_edges[q].end());
  }
  for (size_t q = 0; q < plan.queues.size(); ++q) {
    const PlannedQueue& pq = plan.queues[q];
    if (!pq.borrowing_limit_milli) continue;
    const int64_t limit = pq.nominal_milli + *pq.borrowing_limit_milli;
    std::sort(queue_edges[q].begin(), queue_edges[q].end());
    int64_t cur = 0;
    for (size_t k = 0; k < queue_edges[q].size(); ++k) {
      const Edge& e = queue_edges[q][k];
      cur += e.delta;
      if (cur > limit) {
        fail.Add("ClusterQueue " + pq.name + " held " + CpuText(cur) + " cpu " + AtMs(e.t) +
                 ", above nominal + borrowingLimit = " + CpuText(limit) + " (admitting " +
                 plan.Key(plan.workloads[e.workload]) + ")" +
                 EndedJustAfter(queue_edges[q], k, plan, record));
        break;
      }
    }
  }
  for (size_t c = 0; c < plan.cohorts.size(); ++c) {
    std::sort(cohort_edges[c].begin(), cohort_edges[c].end());
    int64_t cur = 0;
    int64_t over = 0;
    for (size_t k = 0; k < cohort_edges[c].size(); ++k) {
      const Edge& e = cohort_edges[c][k];
      cur += e.delta;
      if (cur > cohort_quota[c]) {
        if (over++ == 0) {
          fail.Add("cohort " + plan.cohorts[c] + " held " + CpuText(cur) + " cpu " + AtMs(e.t) +
                   ", above its quota of " + CpuText(cohort_quota[c]) + " (admitting " +
                   plan.Key(plan.workloads[e.workload]) + ")" +
                   EndedJustAfter(cohort_edges[c], k, plan, record));
        }
      }
    }
  }
  CheckTopologyConsistency(plan, record, report, max_listed);
  return report;
}

}  // namespace kuota::perf
