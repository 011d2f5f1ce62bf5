#include "runtime/gpu_topology_spec.h"

#include <gtest/gtest.h>

namespace kuota::runtime {
namespace {

std::vector<int> SpecGpus(int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(i);
  return out;
}

TEST(GpuTopologySpecTest, TwoIslandsOnTwoNumaNodes) {
  auto t = ParseGpuTopologySpec("nvlink=0-3,4-7;numa=0-3,4-7", SpecGpus(8));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->known);
  EXPECT_TRUE(t->Validate().ok());
  EXPECT_TRUE(t->nvlink[0][3]);
  EXPECT_FALSE(t->nvlink[3][4]);
  EXPECT_EQ(t->pcie[1][2], PcieLevel::kNumaNode);
  EXPECT_EQ(t->pcie[1][6], PcieLevel::kSystem);
  EXPECT_EQ(FormatGpuTopologySpec(*t), "nvlink=0-3,4-7;numa=0-3,4-7");
}

TEST(GpuTopologySpecTest, NestedPcieLevelsTakeTheClosest) {
  auto t = ParseGpuTopologySpec(" numa = 0-7 ; pcie=0+1,2-3 ; hostbridge=0-3,4-7 ", SpecGpus(8));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->pcie[0][1], PcieLevel::kSwitch);
  EXPECT_EQ(t->pcie[0][2], PcieLevel::kHostBridge);
  EXPECT_EQ(t->pcie[0][4], PcieLevel::kNumaNode);
  EXPECT_EQ(t->pcie[4][5], PcieLevel::kHostBridge);  // 4, 5 under no declared switch
  EXPECT_FALSE(t->nvlink[0][1]);
  EXPECT_EQ(FormatGpuTopologySpec(*t), "pcie=0+1,2+3;hostbridge=0-3,4-7;numa=0-7");
  // What it prints reads back the same.
  auto again = ParseGpuTopologySpec(FormatGpuTopologySpec(*t), SpecGpus(8));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->pcie, t->pcie);
}

TEST(GpuTopologySpecTest, AnNvSwitchIslandMaySpanNumaNodes) {
  auto t = ParseGpuTopologySpec("nvlink=0-7;pcie=0+1,2+3,4+5,6+7;numa=0-3,4-7", SpecGpus(8));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->nvlink[0][7]);
  EXPECT_EQ(t->pcie[0][7], PcieLevel::kSystem);
  EXPECT_EQ(FormatGpuTopologySpec(*t), "nvlink=0-7;pcie=0+1,2+3,4+5,6+7;numa=0-3,4-7");
  EXPECT_EQ(FormatGpuTopologySpec(GpuTopology::Flat(SpecGpus(4))), "");
}

TEST(GpuTopologySpecTest, BadInputIsNamed) {
  struct Case {
    std::string spec, error;
  };
  const std::vector<Case> cases = {
      {"", "the topology is empty"},
      {"nvlink=0-3;", "empty part (two ';' in a row, or one at an end)"},
      {"nvlink 0-3", "\"nvlink 0-3\": expected LEVEL=GROUPS, e.g. nvlink=0-3,4-7"},
      {"nvlnk=0-3", "unknown level \"nvlnk\" (levels: nvlink, pcie, hostbridge, numa)"},
      {"numa=0-3;numa=4-7", "level numa is given twice"},
      {"nvlink=0-3,,4-7", "nvlink: empty group"},
      {"nvlink=", "nvlink: empty group"},
      {"nvlink=0-x", "nvlink: \"0-x\" is not a GPU index or a range A-B"},
      {"pcie=a", "pcie: \"a\" is not a GPU index or a range A-B"},
      {"nvlink=-1", "nvlink: \"-1\" is not a GPU index or a range A-B"},
      {"nvlink=3-1", "nvlink: range \"3-1\" runs backwards"},
      {"nvlink=0-8", "nvlink: GPU 8 is not on this machine (GPUs 0-7)"},
      {"numa=0-4,3-7", "numa: GPU 3 is in two groups"},
      {"numa=0+0", "numa: GPU 0 is listed twice in one group"},
      {"pcie=2-5;numa=0-3,4-7",
       "pcie: group 2-5 is not inside one numa group: it spans 0-3 and 4-7"},
      {"hostbridge=0-1;numa=2-3",
       "hostbridge: group 0,1 is not inside one numa group: it spans no numa group (GPUs 0,1)"},
  };
  for (const auto& c : cases) {
    auto t = ParseGpuTopologySpec(c.spec, SpecGpus(8));
    ASSERT_FALSE(t.ok()) << c.spec;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalid) << c.spec;
    EXPECT_EQ(t.status().message(), c.error) << c.spec;
  }
}

TEST(GpuTopologySpecTest, FormatsRanges) {
  EXPECT_EQ(FormatGpuRanges({}), "");
  EXPECT_EQ(FormatGpuRanges({4, 5}), "4,5");
  EXPECT_EQ(FormatGpuRanges({7, 0, 1, 2, 3, 5}), "0-3,5,7");
}

}  // namespace
}  // namespace kuota::runtime
