// Quota node math (Kueue's cache/scheduler/resource_node.go): subtree quota,
// guaranteed quota under lendingLimit, Available / PotentialAvailable under
// borrowingLimit, and usage propagation to cohorts.
#include "engine/quota_node.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/cohort_node.h"
#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

constexpr int64_t kCpu = 1000;  // one cpu in milli-units

// Quota spec of one ClusterQueue's "cpu" in flavor "default".
struct CpuQuota {
  std::string nominal;
  std::optional<std::string_view> borrowing_limit = std::nullopt;
  std::optional<std::string_view> lending_limit = std::nullopt;
};

api::ClusterQueue QuotaQueue(const std::string& name, const std::string& cohort,
                             const CpuQuota& q) {
  return testing::CpuQueue(name, q.nominal, cohort, q.borrowing_limit, q.lending_limit).Obj();
}

TEST(QuotaNodeTest, StandaloneClusterQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), QuotaQueue("cq", "", {"10"})));
  ClusterQueueNode* cq = h.CQ("cq");
  const FrId cpu = h.Fr("default", "cpu");
  ASSERT_NE(cq, nullptr);
  EXPECT_FALSE(cq->has_parent());
  EXPECT_EQ(cq->subtree_quota(cpu), 10 * kCpu);
  EXPECT_EQ(cq->Available(cpu), 10 * kCpu);
  cq->AddUsage(cpu, 4 * kCpu);
  EXPECT_EQ(cq->Available(cpu), 6 * kCpu);
  EXPECT_EQ(cq->PotentialAvailable(cpu), 10 * kCpu);
  EXPECT_FALSE(cq->IsBorrowing(cpu));
  cq->RemoveUsage(cpu, 4 * kCpu);
  EXPECT_EQ(cq->usage(cpu), 0);
}

// Two ClusterQueues "a" and "b" in cohort "all"; usage is put on both and
// the availability of "a" is checked.
struct CohortCase {
  std::string name;
  CpuQuota a;
  CpuQuota b;
  int64_t usage_a;
  int64_t usage_b;
  int64_t want_cohort_subtree;
  int64_t want_cohort_usage;
  int64_t want_available_a;
  int64_t want_potential_a;
  int64_t want_available_b;
};

// 10 cpu of which "a" lends 4; of which it lends none.
const CpuQuota kLends4{"10", std::nullopt, "4"};
const CpuQuota kLendsNone{"10", std::nullopt, "0"};

using CohortMathTest = HarnessTest<CohortCase>;

TEST_P(CohortMathTest, AvailableAndPotential) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), QuotaQueue("a", "all", c.a),
                      QuotaQueue("b", "all", c.b)));
  ClusterQueueNode* a = h.CQ("a");
  ClusterQueueNode* b = h.CQ("b");
  CohortNode* all = h.Cohort("all");
  const FrId cpu = h.Fr("default", "cpu");
  ASSERT_NE(all, nullptr);
  if (c.usage_a) a->AddUsage(cpu, c.usage_a * kCpu);
  if (c.usage_b) b->AddUsage(cpu, c.usage_b * kCpu);
  EXPECT_EQ(all->subtree_quota(cpu), c.want_cohort_subtree * kCpu);
  EXPECT_EQ(all->usage(cpu), c.want_cohort_usage * kCpu);
  EXPECT_EQ(a->Available(cpu), c.want_available_a * kCpu);
  EXPECT_EQ(a->PotentialAvailable(cpu), c.want_potential_a * kCpu);
  EXPECT_EQ(b->Available(cpu), c.want_available_b * kCpu);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CohortMathTest,
    ::testing::Values(
        CohortCase{"NoLimitsEmpty", {"10"}, {"5"}, 0, 0, 15, 0, 15, 15, 15},
        CohortCase{"NoLimitsOtherUses", {"10"}, {"5"}, 0, 3, 15, 3, 12, 15, 12},
        CohortCase{"NoLimitsBorrowing", {"10"}, {"5"}, 12, 0, 15, 12, 3, 15, 3},
        // borrowingLimit 2 caps what "a" can take beyond its own 10.
        CohortCase{"BorrowingLimitCaps", {"10", "2"}, {"5"}, 0, 0, 15, 0, 12, 12, 15},
        CohortCase{"BorrowingLimitPartlyUsed", {"10", "2"}, {"5"}, 11, 0, 15, 11, 1, 12, 4},
        CohortCase{"BorrowingLimitOtherUses", {"10", "2"}, {"5"}, 0, 4, 15, 4, 11, 12, 11},
        CohortCase{"BorrowingLimitZero", {"10", "0"}, {"5"}, 0, 0, 15, 0, 10, 10, 15},
        // lendingLimit 4 keeps 6 of "a"'s 10 for itself: the cohort sees 4+5.
        CohortCase{"LendingLimitGuarantees", kLends4, {"5"}, 0, 0, 9, 0, 15, 15, 9},
        CohortCase{"LendingLimitUsageWithinGuarantee", kLends4, {"5"}, 3, 0, 9, 0, 12, 15, 9},
        CohortCase{"LendingLimitUsageSpills", kLends4, {"5"}, 8, 0, 9, 2, 7, 15, 7},
        CohortCase{"LendingLimitOtherBorrows", kLends4, {"5"}, 0, 7, 9, 7, 8, 15, 2},
        CohortCase{"LendingLimitZeroLendsNothing", kLendsNone, {"5"}, 0, 0, 5, 0, 15, 15, 5},
        CohortCase{"BothLimits", {"10", "1", "4"}, {"5"}, 0, 0, 9, 0, 11, 11, 9}),
    [](const ::testing::TestParamInfo<CohortCase>& info) { return info.param.name; });

