#include "runtime/gpu_discovery.h"

#include <dlfcn.h>

#include <memory>

namespace kuota::runtime {
namespace {

// The few NVML declarations used (from nvml.h's stable ABI).
using nvmlReturn_t = int;
constexpr nvmlReturn_t kNvmlSuccess = 0;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using GetCountFn = nvmlReturn_t (*)(unsigned int*);
using GetHandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using GetStringFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using GetMemoryFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);

struct DlCloser {
  void operator()(void* handle) const { dlclose(handle); }
};

template <typename Fn>
bool Load(void* lib, const char* name, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*out == nullptr && missing->empty()) *missing = name;
  return *out != nullptr;
}

}  // namespace

GpuDiscovery DiscoverNvmlGpus(const std::string& library) {
  GpuDiscovery out;
  std::unique_ptr<void, DlCloser> lib(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    out.note = "NVML not found (" + library + "): no GPUs";
    return out;
  }
  InitFn init;
  ShutdownFn shutdown;
  GetCountFn get_count;
  GetHandleFn get_handle;
  GetStringFn get_name, get_uuid;
  GetMemoryFn get_memory;
  std::string missing;
  Load(lib.get(), "nvmlInit_v2", &init, &missing);
  Load(lib.get(), "nvmlShutdown", &shutdown, &missing);
  Load(lib.get(), "nvmlDeviceGetCount_v2", &get_count, &missing);
  Load(lib.get(), "nvmlDeviceGetHandleByIndex_v2", &get_handle, &missing);
  Load(lib.get(), "nvmlDeviceGetName", &get_name, &missing);
  Load(lib.get(), "nvmlDeviceGetUUID", &get_uuid, &missing);
  Load(lib.get(), "nvmlDeviceGetMemoryInfo", &get_memory, &missing);
  if (!missing.empty()) {
    out.note = "NVML library " + library + " lacks " + missing + ": no GPUs";
    return out;
  }
  if (nvmlReturn_t rc = init(); rc != kNvmlSuccess) {
    out.note = "nvmlInit failed: code " + std::to_string(rc);
    return out;
  }
  unsigned int count = 0;
  if (nvmlReturn_t rc = get_count(&count); rc != kNvmlSuccess) {
    out.note = "nvmlDeviceGetCount failed: code " + std::to_string(rc);
    shutdown();
    return out;
  }
  std::string problems;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    if (nvmlReturn_t rc = get_handle(i, &dev); rc != kNvmlSuccess) {
      problems += "; GPU " + std::to_string(i) + ": handle failed: code " + std::to_string(rc);
      continue;
    }
    GpuInfo g;
    g.index = static_cast<int>(i);
    char buf[256] = {};
    if (get_name(dev, buf, sizeof buf - 1) == kNvmlSuccess) g.name = buf;
    char ubuf[256] = {};
    if (get_uuid(dev, ubuf, sizeof ubuf - 1) == kNvmlSuccess) g.uuid = ubuf;
    nvmlMemory_t mem = {};
    if (get_memory(dev, &mem) == kNvmlSuccess) g.memory_bytes = static_cast<int64_t>(mem.total);
    out.gpus.push_back(std::move(g));
  }
  shutdown();
  out.note = "NVML: " + std::to_string(out.gpus.size()) + " GPU(s)" + problems;
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
  out.note = "declared " + std::to_string(count) + " GPU(s); NVML not consulted";
  return out;
}

}  // namespace kuota::runtime
