// HolderOrder: every quota holder of one tree (and only of that tree), in
// Kueue's candidate order (priority, then most recent reservation, then UID,
// then name); while frozen each tree's list is built once, and Thaw drops it.
#include "engine/holder_order.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

api::Workload Holding(const std::string& name, const std::string& cq, int32_t priority,
                      int64_t reserved_s, const std::string& uid) {
  auto w = MakeWorkload(name, "ns")
               .Queue("lq-" + cq)
               .Priority(priority)
               .PodSet("main", 1, {{"cpu", "1"}})
               .ReserveQuota(cq, {{"cpu", "default"}}, At(reserved_s))
               .Admitted(At(reserved_s))
               .Obj();
  w.metadata.uid = uid;
  return w;
}

Keys KeysOf(const HolderOrder::View& v) {
  Keys out;
  for (const auto& h : v.holders) {
    out.push_back(h.wl->key + "@" + v.cqs[static_cast<size_t>(h.cq)]->name());
  }
  return out;
}

class HolderOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(h_.Apply(MakeResourceFlavor("default"), CpuQueue("a", "10", "team"),
                         CpuQueue("b", "10", "team"), CpuQueue("lone", "10", ""),
                         MakeLocalQueue("lq-a", "ns").ClusterQueue("a"),
                         MakeLocalQueue("lq-b", "ns").ClusterQueue("b"),
                         MakeLocalQueue("lq-lone", "ns").ClusterQueue("lone")));
    ASSERT_TRUE(h_.Apply(Holding("high", "a", 5, 1, "u1"),     // highest priority: last
                         Holding("old", "b", 0, 10, "u2"),     // older reservation
                         Holding("new", "a", 0, 20, "u9"),     // newest first among priority 0
                         Holding("tie-z", "b", 0, 15, "u5"),   // same time: lower UID first
                         Holding("tie-a", "a", 0, 15, "u7"),   //
                         Holding("alone", "lone", 0, 1, "u0")  // another tree
                         ));
  }
  const QuotaNode* Root(const std::string& cq) {
    return QuotaTree::Root(h_.engine().tree().FindClusterQueue(cq));
  }
  EngineHarness h_;
};

TEST_F(HolderOrderTest, TreeHoldersInCandidateOrder) {
  HolderOrder order;
  EXPECT_EQ(KeysOf(order.For(Root("a"))),
            (Keys{"ns/new@a", "ns/tie-z@b", "ns/tie-a@a", "ns/old@b", "ns/high@a"}));
  EXPECT_EQ(KeysOf(order.For(Root("lone"))), Keys{"ns/alone@lone"});
}

TEST_F(HolderOrderTest, FrozenListIsBuiltOnceAndThawDropsIt) {
  HolderOrder order;
  order.Freeze();
  const HolderOrder::View& first = order.For(Root("a"));
  ASSERT_EQ(first.holders.size(), 5u);
  const HolderOrder::View& lone = order.For(Root("lone"));
  // A holder that stops holding while frozen is still listed: the list is reused.
  ASSERT_TRUE(h_.engine().FinishWorkload("ns/old").ok());
  EXPECT_EQ(&order.For(Root("a")), &first);
  EXPECT_EQ(first.holders.size(), 5u);
  EXPECT_EQ(lone.holders.size(), 1u);  // still valid after another tree was built
  order.Thaw();
  EXPECT_EQ(KeysOf(order.For(Root("a"))),
            (Keys{"ns/new@a", "ns/tie-z@b", "ns/tie-a@a", "ns/high@a"}));
}

TEST_F(HolderOrderTest, RefrozenListIsRebuiltInItsKeptBuffers) {
  HolderOrder order;
  order.Freeze();
  ASSERT_EQ(order.For(Root("a")).holders.size(), 5u);
  order.Thaw();
  ASSERT_TRUE(h_.engine().FinishWorkload("ns/tie-a").ok());
  order.Freeze();
  order.For(Root("lone"));  // now in the slot tree "a" had
  EXPECT_EQ(KeysOf(order.For(Root("a"))),
            (Keys{"ns/new@a", "ns/tie-z@b", "ns/old@b", "ns/high@a"}));
  EXPECT_EQ(KeysOf(order.For(Root("lone"))), Keys{"ns/alone@lone"});
}

TEST_F(HolderOrderTest, RebuildIsTheSortedOrderWhateverTheHints) {
  // Each build leaves every holder its position as a hint for the next one;
  // new holders are merged in, and a hint that is wrong changes nothing.
  HolderOrder order;
  ASSERT_EQ(KeysOf(order.For(Root("a"))),
            (Keys{"ns/new@a", "ns/tie-z@b", "ns/tie-a@a", "ns/old@b", "ns/high@a"}));
  ASSERT_TRUE(h_.Apply(Holding("mid", "b", 0, 12, "u3"), Holding("low", "a", -1, 1, "u8")));
  const Keys want{"ns/low@a", "ns/new@a", "ns/tie-z@b", "ns/tie-a@a",
                  "ns/mid@b", "ns/old@b", "ns/high@a"};
  EXPECT_EQ(KeysOf(order.For(Root("a"))), want);
  // Hints from the last build, swapped: the highest priority claims the first place.
  auto* high = const_cast<WorkloadInfo*>(h_.Find("ns/high"));
  auto* low = const_cast<WorkloadInfo*>(h_.Find("ns/low"));
  ASSERT_EQ(low->holder_hint, 0u);
  std::swap(high->holder_hint, low->holder_hint);
  EXPECT_EQ(KeysOf(order.For(Root("a"))), want);
}

TEST_F(HolderOrderTest, PositionsListEachQueuesHoldersInOrder) {
  HolderOrder order;
  const HolderOrder::View& v = order.For(Root("a"));
  ASSERT_EQ(v.cqs.size(), 2u);
  ASSERT_EQ(v.position_begin.size(), 3u);
  std::vector<Keys> per_cq(2);
  for (size_t k = 0; k < 2; ++k) {
    for (uint32_t i = v.position_begin[k]; i < v.position_begin[k + 1]; ++i) {
      const HolderOrder::View::Position& p = v.positions[i];
      const HolderOrder::Holder& h = v.holders[p.pos];
      EXPECT_EQ(static_cast<size_t>(h.cq), k);
      EXPECT_EQ(p.priority, h.priority);
      EXPECT_EQ(p.frs, h.frs);
      if (i > v.position_begin[k]) {
        EXPECT_LT(v.positions[i - 1].pos, p.pos);
      }
      per_cq[k].push_back(h.wl->key);
    }
  }
  const size_t a = v.cqs[0]->name() == "a" ? 0 : 1;
  EXPECT_EQ(per_cq[a], (Keys{"ns/new", "ns/tie-a", "ns/high"}));
  EXPECT_EQ(per_cq[1 - a], (Keys{"ns/tie-z", "ns/old"}));
  EXPECT_EQ(v.positions.size(), v.holders.size());
  EXPECT_TRUE(v.exact_frs);  // one FrId, below 64
  EXPECT_FALSE(v.any_negative);
}

TEST_F(HolderOrderTest, ReservationOrderBeforeIsStrict) {
  const WorkloadInfo* a = h_.Find("ns/tie-a");
  const WorkloadInfo* z = h_.Find("ns/tie-z");
  EXPECT_TRUE(ReservationOrderBefore(z, a));
  EXPECT_FALSE(ReservationOrderBefore(a, z));
  EXPECT_FALSE(ReservationOrderBefore(a, a));
}

}  // namespace
}  // namespace kuota::engine
