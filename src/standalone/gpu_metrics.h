// GpuMetrics: the GPU series of kuotad's /metrics, collected at each scrape:
// every GPU's readings under DCGM-exporter's names and labels
// (DCGM_FI_DEV_GPU_UTIL, _FB_USED, _FB_FREE, _GPU_TEMP, _POWER_USAGE,
// DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, _SM_ACTIVE with gpu, UUID, modelName,
// Hostname), how many GPUs were found (kuota_gpus), and — what neither Kueue
// nor DCGM-exporter has — kuota_gpu_allocation: which pod, namespace,
// LocalQueue, ClusterQueue and flavor each GPU is handed to, to join with
// the readings on UUID. Thread-safe (the store, telemetry and allocator are).
#pragma once

#include <string>
#include <vector>

#include "metrics/exposition.h"
#include "runtime/gpu_allocator.h"
#include "runtime/gpu_telemetry.h"
#include "store/object_store.h"

namespace kuota::standalone {

class GpuMetrics {
 public:
  // `telemetry` and `allocator` may be null (no GPUs / no local runtime);
  // all must outlive this.
  GpuMetrics(store::ObjectStore& store, runtime::GpuTelemetry* telemetry,
             const runtime::GpuAllocator* allocator, int gpus_found, std::string hostname);

  std::vector<metrics::MetricFamily> Collect();

 private:
  store::ObjectStore& store_;
  runtime::GpuTelemetry* telemetry_;
  const runtime::GpuAllocator* allocator_;
  const int gpus_found_;
  const std::string hostname_;
};

}  // namespace kuota::standalone
