#include "runtime/gpu_placement.h"

#include <gtest/gtest.h>

#include "runtime/gpu_allocator.h"
#include "runtime/gpu_topology_spec.h"

namespace kuota::runtime {
namespace {

std::vector<int> GpuRange(int lo, int hi) {
  std::vector<int> out;
  for (int i = lo; i <= hi; ++i) out.push_back(i);
  return out;
}

GpuTopology DeclaredTopology(const std::string& spec, int n = 8) {
  auto t = ParseGpuTopologySpec(spec, GpuRange(0, n - 1));
  EXPECT_TRUE(t.ok()) << spec << ": " << t.status().ToString();
  return t.ok() ? *t : GpuTopology::Flat(GpuRange(0, n - 1));
}

// 8 GPUs in two NVLink islands of 4 on two NUMA nodes.
constexpr char kTwoIslands[] = "nvlink=0-3,4-7;numa=0-3,4-7";

// Takes `gpus` for "other" so that only the rest are free.
void HoldGpus(GpuAllocator& a, const std::vector<int>& gpus) {
  ASSERT_TRUE(a.Restore("other", gpus).ok());
}

TEST(GpuPlacementTest, AFullIslandForAPodAskingFour) {
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  auto p = a.Allocate("pod-a", 4);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p, GpuRange(0, 3));
  EXPECT_EQ(a.ReasonOf("pod-a"), "GPUs 0,1,2,3 share NVLink island 0-3 (best fit: it had 4 free)");
  auto q = a.Allocate("pod-b", 4);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, GpuRange(4, 7));
}

TEST(GpuPlacementTest, BestFitTakesTheIslandWithFewestFreeThatHolds) {
  // Island 0 has 1 free (GPU 3), island 1 has 3 free (5, 6, 7).
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, {0, 1, 2, 4});
  auto p = a.Allocate("pod", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{5, 6}));
  EXPECT_EQ(a.ReasonOf("pod"), "GPUs 5,6 share NVLink island 4-7 (best fit: it had 3 free)");
}

TEST(GpuPlacementTest, BestFitPrefersTheTighterHole) {
  // Island 0: 2 free (2, 3); island 1: 4 free. A pod of 2 fills island 0's
  // hole and leaves island 1 whole for a pod of 4.
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, {0, 1});
  auto p = a.Allocate("pod-2", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{2, 3}));
  auto q = a.Allocate("pod-4", 4);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, GpuRange(4, 7));
}

TEST(GpuPlacementTest, SingleGpuPodsDoNotFragmentIslands) {
  // 1-GPU pods fill the partly used island (lowest free would split island
  // 0), so a pod of 4 still finds one whole.
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, {4});  // island 1 has 3 free, island 0 has 4
  for (int i = 0; i < 3; ++i) {
    auto p = a.Allocate("one-" + std::to_string(i), 1);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->front(), 5 + i) << "pod " << i;  // the partly used island first
  }
  EXPECT_EQ(a.ReasonOf("one-2"), "GPU 7 is in NVLink island 4-7 (best fit: it had 1 free)");
  auto big = a.Allocate("four", 4);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, GpuRange(0, 3));
}

TEST(GpuPlacementTest, AGangOfTwoPodsLandsInOneIsland) {
  // Island 0 has 2 free, island 1 has 4: alone, the first pod would fit
  // island 0; as a gang both go to island 1, which holds all 4.
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, {0, 1});
  auto g = a.AllocateGang({{"w0", 2}, {"w1", 2}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[0].indices, (std::vector<int>{4, 5}));
  EXPECT_EQ((*g)[1].indices, (std::vector<int>{6, 7}));
  EXPECT_EQ((*g)[0].reason,
            "GPUs 4,5 share NVLink island 4-7 (best fit: it had 4 free); its gang of 2 pods (4 "
            "GPUs) is kept in NVLink island 4-7");
  EXPECT_EQ(a.ReasonOf("w1"), (*g)[1].reason);
  // On an empty machine the gang's two pods share island 0.
  GpuAllocator b(DeclaredTopology(kTwoIslands));
  auto h = b.AllocateGang({{"w0", 2}, {"w1", 2}});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ((*h)[0].indices, (std::vector<int>{0, 1}));
  EXPECT_EQ((*h)[1].indices, (std::vector<int>{2, 3}));
}

TEST(GpuPlacementTest, AGangTooBigForAnIslandKeepsEachPodInOne) {
  // 3 + 3 on two empty islands: each pod gets an island of its own, rather
  // than 0-2 and 3-5 (which a "total first" split would give).
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  auto g = a.AllocateGang({{"w0", 3}, {"w1", 3}});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)[0].indices, GpuRange(0, 2));
  EXPECT_EQ((*g)[1].indices, GpuRange(4, 6));
  EXPECT_EQ((*g)[1].reason,
            "GPUs 4,5,6 share NVLink island 4-7 (best fit: it had 4 free); its gang of 2 pods (6 "
            "GPUs) spans the machine");
  // Largest first: the pod of 4 takes a whole island, the pods of 2 the other.
  GpuAllocator b(DeclaredTopology(kTwoIslands));
  auto h = b.AllocateGang({{"s0", 2}, {"big", 4}, {"s1", 2}});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ((*h)[1].indices, GpuRange(0, 3));
  EXPECT_EQ((*h)[0].indices, (std::vector<int>{4, 5}));
  EXPECT_EQ((*h)[2].indices, (std::vector<int>{6, 7}));
}

