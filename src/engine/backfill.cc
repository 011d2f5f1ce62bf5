#include "engine/backfill.h"

#include <algorithm>
#include <map>

#include "engine/cluster_queue_node.h"
#include "engine/minimum_runtime.h"
#include "engine/quota_tree.h"
#include "engine/workload_info.h"

namespace kuota::engine {
namespace {

std::string BackfillAnnotationPath(const char* annotation) {
  return std::string("metadata.annotations[") + annotation + "]";
}

int64_t UsageOn(const WorkloadInfo& w, FrId fr) {
  for (const auto& [f, v] : w.usage) {
    if (f == fr) return v;
  }
  return 0;
}

}  // namespace

Result<BackfillPolicy> ReadBackfillPolicy(const api::ObjectMeta& meta) {
  BackfillPolicy out;
  if (auto it = meta.annotations.find(kBackfillAnnotation); it != meta.annotations.end()) {
    if (it->second != "true" && it->second != "false") {
      return Status::Invalid(BackfillAnnotationPath(kBackfillAnnotation) +
                             ": Unsupported value: \"" + it->second +
                             "\": supported values: \"true\", \"false\"");
    }
    out.on = it->second == "true";
  }
  if (auto it = meta.annotations.find(kDefaultRuntimeAnnotation); it != meta.annotations.end()) {
    Result<Duration> d = ParseDuration(it->second);
    if (!d.ok() || d->ms <= 0) {
      return Status::Invalid(BackfillAnnotationPath(kDefaultRuntimeAnnotation) +
                             ": Invalid value: \"" + it->second +
                             "\": must be a positive duration such as \"1h\"");
    }
    out.default_runtime_ms = d->ms;
  }
  return out;
}

std::optional<int64_t> RuntimeEstimateMs(const WorkloadInfo& w, const ClusterQueueNode* queue) {
  if (const auto& s = w.object.spec.maximum_execution_time_seconds; s && *s > 0) {
    return int64_t{*s} * 1000;
  }
  const ClusterQueueNode* cq = w.admitted_in != nullptr ? w.admitted_in
                               : queue != nullptr       ? queue
                                                        : w.queued_in;
  if (cq != nullptr && cq->backfill().default_runtime_ms > 0)
    return cq->backfill().default_runtime_ms;
  return std::nullopt;
}

Reservation Reserve(const WorkloadInfo& head, const ClusterQueueNode& cq,
                    const std::vector<std::pair<FrId, int64_t>>& need, Time now) {
  Reservation r;
  r.holder = head.key;
  r.priority = head.priority;
  r.order_time = head.queue_order_time;
  r.need = need;
  std::map<FrId, int64_t> free;
  for (const auto& [fr, v] : need) free[fr] = std::max<int64_t>(0, cq.Available(fr));
  // Holders of the tree that use what the head needs, by estimated end.
  std::vector<std::pair<Time, const WorkloadInfo*>> ends;
  QuotaTree::ForEachClusterQueue(QuotaTree::Root(&cq), [&](ClusterQueueNode* x) {
    for (const WorkloadInfo* w : x->admitted()) {
      bool uses = false;
      for (const auto& [fr, v] : need) uses = uses || UsageOn(*w, fr) > 0;
      if (!uses) continue;
      if (w->evicted) {
        ends.emplace_back(now, w);
      } else if (std::optional<int64_t> est = RuntimeEstimateMs(*w)) {
        ends.emplace_back(std::max(now, w->quota_reserved_at + Duration{*est}), w);
      }
    }
  });
  std::sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->key < b.second->key;
  });
  auto enough = [&] {
    for (const auto& [fr, v] : need) {
      if (free[fr] < v) return false;
    }
    return true;
  };
  if (enough()) {
    r.start = now;
  } else {
    for (const auto& [end, w] : ends) {
      // Everything that ends at the start is free then too (spare).
      if (r.start && end > *r.start) break;
      for (auto& [fr, f] : free) f += UsageOn(*w, fr);
      if (!r.start && enough()) r.start = end;
    }
  }
  for (const auto& [fr, v] : need) r.spare.emplace_back(fr, std::max<int64_t>(0, free[fr] - v));
  return r;
}

bool BackfillAllows(Reservation& r, const WorkloadInfo& w, const ClusterQueueNode& cq,
                    const std::vector<std::pair<FrId, int64_t>>& usage, Time now,
                    std::string* why) {
  if (r.holder.empty() || r.holder == w.key) return true;
  const std::optional<int64_t> est = RuntimeEstimateMs(w, &cq);
  if (r.start && est && now + Duration{*est} <= *r.start) return true;
  for (const auto& [fr, v] : usage) {
    for (const auto& [sfr, spare] : r.spare) {
      if (sfr == fr && v > spare) {
        *why = "waiting behind the reservation of " + r.holder + " (" +
               DescribeReservationStart(r) + "): this workload " +
               (est ? "would still run then (estimated " + FormatMinimumRuntime(*est) + ")"
                    : "has no runtime estimate") +
               " and needs capacity the reservation holds";
        return false;
      }
    }
  }
  for (const auto& [fr, v] : usage) {
    for (auto& [sfr, spare] : r.spare) {
      if (sfr == fr) spare -= v;
    }
  }
  return true;
}

std::string DescribeReservationStart(const Reservation& r) {
  if (r.start) return "expected to start at " + FormatRfc3339(*r.start);
  return "no start time can be estimated: workloads without a runtime estimate hold the capacity";
}

}  // namespace kuota::engine