// Flavor "default", cohort "root" with `root_cpu` of its own and its child
// `child` with `child_cpu` of its own, lending 1, then `queues`.
template <class... Qs>
bool ApplyTwoLevels(EngineHarness& h, const std::string& root_cpu, const std::string& child,
                    const std::string& child_cpu, const Qs&... queues) {
  return h.Apply(
      MakeResourceFlavor("default"),
      MakeCohort("root").ResourceGroup({"cpu"},
                                       {MakeFlavorQuotas("default").Resource("cpu", root_cpu)}),
      MakeCohort(child).Parent("root").ResourceGroup(
          {"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", child_cpu, std::nullopt, "1")}),
      queues...);
}

// root (own quota 6) <- left (own quota 4, lendingLimit 1) <- cq "a" (4)
// root <- cq "b" (2)
TEST(QuotaNodeTest, HierarchicalCohortsWithTheirOwnQuota) {
  EngineHarness h;
  ASSERT_TRUE(ApplyTwoLevels(h, "6", "left", "4", QuotaQueue("a", "left", {"4"}),
                             QuotaQueue("b", "root", {"2"})));
  const FrId cpu = h.Fr("default", "cpu");
  CohortNode* root = h.Cohort("root");
  CohortNode* left = h.Cohort("left");
  ClusterQueueNode* a = h.CQ("a");
  ClusterQueueNode* b = h.CQ("b");
  ASSERT_NE(left, nullptr);
  ASSERT_EQ(left->parent(), root);
  EXPECT_EQ(left->subtree_quota(cpu), 8 * kCpu);     // 4 own + 4 from "a"
  EXPECT_EQ(left->guaranteed_quota(cpu), 7 * kCpu);  // 8 - lendingLimit 1
  EXPECT_EQ(root->subtree_quota(cpu), 9 * kCpu);     // 6 own + 1 lent by left + 2 from "b"
  EXPECT_EQ(a->PotentialAvailable(cpu), 16 * kCpu);  // everything in the tree
  EXPECT_EQ(b->PotentialAvailable(cpu), 9 * kCpu);   // left keeps 7 for its subtree

  // 10 in "a": 7 stay in left's guarantee, 3 go up to root.
  a->AddUsage(cpu, 10 * kCpu);
  EXPECT_EQ(left->usage(cpu), 10 * kCpu);
  EXPECT_EQ(root->usage(cpu), 3 * kCpu);
  EXPECT_EQ(a->Available(cpu), 6 * kCpu);
  EXPECT_EQ(b->Available(cpu), 6 * kCpu);
  a->RemoveUsage(cpu, 10 * kCpu);
  EXPECT_EQ(left->usage(cpu), 0);
  EXPECT_EQ(root->usage(cpu), 0);
}

