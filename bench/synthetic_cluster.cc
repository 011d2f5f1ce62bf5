#include "synthetic_cluster.h"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "api/object.h"
#include "base/time.h"

namespace kuota::bench {
namespace {

// SplitMix64: tiny, fast and identical on every platform (the standard
// distributions are not), so a seed always yields the same workload mix.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

constexpr int64_t kGi = int64_t{1} << 30;
constexpr const char* kGpu = "nvidia.com/gpu";

api::Quantity Units(int64_t u) { return api::Quantity::FromUnits(u); }
api::Quantity Milli(int64_t m) { return api::Quantity::FromMilli(m); }

// Applies one object; on failure prints why and returns false.
bool Apply(engine::Engine& eng, const char* api_version, const char* kind, api::ObjectValue v) {
  Status s = eng.Apply(api::Object{api_version, kind, std::move(v)});
  if (!s.ok()) std::fprintf(stderr, "apply %s: %s\n", kind, s.ToString().c_str());
  return s.ok();
}

std::string Padded(const char* prefix, int i, int width) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%0*d", prefix, width, i);
  return buf;
}

std::string CqName(int i) { return Padded("cq-", i, 4); }
std::string NsName(int i) { return Padded("team-", i, 4); }

api::ResourceQuota Quota(const char* name, api::Quantity nominal,
                         std::optional<api::Quantity> borrowing_limit) {
  api::ResourceQuota q;
  q.name = name;
  q.nominal_quota = nominal;
  q.borrowing_limit = borrowing_limit;
  return q;
}

// One ClusterQueue: a single resource group over cpu, memory and GPUs with
// "on-demand" (borrowing capped) then "spot" (borrowing uncapped), preemption
// withinClusterQueue LowerPriority and reclaimWithinCohort Any.
api::ClusterQueue MakeClusterQueue(int i, int cohort, bool preemption) {
  api::ClusterQueue cq;
  cq.metadata.name = CqName(i);
  cq.metadata.uid = "uid-" + cq.metadata.name;
  cq.spec.cohort = Padded("cohort-", cohort, 2);
  cq.spec.namespace_selector = api::LabelSelector{};  // empty: every namespace
  if (preemption) {
    cq.spec.preemption.within_cluster_queue = api::WithinClusterQueuePolicy::kLowerPriority;
    cq.spec.preemption.reclaim_within_cohort = api::ReclaimWithinCohortPolicy::kAny;
  }
  api::ResourceGroup rg;
  rg.covered_resources = {"cpu", "memory", kGpu};
  api::FlavorQuotas od;
  od.name = "on-demand";
  od.resources = {Quota("cpu", Units(32), Units(16)),
                  Quota("memory", Units(128 * kGi), Units(64 * kGi)),
                  Quota(kGpu, Units(4), Units(2))};
  api::FlavorQuotas spot;
  spot.name = "spot";
  spot.resources = {Quota("cpu", Units(16), std::nullopt),
                    Quota("memory", Units(64 * kGi), std::nullopt),
                    Quota(kGpu, Units(2), std::nullopt)};
  rg.flavors = {std::move(od), std::move(spot)};
  cq.spec.resource_groups.push_back(std::move(rg));
  return cq;
}

struct PriorityLevel {
  const char* name;
  int32_t value;
};
constexpr PriorityLevel kPriorities[] = {{"low", 0}, {"medium", 100}, {"high", 1000}};

// A pending Workload of 1-4 pods, 0.5-4 CPUs, 1-16 GiB and (30%) 1-2 GPUs per
// pod, priority low/medium/high at 60/30/10%.
api::Workload MakeWorkload(int i, int cq, Time created, Rng& rng) {
  static constexpr int64_t kCpuMilli[] = {500, 1000, 2000, 4000};
  static constexpr int64_t kMemGi[] = {1, 2, 4, 8, 16};
  api::Workload wl;
  wl.metadata.name = Padded("wl-", i, 6);
  wl.metadata.namespace_ = NsName(cq);
  wl.metadata.uid = "uid-" + wl.metadata.name;
  wl.metadata.creation_timestamp = created;
  wl.spec.queue_name = "lq";
  const int p = rng.Below(10);
  const PriorityLevel& prio = kPriorities[p < 6 ? 0 : p < 9 ? 1 : 2];
  wl.spec.priority_class_name = prio.name;
  wl.spec.priority_class_source = api::kWorkloadPriorityClassSource;
  wl.spec.priority = prio.value;
  api::PodSet ps;
  ps.name = "main";
  ps.count = 1 + rng.Below(4);
  api::Container c;
  c.name = "worker";
  c.image = "busybox";
  c.resources.requests["cpu"] = Milli(kCpuMilli[rng.Below(4)]);
  c.resources.requests["memory"] = Units(kMemGi[rng.Below(5)] * kGi);
  if (rng.Below(10) < 3) c.resources.requests[kGpu] = Units(1 + rng.Below(2));
  ps.template_.spec.containers.push_back(std::move(c));
  ps.template_.spec.restart_policy = "Never";
  wl.spec.pod_sets.push_back(std::move(ps));
  return wl;
}

}  // namespace

bool LoadSyntheticCluster(engine::Engine& eng, const ManualClock& clock,
                          const SyntheticCluster& o) {
  Rng rng(o.seed);
  for (const char* name : {"on-demand", "spot"}) {
    api::ResourceFlavor f;
    f.metadata.name = name;
    f.node_labels["node-pool"] = name;
    if (!Apply(eng, api::kKueueV1beta1, "ResourceFlavor", std::move(f))) return false;
  }
  for (const PriorityLevel& p : kPriorities) {
    api::WorkloadPriorityClass pc;
    pc.metadata.name = p.name;
    pc.value = p.value;
    if (!Apply(eng, api::kKueueV1beta1, "WorkloadPriorityClass", std::move(pc))) return false;
  }
  const int per_cohort = (o.cqs + o.cohorts - 1) / o.cohorts;
  for (int i = 0; i < o.cqs; ++i) {
    api::Namespace ns;
    ns.metadata.name = NsName(i);
    ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
    if (!Apply(eng, "v1", "Namespace", std::move(ns)) ||
        !Apply(eng, api::kKueueV1beta1, "ClusterQueue",
               MakeClusterQueue(i, i / per_cohort, o.preemption))) {
      return false;
    }
    api::LocalQueue lq;
    lq.metadata.name = "lq";
    lq.metadata.namespace_ = NsName(i);
    lq.cluster_queue = CqName(i);
    if (!Apply(eng, api::kKueueV1beta1, "LocalQueue", std::move(lq))) return false;
  }
  for (int i = 0; i < o.workloads; ++i) {
    const int cq = i % o.cqs;
    const Time created = clock.Now() + Duration{i};  // distinct FIFO timestamps
    if (!Apply(eng, api::kKueueV1beta1, "Workload", MakeWorkload(i, cq, created, rng)))
      return false;
  }
  return true;
}

}  // namespace kuota::bench
