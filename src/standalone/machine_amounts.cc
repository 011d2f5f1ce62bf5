#include "standalone/machine_amounts.h"

#include "api/quantity.h"

namespace kuota::standalone {

control::ResourceAmounts MachineAmounts(const runtime::MachineCapacity& machine) {
  return {{"cpu", machine.cpu_millis},
          {"memory", api::Quantity::Mul(machine.memory_bytes, 1000)},
          {control::kGpuResource, static_cast<int64_t>(machine.gpus.size()) * 1000},
          {"pods", 110'000}};
}

}  // namespace kuota::standalone
