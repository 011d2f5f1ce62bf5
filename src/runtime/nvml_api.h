// NvmlApi: the few NVML entry points Kuota uses (from nvml.h's stable ABI),
// loaded at run time with dlopen so that nothing from NVIDIA is needed to
// build or run: device listing (gpu_discovery.h), sampling
// (gpu_telemetry.h) and, where the library has them, topology
// (nvml_topology.h). Each user loads its own; the library stays open while
// the NvmlApi lives. Not thread-safe; NVML's calls themselves are.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"

namespace kuota::runtime {

struct NvmlApi {
  using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
  struct Device;       // nvmlDevice_st
  struct Memory {      // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
  };
  struct Utilization {  // nvmlUtilization_t, percent
    unsigned int gpu;
    unsigned int memory;
  };
  Return (*init)() = nullptr;  // nvmlInit_v2
  Return (*shutdown)() = nullptr;
  Return (*get_count)(unsigned int*) = nullptr;                      // nvmlDeviceGetCount_v2
  Return (*get_handle)(unsigned int, Device**) = nullptr;            // ..GetHandleByIndex_v2
  Return (*get_name)(Device*, char*, unsigned int) = nullptr;        // nvmlDeviceGetName
  Return (*get_uuid)(Device*, char*, unsigned int) = nullptr;        // nvmlDeviceGetUUID
  Return (*get_memory)(Device*, Memory*) = nullptr;                  // nvmlDeviceGetMemoryInfo
  Return (*get_utilization)(Device*, Utilization*) = nullptr;        // ..GetUtilizationRates
  Return (*get_temperature)(Device*, int, unsigned int*) = nullptr;  // sensor 0: the GPU
  Return (*get_power)(Device*, unsigned int*) = nullptr;             // milliwatts

  // Optional (nullptr when the library lacks them): topology.
  struct PciInfo {  // nvmlPciInfo_t
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_subsystem_id;
    char bus_id[32];
  };
  // nvmlDeviceGetTopologyCommonAncestor: an nvmlGpuTopologyLevel_t (0, 10,
  // 20, 30, 40, 50: INTERNAL, SINGLE, MULTIPLE, HOSTBRIDGE, NODE, SYSTEM).
  Return (*get_common_ancestor)(Device*, Device*, int*) = nullptr;
  Return (*get_pci_info)(Device*, PciInfo*) = nullptr;  // nvmlDeviceGetPciInfo_v3
  // nvmlDeviceGetNvLinkState (link, nvmlEnableState_t: 1 active),
  // ..GetNvLinkRemoteDeviceType (0 GPU, 1 IBM NPU, 2 NVSwitch, 255 unknown),
  // ..GetNvLinkRemotePciInfo_v2.
  Return (*get_nvlink_state)(Device*, unsigned int, int*) = nullptr;
  Return (*get_nvlink_remote_type)(Device*, unsigned int, int*) = nullptr;
  Return (*get_nvlink_remote_pci)(Device*, unsigned int, PciInfo*) = nullptr;
  // nvmlDeviceGetP2PStatus (caps index 2: NVLink; status 0: OK).
  Return (*get_p2p_status)(Device*, Device*, int, int*) = nullptr;

  std::shared_ptr<void> library;  // dlclose when the last copy goes
};

// Opens `library` and resolves every entry point. NotFound when the library
// cannot be opened, Unsupported naming the first missing symbol that is not
// optional.
Result<NvmlApi> LoadNvml(const std::string& library);

}  // namespace kuota::runtime