TEST(QuotaNodeTest, HierarchicalBorrowingHeight) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeCohort("root").ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "6")}),
      MakeCohort("left").Parent("root"), QuotaQueue("a", "left", {"2"}),
      QuotaQueue("a2", "left", {"2"})));
  const FrId cpu = h.Fr("default", "cpu");
  ClusterQueueNode* a = h.CQ("a");
  EXPECT_EQ(h.Cohort("left")->height(), 1);
  EXPECT_EQ(h.Cohort("root")->height(), 2);
  bool reclaim = false;
  EXPECT_EQ(QuotaTree::BorrowingHeight(*a, cpu, 2 * kCpu, &reclaim), 0);
  EXPECT_EQ(QuotaTree::BorrowingHeight(*a, cpu, 4 * kCpu, &reclaim), 1);  // fits in left
  EXPECT_TRUE(reclaim);  // left is not the root: it may reclaim from its siblings
  EXPECT_EQ(QuotaTree::BorrowingHeight(*a, cpu, 7 * kCpu, &reclaim), 2);  // needs root's quota
  EXPECT_FALSE(reclaim);
}

// Adding then removing the same usage, in any order and size, leaves every
// node of the tree where it was.
struct SymmetryCase {
  std::string name;
  std::vector<int64_t> adds_a;  // cpus, added in order, then removed in reverse
  std::vector<int64_t> adds_b;
};

class UsageSymmetryTest : public ::testing::TestWithParam<SymmetryCase> {};

TEST_P(UsageSymmetryTest, AddThenRemoveRestores) {
  EngineHarness h;
  ASSERT_TRUE(ApplyTwoLevels(h, "3", "mid", "2", QuotaQueue("a", "mid", kLends4),
                             QuotaQueue("b", "root", {"5", "2"})));
  const FrId cpu = h.Fr("default", "cpu");
  ClusterQueueNode* a = h.CQ("a");
  ClusterQueueNode* b = h.CQ("b");
  const QuotaNode* nodes[] = {a, b, h.Cohort("mid"), h.Cohort("root")};
  const auto& c = GetParam();
  for (int64_t v : c.adds_a) a->AddUsage(cpu, v * kCpu);
  for (int64_t v : c.adds_b) b->AddUsage(cpu, v * kCpu);
  // Interleave removals: b's first, then a's in reverse.
  for (auto it = c.adds_b.rbegin(); it != c.adds_b.rend(); ++it) b->RemoveUsage(cpu, *it * kCpu);
  for (auto it = c.adds_a.rbegin(); it != c.adds_a.rend(); ++it) a->RemoveUsage(cpu, *it * kCpu);
  for (const QuotaNode* n : nodes) EXPECT_EQ(n->usage(cpu), 0) << n->name();
}

INSTANTIATE_TEST_SUITE_P(
    Table, UsageSymmetryTest,
    ::testing::Values(SymmetryCase{"WithinGuarantee", {3}, {}},
                      SymmetryCase{"CrossesGuarantee", {4, 5}, {}},
                      SymmetryCase{"AboveSubtree", {8, 6}, {7}},
                      SymmetryCase{"ManySmall", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1}},
                      SymmetryCase{"OnlyOther", {}, {9}}),
    [](const ::testing::TestParamInfo<SymmetryCase>& info) { return info.param.name; });

TEST(QuotaNodeTest, RemovalOrderDifferentFromAddition) {
  // a: nominal 10, lendingLimit 4 -> guaranteed 6.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      QuotaQueue("a", "all", {"10", std::nullopt, "4"}),
                      QuotaQueue("b", "all", {"5"})));
  const FrId cpu = h.Fr("default", "cpu");
  ClusterQueueNode* a = h.CQ("a");
  CohortNode* all = h.Cohort("all");
  a->AddUsage(cpu, 8 * kCpu);  // 6 local, 2 in the cohort
  a->AddUsage(cpu, 3 * kCpu);  // all 3 in the cohort
  EXPECT_EQ(all->usage(cpu), 5 * kCpu);
  a->RemoveUsage(cpu, 8 * kCpu);  // a keeps 3, within its guarantee
  EXPECT_EQ(a->usage(cpu), 3 * kCpu);
  EXPECT_EQ(all->usage(cpu), 0);
  a->RemoveUsage(cpu, 3 * kCpu);
  EXPECT_EQ(a->usage(cpu), 0);
}

}  // namespace
}  // namespace kuota::engine
