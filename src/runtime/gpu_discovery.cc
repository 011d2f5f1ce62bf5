#include "runtime/gpu_discovery.h"

#include "runtime/nvml_api.h"
#include "runtime/nvml_topology.h"

namespace kuota::runtime {

GpuDiscovery DiscoverNvmlGpus(const std::string& library) {
  GpuDiscovery out;
  Result<NvmlApi> nvml = LoadNvml(library);
  if (!nvml.ok()) {
    out.note = nvml.status().message() + ": no GPUs";
    return out;
  }
  if (NvmlApi::Return rc = nvml->init(); rc != 0) {
    out.note = "nvmlInit failed: code " + std::to_string(rc);
    return out;
  }
  unsigned int count = 0;
  if (NvmlApi::Return rc = nvml->get_count(&count); rc != 0) {
    out.note = "nvmlDeviceGetCount failed: code " + std::to_string(rc);
    nvml->shutdown();
    return out;
  }
  std::string problems;
  std::vector<NvmlApi::Device*> devices;
  std::vector<int> indices;
  for (unsigned int i = 0; i < count; ++i) {
    NvmlApi::Device* dev = nullptr;
    if (NvmlApi::Return rc = nvml->get_handle(i, &dev); rc != 0) {
      problems += "; GPU " + std::to_string(i) + ": handle failed: code " + std::to_string(rc);
      continue;
    }
    GpuInfo g;
    g.index = static_cast<int>(i);
    char buf[256] = {};
    if (nvml->get_name(dev, buf, sizeof buf - 1) == 0) g.name = buf;
    char ubuf[256] = {};
    if (nvml->get_uuid(dev, ubuf, sizeof ubuf - 1) == 0) g.uuid = ubuf;
    NvmlApi::Memory mem = {};
    if (nvml->get_memory(dev, &mem) == 0) g.memory_bytes = static_cast<int64_t>(mem.total);
    out.gpus.push_back(std::move(g));
    devices.push_back(dev);
    indices.push_back(static_cast<int>(i));
  }
  NvmlLinkReadings links = ReadNvmlLinks(*nvml, devices);
  nvml->shutdown();
  out.topology = TopologyFromNvml(indices, links);
  out.note = "NVML: " + std::to_string(out.gpus.size()) + " GPU(s)" + problems;
  if (!links.note.empty()) out.note += "; topology: " + links.note;
  return out;
}

Result<GpuDiscovery> DeclaredGpus(int count) {
  if (count < 0) {
    return Status::Invalid("declared GPU count must be >= 0, got " + std::to_string(count));
  }
  GpuDiscovery out;
  for (int i = 0; i < count; ++i) {
    out.gpus.push_back(GpuInfo{i, "declared-" + std::to_string(i), "", 0});
  }
  std::vector<int> indices;
  for (const auto& g : out.gpus) indices.push_back(g.index);
  out.topology = GpuTopology::Flat(std::move(indices));
  out.note = "declared " + std::to_string(count) + " GPU(s); NVML not consulted";
  return out;
}

}  // namespace kuota::runtime
