#include "runtime/gpu_telemetry.h"

#include <mutex>

#include "runtime/nvml_api.h"

namespace kuota::runtime {

struct NvmlTelemetry::State {
  NvmlApi nvml;
  std::mutex mu;
};

Result<std::unique_ptr<NvmlTelemetry>> NvmlTelemetry::Load(const std::string& library) {
  KUOTA_ASSIGN_OR_RETURN(NvmlApi nvml, LoadNvml(library));
  if (NvmlApi::Return rc = nvml.init(); rc != 0) {
    return Status::Unavailable("nvmlInit failed: code " + std::to_string(rc));
  }
  auto state = std::make_unique<State>();
  state->nvml = std::move(nvml);
  return std::unique_ptr<NvmlTelemetry>(new NvmlTelemetry(std::move(state)));
}

NvmlTelemetry::NvmlTelemetry(std::unique_ptr<State> state) : state_(std::move(state)) {}

NvmlTelemetry::~NvmlTelemetry() { state_->nvml.shutdown(); }

Result<std::vector<GpuSample>> NvmlTelemetry::Sample() {
  std::lock_guard<std::mutex> lock(state_->mu);
  const NvmlApi& n = state_->nvml;
  unsigned int count = 0;
  if (NvmlApi::Return rc = n.get_count(&count); rc != 0) {
    return Status::Unavailable("nvmlDeviceGetCount failed: code " + std::to_string(rc));
  }
  std::vector<GpuSample> out;
  for (unsigned int i = 0; i < count; ++i) {
    NvmlApi::Device* dev = nullptr;
    if (n.get_handle(i, &dev) != 0) continue;
    GpuSample s;
    s.index = static_cast<int>(i);
    char buf[256] = {};
    if (n.get_name(dev, buf, sizeof buf - 1) == 0) s.model = buf;
    char ubuf[256] = {};
    if (n.get_uuid(dev, ubuf, sizeof ubuf - 1) == 0) s.uuid = ubuf;
    NvmlApi::Utilization u = {};
    if (n.get_utilization(dev, &u) == 0) s.utilization_percent = u.gpu;
    NvmlApi::Memory m = {};
    if (n.get_memory(dev, &m) == 0) {
      s.memory_used_mib = static_cast<double>(m.used >> 20);
      s.memory_free_mib = static_cast<double>(m.free >> 20);
    }
    unsigned int temp = 0;
    if (n.get_temperature(dev, 0, &temp) == 0) s.temperature_c = temp;
    unsigned int mw = 0;
    if (n.get_power(dev, &mw) == 0) s.power_watts = mw / 1000.0;
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<GpuSample>> FakeGpuTelemetry::Sample() {
  const int64_t t = tick_++;
  std::vector<GpuSample> out;
  for (int i = 0; i < count_; ++i) {
    GpuSample s;
    s.index = i;
    s.uuid = "GPU-fake-" + std::to_string(i);
    s.model = "Kuota Fake GPU";
    const double phase = static_cast<double>((t * 7 + i * 13) % 100);  // 0..99
    s.utilization_percent = phase;
    s.memory_used_mib = 1024 + phase * 100;
    s.memory_free_mib = 16384 - s.memory_used_mib;
    s.temperature_c = 40 + phase / 4;
    s.power_watts = 50 + phase * 2;
    s.tensor_active = phase / 200;
    s.sm_active = phase / 100;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kuota::runtime
