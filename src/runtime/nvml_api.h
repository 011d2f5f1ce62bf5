// NvmlApi: the few NVML entry points Kuota uses (from nvml.h's stable ABI),
// loaded at run time with dlopen so that nothing from NVIDIA is needed to
// build or run: device listing (gpu_discovery.h) and sampling
// (gpu_telemetry.h). Each user loads its own; the library stays open while
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

  std::shared_ptr<void> library;  // dlclose when the last copy goes
};

// Opens `library` and resolves every entry point. NotFound when the library
// cannot be opened, Unsupported naming the first missing symbol.
Result<NvmlApi> LoadNvml(const std::string& library);

}  // namespace kuota::runtime
