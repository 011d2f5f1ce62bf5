#include "synthetic_tas_cluster.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "api/object.h"
#include "base/time.h"

namespace kuota::bench {
namespace {

// SplitMix64 (as synthetic_cluster.cc's, under another name: unity builds
// share one translation unit).
class TasRng {
 public:
  explicit TasRng(uint64_t seed) : state_(seed) {}
  int Below(int n) {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<int>((z ^ (z >> 31)) % static_cast<uint64_t>(n));
  }

 private:
  uint64_t state_;
};

constexpr int64_t kTasGi = int64_t{1} << 30;
constexpr int64_t kNodeCpu = 32;
constexpr int64_t kNodeMemGi = 128;
constexpr const char* kTasFlavor = "tas";
constexpr const char* kTasTopology = "bench-topology";
constexpr const char* kBlockLabel = "example.com/block";
constexpr const char* kPoolLabel = "node-pool";

bool ApplyTas(engine::Engine& eng, const char* api_version, const char* kind, api::ObjectValue v) {
  Status s = eng.Apply(api::Object{api_version, kind, std::move(v)});
  if (!s.ok()) std::fprintf(stderr, "apply %s: %s\n", kind, s.ToString().c_str());
  return s.ok();
}

std::string Numbered(const char* prefix, int i) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%05d", prefix, i);
  return buf;
}

api::ClusterQueue TasClusterQueue(int i, int cohort, int64_t cpu, int64_t mem_gi, bool preemption) {
  api::ClusterQueue cq;
  cq.metadata.name = Numbered("tas-cq-", i);
  cq.metadata.uid = "uid-" + cq.metadata.name;
  cq.spec.cohort = Numbered("tas-cohort-", cohort);
  cq.spec.namespace_selector = api::LabelSelector{};
  if (preemption) {
    cq.spec.preemption.within_cluster_queue = api::WithinClusterQueuePolicy::kLowerPriority;
    cq.spec.preemption.reclaim_within_cohort = api::ReclaimWithinCohortPolicy::kAny;
  }
  api::ResourceGroup rg;
  rg.covered_resources = {"cpu", "memory"};
  api::FlavorQuotas fq;
  fq.name = kTasFlavor;
  api::ResourceQuota c;
  c.name = "cpu";
  c.nominal_quota = api::Quantity::FromUnits(cpu);
  api::ResourceQuota m;
  m.name = "memory";
  m.nominal_quota = api::Quantity::FromUnits(mem_gi * kTasGi);
  fq.resources = {c, m};
  rg.flavors = {std::move(fq)};
  cq.spec.resource_groups.push_back(std::move(rg));
  return cq;
}

// A gang of 2-8 pods, 0.5-4 cpu and 1-8 GiB per pod, requiring (even i) or
// preferring (odd i) one rack; priority 0/100/1000 at 60/30/10 %.
api::Workload TasGang(int i, int cq, Time created, TasRng& rng) {
  static constexpr int64_t kCpuMilli[] = {500, 1000, 2000, 4000};
  static constexpr int64_t kMemGi[] = {1, 2, 4, 8};
  api::Workload wl;
  wl.metadata.name = Numbered("gang-", i);
  wl.metadata.namespace_ = Numbered("tas-team-", cq);
  wl.metadata.uid = "uid-" + wl.metadata.name;
  wl.metadata.creation_timestamp = created;
  wl.spec.queue_name = "lq";
  const int p = rng.Below(10);
  wl.spec.priority = p < 6 ? 0 : p < 9 ? 100 : 1000;
  api::PodSet ps;
  ps.name = "main";
  ps.count = 2 + rng.Below(7);
  api::Container c;
  c.name = "worker";
  c.image = "busybox";
  c.resources.requests["cpu"] = api::Quantity::FromMilli(kCpuMilli[rng.Below(4)]);
  c.resources.requests["memory"] = api::Quantity::FromUnits(kMemGi[rng.Below(4)] * kTasGi);
  ps.template_.spec.containers.push_back(std::move(c));
  ps.template_.spec.restart_policy = "Never";
  api::PodSetTopologyRequest tr;
  if (i % 2 == 0) {
    tr.required = kBenchRackLabel;
  } else {
    tr.preferred = kBenchRackLabel;
  }
  ps.topology_request = std::move(tr);
  wl.spec.pod_sets.push_back(std::move(ps));
  return wl;
}

}  // namespace

bool LoadSyntheticTasCluster(engine::Engine& eng, const ManualClock& clock,
                             const SyntheticTasCluster& o) {
  TasRng rng(o.seed);
  api::Topology topo;
  topo.metadata.name = kTasTopology;
  topo.levels = {kBlockLabel, kBenchRackLabel, api::kHostnameLabel};
  if (!ApplyTas(eng, api::kKueueV1beta1, "Topology", std::move(topo))) return false;
  int node_count = 0;
  for (int b = 0; b < o.blocks; ++b) {
    for (int r = 0; r < o.racks; ++r) {
      for (int h = 0; h < o.hosts; ++h, ++node_count) {
        api::Node n;
        n.metadata.name = Numbered("host-", node_count);
        n.metadata.labels[kBlockLabel] = Numbered("block-", b);
        n.metadata.labels[kBenchRackLabel] = Numbered("rack-", b * o.racks + r);
        n.metadata.labels[api::kHostnameLabel] = n.metadata.name;
        n.metadata.labels[kPoolLabel] = kTasFlavor;
        n.allocatable["cpu"] = api::Quantity::FromUnits(kNodeCpu);
        n.allocatable["memory"] = api::Quantity::FromUnits(kNodeMemGi * kTasGi);
        n.allocatable["pods"] = api::Quantity::FromUnits(110);
        if (!ApplyTas(eng, "v1", "Node", std::move(n))) return false;
      }
    }
  }
  api::ResourceFlavor f;
  f.metadata.name = kTasFlavor;
  f.node_labels[kPoolLabel] = kTasFlavor;
  f.topology_name = kTasTopology;
  if (!ApplyTas(eng, api::kKueueV1beta1, "ResourceFlavor", std::move(f))) return false;
  // Quotas that together match the nodes' capacity.
  const int64_t cpu = std::max<int64_t>(1, kNodeCpu * node_count / o.cqs);
  const int64_t mem_gi = std::max<int64_t>(1, kNodeMemGi * node_count / o.cqs);
  const int per_cohort = (o.cqs + o.cohorts - 1) / o.cohorts;
  for (int i = 0; i < o.cqs; ++i) {
    api::Namespace ns;
    ns.metadata.name = Numbered("tas-team-", i);
    ns.metadata.labels["kubernetes.io/metadata.name"] = ns.metadata.name;
    if (!ApplyTas(eng, "v1", "Namespace", std::move(ns)) ||
        !ApplyTas(eng, api::kKueueV1beta1, "ClusterQueue",
                  TasClusterQueue(i, i / per_cohort, cpu, mem_gi, o.preemption))) {
      return false;
    }
    api::LocalQueue lq;
    lq.metadata.name = "lq";
    lq.metadata.namespace_ = Numbered("tas-team-", i);
    lq.cluster_queue = Numbered("tas-cq-", i);
    if (!ApplyTas(eng, api::kKueueV1beta1, "LocalQueue", std::move(lq))) return false;
  }
  for (int i = 0; i < o.workloads; ++i) {
    const Time created = clock.Now() + Duration{i};
    if (!ApplyTas(eng, api::kKueueV1beta1, "Workload", TasGang(i, i % o.cqs, created, rng))) {
      return false;
    }
  }
  return true;
}

}  // namespace kuota::bench
