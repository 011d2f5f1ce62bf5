#include "runtime/nvml_topology.h"

#include <gtest/gtest.h>

#include "runtime/gpu_topology_spec.h"

namespace kuota::runtime {
namespace {

// Readings for n GPUs with every pair at NVML level `level`.
NvmlLinkReadings Uniform(size_t n, int level) {
  NvmlLinkReadings r;
  r.ancestor.assign(n, std::vector<int>(n, level));
  r.direct_nvlink.assign(n, std::vector<bool>(n, false));
  r.on_nvswitch.assign(n, false);
  return r;
}

TEST(NvmlTopologyTest, AncestorLevelsAndDirectLinksMakeTheSameTopologyAsASpec) {
  // Two NUMA nodes (SYSTEM across), a PCIe switch pair (SINGLE) and a
  // host-bridge pair in each, and NVLink 0-1, 2-3 (bridges), 4..7 (a mesh).
  NvmlLinkReadings r = Uniform(8, 50);
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
  NvmlLinkReadings r = Uniform(4, 40);
  r.on_nvswitch = {true, true, false, true};
  GpuTopology t = TopologyFromNvml({0, 1, 2, 3}, r);
  EXPECT_TRUE(t.nvlink[0][3]);
  EXPECT_FALSE(t.nvlink[0][2]);
  EXPECT_EQ(t.pcie[0][2], PcieLevel::kNumaNode);
}

TEST(NvmlTopologyTest, NothingReadIsFlatAndBadReadingsAreIgnored) {
  NvmlLinkReadings r = Uniform(2, -1);
  GpuTopology t = TopologyFromNvml({0, 1}, r);
  EXPECT_FALSE(t.known);
  EXPECT_EQ(t.pcie[0][1], PcieLevel::kSystem);
  GpuTopology wrong = TopologyFromNvml({0, 1, 2}, r);  // readings for 2 GPUs
  EXPECT_FALSE(wrong.known);
  EXPECT_EQ(wrong.indices, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace kuota::runtime
