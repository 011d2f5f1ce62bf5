#include "runtime/nvml_topology.h"

#include <gtest/gtest.h>

#include "runtime/gpu_topology_spec.h"

namespace kuota::runtime {
namespace {

// Readings for n GPUs with every pair at NVML level `level`.
NvmlLinkReadings UniformReadings(size_t n, int level) {
  NvmlLinkReadings r;
  r.ancestor.assign(n, std::vector<int>(n, level));
  r.direct_nvlink.assign(n, std::vector<bool>(n, false));
  r.on_nvswitch.assign(n, false);
  return r;
}

TEST(NvmlTopologyTest, AncestorLevelsAndDirectLinksMakeTheSameTopologyAsASpec) {
  // Two NUMA nodes (SYSTEM across), a PCIe switch pair (SINGLE) and a
  // host-bridge pair in each, and NVLink 0-1, 2-3 (bridges), 4..7 (a mesh).
  NvmlLinkReadings r = UniformReadings(8, 50);
  auto set = [&](size_t a, size_t b, int level) { r.ancestor[a][b] = r.ancestor[b][a] = level; };
  for (size_t base : {0u, 4u}) {
    for (size_t a = base; a < base + 4; ++a) {
      for (size_t b = base; b < base + 4; ++b) set(a, b, 40);  // NODE
    }
    set(base, base + 1, 10);      // SINGLE
    set(base + 2, base + 3, 30);  // HOSTBRIDGE
  }
  r.direct_nvlink[0][1] = true;  // one side's reading is enough
  r.direct_nvlink[3][2] = true;
  for (size_t a = 4; a < 8; ++a) {
    for (size_t b = 4; b < 8; ++b) r.direct_nvlink[a][b] = a != b;
  }
  GpuTopology t = TopologyFromNvml({0, 1, 2, 3, 4, 5, 6, 7}, r);
  EXPECT_TRUE(t.known);
  EXPECT_TRUE(t.Validate().ok());
  EXPECT_EQ(FormatGpuTopologySpec(t),
            "nvlink=0+1,2+3,4-7;pcie=0+1,4+5;hostbridge=0+1,2+3,4+5,6+7;numa=0-3,4-7");
  auto declared = ParseGpuTopologySpec(FormatGpuTopologySpec(t), t.indices);
  ASSERT_TRUE(declared.ok()) << declared.status().ToString();
  EXPECT_EQ(declared->pcie, t.pcie);
  EXPECT_EQ(declared->nvlink, t.nvlink);
}

TEST(NvmlTopologyTest, NvSwitchJoinsEveryGpuOnOne) {
  NvmlLinkReadings r = UniformReadings(4, 40);
  r.on_nvswitch = {true, true, false, true};
  GpuTopology t = TopologyFromNvml({0, 1, 2, 3}, r);
  EXPECT_TRUE(t.nvlink[0][3]);
  EXPECT_FALSE(t.nvlink[0][2]);
  EXPECT_EQ(t.pcie[0][2], PcieLevel::kNumaNode);
}

TEST(NvmlTopologyTest, NothingReadIsFlatAndBadReadingsAreIgnored) {
  NvmlLinkReadings r = UniformReadings(2, -1);
  GpuTopology t = TopologyFromNvml({0, 1}, r);
  EXPECT_FALSE(t.known);
  EXPECT_EQ(t.pcie[0][1], PcieLevel::kSystem);
  GpuTopology wrong = TopologyFromNvml({0, 1, 2}, r);  // readings for 2 GPUs
  EXPECT_FALSE(wrong.known);
  EXPECT_EQ(wrong.indices, (std::vector<int>{0, 1, 2}));
}

// A fake NVML over 4 devices (their handles point into kFakeNvml.bus):
// GPU 0's link 0 reaches GPU 1, GPU 2's and GPU 3's link 0 an NVSwitch,
// GPU 1's link 1 is inactive; 0-1 share a PCIe switch, 2-3 a NUMA node.
struct FakeNvml {
  unsigned int bus[4] = {0x10, 0x20, 0x30, 0x40};
  int Of(NvmlApi::Device* d) const {
    return static_cast<int>(reinterpret_cast<const unsigned int*>(d) - bus);
  }
};
FakeNvml kFakeNvml;

std::vector<NvmlApi::Device*> FakeDevices() {
  std::vector<NvmlApi::Device*> out;
  for (unsigned int& b : kFakeNvml.bus) out.push_back(reinterpret_cast<NvmlApi::Device*>(&b));
  return out;
}

NvmlApi FakeApi() {
  NvmlApi api;
  api.get_common_ancestor = [](NvmlApi::Device* a, NvmlApi::Device* b, int* level) {
    int x = kFakeNvml.Of(a), y = kFakeNvml.Of(b);
    if (x > y) std::swap(x, y);
    *level = x == 0 && y == 1 ? 10 : x == 2 && y == 3 ? 40 : 50;
    return 0;
  };
  api.get_pci_info = [](NvmlApi::Device* d, NvmlApi::PciInfo* pci) {
    *pci = {};
    pci->bus = kFakeNvml.bus[kFakeNvml.Of(d)];
    return 0;
  };
  api.get_nvlink_state = [](NvmlApi::Device* d, unsigned int link, int* active) {
    const int g = kFakeNvml.Of(d);
    if (link > 1) return 2;  // NVML_ERROR_INVALID_ARGUMENT: no such link
    *active = link == 0 ? 1 : 0;
    return g == 1 && link == 0 ? 3 : 0;  // GPU 1 does not answer for link 0
  };
  api.get_nvlink_remote_type = [](NvmlApi::Device* d, unsigned int, int* type) {
    *type = kFakeNvml.Of(d) >= 2 ? 2 : 0;
    return 0;
  };
  api.get_nvlink_remote_pci = [](NvmlApi::Device* d, unsigned int, NvmlApi::PciInfo* pci) {
    *pci = {};
    pci->bus = kFakeNvml.Of(d) == 0 ? 0x20 : 0x99;
    return 0;
  };
  return api;
}

TEST(NvmlTopologyTest, ReadsLinksThroughTheApi) {
  NvmlLinkReadings r = ReadNvmlLinks(FakeApi(), FakeDevices());
  EXPECT_EQ(r.note, "");
  EXPECT_EQ(r.ancestor[1][0], 10);
  EXPECT_EQ(r.ancestor[2][3], 40);
  EXPECT_TRUE(r.direct_nvlink[0][1]);
  EXPECT_TRUE(r.direct_nvlink[1][0]);
  EXPECT_EQ(r.on_nvswitch, (std::vector<bool>{false, false, true, true}));
  GpuTopology t = TopologyFromNvml({0, 1, 2, 3}, r);
  EXPECT_EQ(FormatGpuTopologySpec(t), "nvlink=0+1,2+3;pcie=0+1;numa=0+1,2+3");
}

TEST(NvmlTopologyTest, AnOlderLibraryDegrades) {
  // No link calls: NVLink from P2PStatus.
  NvmlApi api = FakeApi();
  api.get_nvlink_state = nullptr;
  api.get_p2p_status = [](NvmlApi::Device* a, NvmlApi::Device* b, int caps, int* status) {
    EXPECT_EQ(caps, 2);                                        // NVML_P2P_CAPS_INDEX_NVLINK
    *status = kFakeNvml.Of(a) + kFakeNvml.Of(b) == 5 ? 0 : 1;  // only 2-3
    return 0;
  };
  NvmlLinkReadings r = ReadNvmlLinks(api, FakeDevices());
  EXPECT_TRUE(r.direct_nvlink[2][3]);
  EXPECT_FALSE(r.direct_nvlink[0][1]);
  // Nothing but the listing: all unknown, said in the note, nothing known.
  NvmlLinkReadings none = ReadNvmlLinks(NvmlApi{}, FakeDevices());
  EXPECT_EQ(none.note,
            "no nvmlDeviceGetTopologyCommonAncestor: PCIe and NUMA closeness unknown; no NVLink "
            "calls: NVLink unknown");
  EXPECT_FALSE(TopologyFromNvml({0, 1, 2, 3}, none).known);
}

}  // namespace
}  // namespace kuota::runtime
