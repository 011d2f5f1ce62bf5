#include "runtime/nvml_topology.h"

#include <algorithm>
#include <tuple>

namespace kuota::runtime {
namespace {

constexpr unsigned int kNvmlMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kNvLinkRemoteGpu = 0;           // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int kNvLinkRemoteSwitch = 2;        // NVML_NVLINK_DEVICE_TYPE_SWITCH
constexpr int kP2pCapsNvLink = 2;             // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kP2pStatusOk = 0;               // NVML_P2P_STATUS_OK

using PciAddress = std::tuple<unsigned int, unsigned int, unsigned int>;

PciAddress AddressOf(const NvmlApi::PciInfo& pci) { return {pci.domain, pci.bus, pci.device}; }

PcieLevel LevelOfAncestor(int nvml_level) {
  if (nvml_level < 0) return PcieLevel::kSystem;
  if (nvml_level <= 20) return PcieLevel::kSwitch;  // INTERNAL, SINGLE, MULTIPLE
  if (nvml_level <= 30) return PcieLevel::kHostBridge;
  if (nvml_level <= 40) return PcieLevel::kNumaNode;
  return PcieLevel::kSystem;
}

}  // namespace

NvmlLinkReadings ReadNvmlLinks(const NvmlApi& nvml, const std::vector<NvmlApi::Device*>& devices) {
  const size_t n = devices.size();
  NvmlLinkReadings r;
  r.ancestor.assign(n, std::vector<int>(n, -1));
  r.direct_nvlink.assign(n, std::vector<bool>(n, false));
  r.on_nvswitch.assign(n, false);
  std::string missing;
  auto note = [&missing](const std::string& what) {
    if (missing.find(what) == std::string::npos) missing += (missing.empty() ? "" : "; ") + what;
  };
  if (nvml.get_common_ancestor == nullptr) {
    note("no nvmlDeviceGetTopologyCommonAncestor: PCIe and NUMA closeness unknown");
  } else {
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        int level = -1;
        if (nvml.get_common_ancestor(devices[a], devices[b], &level) == 0) {
          r.ancestor[a][b] = r.ancestor[b][a] = level;
        } else {
          note("common ancestor refused for some pairs");
        }
      }
    }
  }
  const bool links = nvml.get_nvlink_state != nullptr && nvml.get_pci_info != nullptr &&
                     nvml.get_nvlink_remote_pci != nullptr;
  if (links) {
    std::vector<PciAddress> address(n);
    std::vector<bool> have_address(n, false);
    for (size_t a = 0; a < n; ++a) {
      NvmlApi::PciInfo pci = {};
      if (nvml.get_pci_info(devices[a], &pci) == 0) {
        address[a] = AddressOf(pci);
        have_address[a] = true;
      }
    }
    for (size_t a = 0; a < n; ++a) {
      for (unsigned int link = 0; link < kNvmlMaxNvLinks; ++link) {
        int active = 0;
        if (nvml.get_nvlink_state(devices[a], link, &active) != 0 || active != 1) continue;
        int type = kNvLinkRemoteGpu;  // older libraries: a link reaches a GPU
        if (nvml.get_nvlink_remote_type != nullptr &&
            nvml.get_nvlink_remote_type(devices[a], link, &type) != 0) {
          continue;
        }
        if (type == kNvLinkRemoteSwitch) {
          r.on_nvswitch[a] = true;
          continue;
        }
        if (type != kNvLinkRemoteGpu) continue;
        NvmlApi::PciInfo far = {};
        if (nvml.get_nvlink_remote_pci(devices[a], link, &far) != 0) continue;
        for (size_t b = 0; b < n; ++b) {
          if (b != a && have_address[b] && address[b] == AddressOf(far)) {
            r.direct_nvlink[a][b] = r.direct_nvlink[b][a] = true;
          }
        }
      }
    }
  } else if (nvml.get_p2p_status != nullptr) {
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        int status = -1;
        if (nvml.get_p2p_status(devices[a], devices[b], kP2pCapsNvLink, &status) == 0 &&
            status == kP2pStatusOk) {
          r.direct_nvlink[a][b] = r.direct_nvlink[b][a] = true;
        }
      }
    }
  } else {
    note("no NVLink calls: NVLink unknown");
  }
  r.note = missing;
  return r;
}

GpuTopology TopologyFromNvml(const std::vector<int>& indices, const NvmlLinkReadings& readings) {
  GpuTopology t = GpuTopology::Flat(indices);
  const size_t n = t.indices.size();
  // Readings are by the position of `indices` as given; Flat sorted them.
  std::vector<size_t> at(n);
  for (size_t i = 0; i < indices.size() && i < n; ++i) {
    int p = t.PositionOf(indices[i]);
    if (p >= 0) at[i] = static_cast<size_t>(p);
  }
  if (indices.size() != n || readings.ancestor.size() != n || readings.direct_nvlink.size() != n ||
      readings.on_nvswitch.size() != n) {
    return t;  // duplicates or readings of other GPUs: nothing is known
  }
  bool any = false;
  for (size_t a = 0; a < n; ++a) {
    if (readings.ancestor[a].size() != n || readings.direct_nvlink[a].size() != n) {
      return GpuTopology::Flat(indices);
    }
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const int level = readings.ancestor[a][b];
      const bool nvlink = readings.direct_nvlink[a][b] || readings.direct_nvlink[b][a] ||
                          (readings.on_nvswitch[a] && readings.on_nvswitch[b]);
      any = any || level >= 0 || nvlink;
      t.pcie[at[a]][at[b]] = t.pcie[at[b]][at[a]] =
          std::min(LevelOfAncestor(level), LevelOfAncestor(readings.ancestor[b][a]));
      t.nvlink[at[a]][at[b]] = t.nvlink[at[b]][at[a]] = nvlink;
    }
  }
  t.known = any;
  return t;
}

}  // namespace kuota::runtime
