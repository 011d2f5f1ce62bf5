#include "engine/workload_slice.h"

#include <algorithm>

#include "engine/cluster_queue_node.h"
#include "engine/queue_manager.h"

namespace kuota::engine {
namespace {

const std::string* SliceAnnotation(const api::Workload& wl, std::string_view key) {
  auto it = wl.metadata.annotations.find(std::string(key));
  return it == wl.metadata.annotations.end() ? nullptr : &it->second;
}

}  // namespace

bool IsElasticWorkload(const api::Workload& wl) {
  const std::string* v = SliceAnnotation(wl, kElasticJobAnnotation);
  return v != nullptr && *v == "true";
}

std::string ReplacementFor(const api::Workload& wl) {
  const std::string* v = SliceAnnotation(wl, kSliceReplacementForAnnotation);
  return v == nullptr ? std::string() : *v;
}

WorkloadInfo* ReplacedSlice(const EngineState& s, const WorkloadInfo& wl,
                            const ClusterQueueNode& cq) {
  // Every head asks: most carry no annotation at all.
  if (wl.object.metadata.annotations.empty() || !IsElasticWorkload(wl.object)) return nullptr;
  const std::string key = ReplacementFor(wl.object);
  if (key.empty() || key == wl.key) return nullptr;
  WorkloadInfo* old = s.FindWorkload(key);
  if (old == nullptr || !old->holds_quota() || old->evicted || old->admitted_in != &cq ||
      old->ns() != wl.ns()) {
    return nullptr;
  }
  return old;
}

int64_t ScaleUsage(int64_t usage, int32_t from, int32_t to) {
  if (from <= 0) return usage;
  const __int128 scaled = static_cast<__int128>(usage) * std::max<int32_t>(0, to) / from;
  return static_cast<int64_t>(scaled);
}

void FinishReplacedSlice(EngineState& s, WorkloadInfo* old, const WorkloadInfo& by, Time now) {
  Dequeue(old);
  ReleaseQuota(s, old);
  old->state = WorkloadState::kFinished;
  std::string job_uid;
  if (auto it = by.object.metadata.labels.find("kueue.x-k8s.io/job-uid");
      it != by.object.metadata.labels.end()) {
    job_uid = it->second;
  }
  SetCondition(old->object.status.conditions, api::kFinished, "True", kWorkloadSliceReplacedReason,
               "Replaced to accommodate a workload (UID: " + by.uid() + ", JobUID: " + job_uid +
                   ") due to workload slice aggregation",
               now);
}

}  // namespace kuota::engine
