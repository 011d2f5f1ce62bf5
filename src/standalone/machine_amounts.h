// The local machine's capacity as pod resources (control::ResourceAmounts):
// what the pod runner and the one-machine Node offer pods.
#pragma once

#include "control/pod_resources.h"
#include "runtime/machine_capacity.h"

namespace kuota::standalone {

// cpu, memory, nvidia.com/gpu and pods (110, the kubelet's default).
control::ResourceAmounts MachineAmounts(const runtime::MachineCapacity& machine);

}  // namespace kuota::standalone
