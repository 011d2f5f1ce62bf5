#include "standalone/gpu_metrics.h"

#include <cstdio>
#include <map>

#include "control/meta_string.h"
#include "store/list_all.h"

namespace kuota::standalone {
namespace {

using metrics::Labels;
using metrics::MetricFamily;
using Json = nlohmann::json;

MetricFamily Gauge(std::string name, std::string help) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  return f;
}

void Put(MetricFamily& f, Labels labels, double value) {
  metrics::Sample s;
  s.labels = std::move(labels);
  s.value = value;
  f.samples.push_back(std::move(s));
}

// Every item of `resource` (all namespaces, or `ns`), paged.
std::vector<Json> GmListOrEmpty(store::ObjectStore& store, const std::string& resource,
                                const std::string& ns = "") {
  store::ListOptions lo;
  lo.ns = ns;
  Result<std::vector<Json>> all = store::ListAll(store, resource, lo);
  return all.ok() ? std::move(*all) : std::vector<Json>{};
}

// Where a GPU-holding pod belongs: its Workload's queue, ClusterQueue and flavor.
struct Placement {
  std::string ns, pod, local_queue, cluster_queue, flavor;
};

}  // namespace

GpuMetrics::GpuMetrics(store::ObjectStore& store, runtime::GpuTelemetry* telemetry,
                       const runtime::GpuAllocator* allocator, int gpus_found, std::string hostname)
    : store_(store),
      telemetry_(telemetry),
      allocator_(allocator),
      gpus_found_(gpus_found),
      hostname_(std::move(hostname)) {}

std::vector<MetricFamily> GpuMetrics::Collect() {
  std::vector<MetricFamily> out;
  MetricFamily found = Gauge("kuota_gpus", "GPUs found on this machine (0: none; no GPU series)");
  Put(found, {{"Hostname", hostname_}}, gpus_found_);
  out.push_back(std::move(found));
  if (telemetry_ == nullptr || gpus_found_ == 0) return out;

  Result<std::vector<runtime::GpuSample>> samples = telemetry_->Sample();
  if (!samples.ok()) {
    std::fprintf(stderr, "kuotad: GPU telemetry: %s\n", samples.status().message().c_str());
    return out;
  }
  MetricFamily util = Gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).");
  MetricFamily fb_used = Gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).");
  MetricFamily fb_free = Gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).");
  MetricFamily temp = Gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).");
  MetricFamily power = Gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).");
  MetricFamily tensor =
      Gauge("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "Ratio of cycles the tensor (HMMA) pipe is active.");
  MetricFamily sm =
      Gauge("DCGM_FI_PROF_SM_ACTIVE", "The ratio of cycles an SM has at least 1 warp assigned.");
  std::map<int, std::string> uuid_of;
  for (const runtime::GpuSample& s : *samples) {
    const Labels labels = {{"gpu", std::to_string(s.index)},
                           {"UUID", s.uuid},
                           {"modelName", s.model},
                           {"Hostname", hostname_}};
    uuid_of[s.index] = s.uuid;
    Put(util, labels, s.utilization_percent);
    Put(fb_used, labels, s.memory_used_mib);
    Put(fb_free, labels, s.memory_free_mib);
    Put(temp, labels, s.temperature_c);
    Put(power, labels, s.power_watts);
    if (s.tensor_active) Put(tensor, labels, *s.tensor_active);
    if (s.sm_active) Put(sm, labels, *s.sm_active);
  }
  for (MetricFamily* f : {&util, &fb_used, &fb_free, &temp, &power, &tensor, &sm}) {
    if (!f->samples.empty()) out.push_back(std::move(*f));
  }

  MetricFamily alloc = Gauge("kuota_gpu_allocation",
                             "1 for each GPU handed to a pod, with the pod's namespace, "
                             "LocalQueue, ClusterQueue and flavor (join on UUID with DCGM_*)");
  const std::map<int, std::string> holders =
      allocator_ != nullptr ? allocator_->Holders() : std::map<int, std::string>();
  if (!holders.empty()) {
    std::map<std::string, Placement> by_uid;                // pod uid -> placement
    std::map<std::string, std::vector<Json>> workloads_in;  // namespace -> workloads
    for (const Json& pod : GmListOrEmpty(store_, "pods")) {
      const std::string uid = control::MetaString(pod, "uid");
      bool wanted = false;
      for (const auto& [index, owner] : holders) wanted |= owner == uid;
      if (!wanted) continue;
      Placement p;
      p.ns = control::MetaString(pod, "namespace");
      p.pod = control::MetaString(pod, "name");
      // The Workload is owned by the pod's controller (a Job, a PyTorchJob,
      // ...) or, for a plain pod, by the pod itself.
      std::string owner = uid;
      for (const Json& ref : pod["metadata"].value("ownerReferences", Json::array())) {
        if (ref.value("controller", false)) owner = ref.value("uid", "");
      }
      auto [it, fresh] = workloads_in.try_emplace(p.ns);
      if (fresh) it->second = GmListOrEmpty(store_, "workloads.kueue.x-k8s.io", p.ns);
      for (const Json& wl : it->second) {
        bool owned = false;
        for (const Json& ref : wl["metadata"].value("ownerReferences", Json::array())) {
          owned |= ref.value("uid", "") == owner;
        }
        if (!owned) continue;
        p.local_queue = wl.value("spec", Json::object()).value("queueName", "");
        const Json adm = wl.value("status", Json::object()).value("admission", Json::object());
        p.cluster_queue = adm.value("clusterQueue", "");
        for (const Json& ps : adm.value("podSetAssignments", Json::array())) {
          const Json flavors = ps.value("flavors", Json::object());
          if (flavors.contains("nvidia.com/gpu")) p.flavor = flavors["nvidia.com/gpu"];
        }
        break;
      }
      by_uid[uid] = std::move(p);
    }
    for (const auto& [index, owner] : holders) {
      auto it = by_uid.find(owner);
      if (it == by_uid.end()) continue;  // a pod deleted since
      const Placement& p = it->second;
      Put(alloc,
          {{"gpu", std::to_string(index)},
           {"UUID", uuid_of.count(index) ? uuid_of[index] : ""},
           {"Hostname", hostname_},
           {"namespace", p.ns},
           {"pod", p.pod},
           {"local_queue", p.local_queue},
           {"cluster_queue", p.cluster_queue},
           {"flavor", p.flavor}},
          1);
    }
  }
  out.push_back(std::move(alloc));
  return out;
}

}  // namespace kuota::standalone