TEST(GpuPlacementTest, APodLargerThanAnyIslandTakesWholeIslandsFirst) {
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, {0});  // island 0: 3 free, island 1: 4 free
  auto p = a.Allocate("six", 6);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{1, 2, 4, 5, 6, 7}));
  EXPECT_EQ(a.ReasonOf("six"), "GPUs 1,2,4,5,6,7 span the machine (no closer group had 6 free)");
}

TEST(GpuPlacementTest, PcieSwitchesDecideWithoutNvLink) {
  // PCIe switches of 2 under two NUMA nodes, no NVLink.
  GpuAllocator a(DeclaredTopology("pcie=0-1,2-3,4-5,6-7;numa=0-3,4-7"));
  HoldGpus(a, {0, 2, 3});  // NUMA 0: 1 free (GPU 1); NUMA 1: all 4 free
  auto p = a.Allocate("pod", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{4, 5}));
  EXPECT_EQ(a.ReasonOf("pod"), "GPUs 4,5 share PCIe switch 4,5 (best fit: it had 2 free)");
  // A single GPU goes to the fullest switch: GPU 1 (its switch had 1 free).
  auto q = a.Allocate("one", 1);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (std::vector<int>{1}));
  EXPECT_EQ(a.ReasonOf("one"), "GPU 1 is in PCIe switch 0,1 (best fit: it had 1 free)");
  auto r = a.Allocate("three", 3);
  EXPECT_FALSE(r.ok());  // only 6 and 7 are free
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "GPU allocation for three: asked for 3, only 2 of 8 free");
}

TEST(GpuPlacementTest, InsideAnNvSwitchIslandPcieAndNumaDecide) {
  // DGX-like: all 8 on NVSwitch; PCIe switch pairs; two NUMA nodes.
  GpuAllocator a(DeclaredTopology("nvlink=0-7;pcie=0-1,2-3,4-5,6-7;numa=0-3,4-7"));
  HoldGpus(a, {0, 2});  // NUMA 0 has 1, 3 free (no switch pair whole); NUMA 1 all
  auto p = a.Allocate("pod", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{4, 5}));
  EXPECT_EQ(a.ReasonOf("pod"),
            "GPUs 4,5 share NVLink island 0-7 and PCIe switch 4,5 (best fit: it had 6 free)");
  // The rest of the island, though it spans both NUMA nodes.
  auto q = a.Allocate("four", 4);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, (std::vector<int>{1, 3, 6, 7}));
  EXPECT_EQ(a.ReasonOf("four"), "GPUs 1,3,6,7 share NVLink island 0-7 (best fit: it had 4 free)");
}

TEST(GpuPlacementTest, NoTopologyMeansLowestFree) {
  GpuAllocator a(std::vector<int>{0, 1, 2, 3});
  HoldGpus(a, {1});
  auto p = a.Allocate("pod", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{0, 2}));
  EXPECT_EQ(a.ReasonOf("pod"), "GPUs 0,2: lowest free (no GPU topology known)");
  // A gang too: the lowest free, in the order asked, no region to speak of.
  a.Release("pod");
  auto g = a.AllocateGang({{"w0", 1}, {"w1", 1}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)[0].indices, (std::vector<int>{0}));
  EXPECT_EQ((*g)[1].reason, "GPU 2: lowest free (no GPU topology known)");
}

TEST(GpuPlacementTest, GangsAreAllOrNothingAndIdempotent) {
  GpuAllocator a(DeclaredTopology(kTwoIslands));
  HoldGpus(a, GpuRange(0, 4));
  auto too_big = a.AllocateGang({{"w0", 2}, {"w1", 2}});
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().message(), "GPU allocation for w0,w1: asked for 4, only 3 of 8 free");
  EXPECT_EQ(a.Free(), 3);
  auto g = a.AllocateGang({{"w0", 2}, {"none", 0}, {"w1", 1}});
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->size(), 2u);
  // Asked again (a pod already holding its GPUs): the same grants.
  auto again = a.AllocateGang({{"w0", 2}, {"w1", 1}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].indices, (*g)[0].indices);
  EXPECT_EQ((*again)[1].reason, (*g)[1].reason);
  EXPECT_EQ(a.AllocateGang({{"w0", 1}}).status().code(), StatusCode::kConflict);
  EXPECT_EQ(a.AllocateGang({{"x", 1}, {"x", 1}}).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.AllocateGang({{"x", -1}}).status().code(), StatusCode::kInvalid);
  a.Release("w0");
  EXPECT_EQ(a.ReasonOf("w0"), "");
}

TEST(GpuPlacementTest, AnInvalidTopologyCountsAsFlat) {
  GpuTopology bad = GpuTopology::Flat(GpuRange(0, 3));
  bad.known = true;
  bad.nvlink[0][1] = true;  // not symmetric
  GpuPlacer placer(bad);
  EXPECT_FALSE(placer.topology().known);
  auto g = placer.Place({1, 2, 3}, {{"pod", 2}});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)[0].indices, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace kuota::runtime
