#include "runtime/nvml_api.h"

#include <dlfcn.h>

namespace kuota::runtime {
namespace {

template <typename Fn>
void Load(void* lib, const char* name, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*out == nullptr && missing->empty()) *missing = name;
}

}  // namespace

Result<NvmlApi> LoadNvml(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Status::NotFound("NVML not found (" + library + ")");
  NvmlApi api;
  api.library = std::shared_ptr<void>(handle, [](void* h) { dlclose(h); });
  std::string missing;
  Load(handle, "nvmlInit_v2", &api.init, &missing);
  Load(handle, "nvmlShutdown", &api.shutdown, &missing);
  Load(handle, "nvmlDeviceGetCount_v2", &api.get_count, &missing);
  Load(handle, "nvmlDeviceGetHandleByIndex_v2", &api.get_handle, &missing);
  Load(handle, "nvmlDeviceGetName", &api.get_name, &missing);
  Load(handle, "nvmlDeviceGetUUID", &api.get_uuid, &missing);
  Load(handle, "nvmlDeviceGetMemoryInfo", &api.get_memory, &missing);
  Load(handle, "nvmlDeviceGetUtilizationRates", &api.get_utilization, &missing);
  Load(handle, "nvmlDeviceGetTemperature", &api.get_temperature, &missing);
  Load(handle, "nvmlDeviceGetPowerUsage", &api.get_power, &missing);
  std::string optional;  // what an older library lacks is left nullptr
  Load(handle, "nvmlDeviceGetTopologyCommonAncestor", &api.get_common_ancestor, &optional);
  Load(handle, "nvmlDeviceGetPciInfo_v3", &api.get_pci_info, &optional);
  Load(handle, "nvmlDeviceGetNvLinkState", &api.get_nvlink_state, &optional);
  Load(handle, "nvmlDeviceGetNvLinkRemoteDeviceType", &api.get_nvlink_remote_type, &optional);
  Load(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &api.get_nvlink_remote_pci, &optional);
  Load(handle, "nvmlDeviceGetP2PStatus", &api.get_p2p_status, &optional);
  if (!missing.empty()) {
    return Status::Unsupported("NVML library " + library + " lacks " + missing);
  }
  return api;
}

}  // namespace kuota::runtime
