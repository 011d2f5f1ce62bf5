// GpuTelemetry: samples each GPU's utilization, memory, temperature and
// power, the fields seed 002 watches through DCGM-exporter. From NVML
// (NvmlTelemetry, the library loaded at run time) or, for tests and
// machines without GPUs, a deterministic fake (FakeGpuTelemetry, kuotad
// --fake-gpus). DCGM's profiling fields (tensor pipe and SM activity) are not
// in NVML: NVML samples leave them unset. Thread-safe (NVML serializes; the
// fake is pure).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace kuota::runtime {

struct GpuSample {
  int index = 0;
  std::string uuid;
  std::string model;
  double utilization_percent = 0;       // DCGM_FI_DEV_GPU_UTIL
  double memory_used_mib = 0;           // DCGM_FI_DEV_FB_USED
  double memory_free_mib = 0;           // DCGM_FI_DEV_FB_FREE
  double temperature_c = 0;             // DCGM_FI_DEV_GPU_TEMP
  double power_watts = 0;               // DCGM_FI_DEV_POWER_USAGE
  std::optional<double> tensor_active;  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, 0..1
  std::optional<double> sm_active;      // DCGM_FI_PROF_SM_ACTIVE, 0..1
};

class GpuTelemetry {
 public:
  virtual ~GpuTelemetry() = default;
  // One sample of every GPU; an error when none can be read.
  virtual Result<std::vector<GpuSample>> Sample() = 0;
};

// NVML's GPUs, initialised once (Load) and shut down with the object.
class NvmlTelemetry final : public GpuTelemetry {
 public:
  static Result<std::unique_ptr<NvmlTelemetry>> Load(const std::string& library);
  ~NvmlTelemetry() override;
  Result<std::vector<GpuSample>> Sample() override;

 private:
  struct State;
  explicit NvmlTelemetry(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// `count` GPUs ("Kuota Fake GPU", UUID GPU-fake-<i>) whose readings move
// with each sample, deterministically: utilization, memory, temperature,
// power and the profiling fields all change so that a test sees live values.
class FakeGpuTelemetry final : public GpuTelemetry {
 public:
  explicit FakeGpuTelemetry(int count) : count_(count) {}
  Result<std::vector<GpuSample>> Sample() override;

 private:
  const int count_;
  std::atomic<int64_t> tick_{0};
};

}  // namespace kuota::runtime
