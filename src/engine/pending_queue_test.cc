// PendingQueue: Kueue's per-ClusterQueue heap (priority, then FIFO
// timestamp), the inadmissible set, and requeue backoff.
#include "engine/pending_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "engine/workload_info.h"
#include "testing/builders.h"

namespace kuota::engine {
namespace {

using testing::At;

class PendingQueueTest : public ::testing::Test {
 protected:
  WorkloadInfo* Wl(const std::string& name, int32_t priority, int64_t created_s) {
    auto& wl = store_.emplace_back();
    wl.key = "ns/" + name;
    wl.priority = priority;
    wl.creation = At(created_s);
    wl.queue_order_time = At(created_s);
    return &wl;
  }
  static std::vector<std::string> Drain(PendingQueue& q) {
    std::vector<std::string> out;
    while (WorkloadInfo* wl = q.Pop()) out.push_back(wl->key);
    return out;
  }

  std::deque<WorkloadInfo> store_;  // stable addresses
  PendingQueue q_;
};

struct PendingOrderCase {
  std::string name;
  struct In {
    std::string name;
    int32_t priority;
    int64_t created_s;
  };
  std::vector<In> pushed;
  std::vector<std::string> want;
};

class PendingQueueOrderTest : public PendingQueueTest,
                              public ::testing::WithParamInterface<PendingOrderCase> {};

TEST_P(PendingQueueOrderTest, PopsInKueueOrder) {
  for (const auto& in : GetParam().pushed) q_.Push(Wl(in.name, in.priority, in.created_s));
  EXPECT_EQ(Drain(q_), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, PendingQueueOrderTest,
    ::testing::Values(
        PendingOrderCase{"FifoWithinPriority",
                         {{"b", 0, 2}, {"a", 0, 1}, {"c", 0, 3}},
                         {"ns/a", "ns/b", "ns/c"}},
        PendingOrderCase{"HigherPriorityFirst",
                         {{"old-low", 1, 1}, {"new-high", 5, 9}},
                         {"ns/new-high", "ns/old-low"}},
        PendingOrderCase{"PriorityThenTime",
                         {{"l2", 0, 2}, {"h2", 3, 2}, {"l1", 0, 1}, {"h1", 3, 1}, {"neg", -5, 0}},
                         {"ns/h1", "ns/h2", "ns/l1", "ns/l2", "ns/neg"}},
        PendingOrderCase{"TieBrokenByName", {{"z", 0, 1}, {"m", 0, 1}}, {"ns/m", "ns/z"}}),
    [](const ::testing::TestParamInfo<PendingOrderCase>& info) { return info.param.name; });

TEST_F(PendingQueueTest, PushIsIdempotent) {
  WorkloadInfo* a = Wl("a", 0, 1);
  q_.Push(a);
  q_.Push(a);
  EXPECT_EQ(q_.heap_size(), 1u);
  EXPECT_EQ(q_.Head(), a);
  EXPECT_EQ(q_.Pop(), a);
  EXPECT_EQ(q_.Pop(), nullptr);
}

TEST_F(PendingQueueTest, InadmissibleIsNotOfferedUntilRequeued) {
  WorkloadInfo* head = Wl("head", 0, 1);
  WorkloadInfo* next = Wl("next", 0, 2);
  q_.PushInadmissible(head);
  q_.Push(next);
  EXPECT_TRUE(q_.IsInadmissible(head));
  EXPECT_TRUE(q_.Contains(head));
  EXPECT_EQ(q_.Pop(), next);
  EXPECT_EQ(q_.Pop(), nullptr);
  EXPECT_EQ(q_.QueueInadmissible(), 1);
  EXPECT_FALSE(q_.IsInadmissible(head));
  EXPECT_EQ(q_.Pop(), head);
}

TEST_F(PendingQueueTest, MovingBetweenHeapAndInadmissible) {
  WorkloadInfo* a = Wl("a", 0, 1);
  q_.Push(a);
  q_.PushInadmissible(a);
  EXPECT_EQ(q_.heap_size(), 0u);
  EXPECT_EQ(q_.inadmissible_size(), 1u);
  q_.Push(a);
  EXPECT_EQ(q_.heap_size(), 1u);
  EXPECT_EQ(q_.inadmissible_size(), 0u);
  EXPECT_TRUE(q_.Remove(a));
  EXPECT_FALSE(q_.Remove(a));
  EXPECT_EQ(q_.size(), 0u);
}

TEST_F(PendingQueueTest, ParkedWorkloadsLeaveFromAnyPositionAndListInOrder) {
  // The parked set keeps no order; removing from its middle must keep the
  // others findable, and Ordered() still lists them in heap order.
  WorkloadInfo* a = Wl("a", 0, 3);
  WorkloadInfo* b = Wl("b", 5, 2);
  WorkloadInfo* c = Wl("c", 0, 1);
  WorkloadInfo* d = Wl("d", 1, 4);
  for (WorkloadInfo* w : {a, b, c, d}) q_.PushInadmissible(w);
  EXPECT_TRUE(q_.Remove(b));  // from the middle
  EXPECT_FALSE(q_.IsInadmissible(b));
  EXPECT_EQ(q_.inadmissible_size(), 3u);
  EXPECT_EQ(q_.Ordered(), (std::vector<WorkloadInfo*>{d, c, a}));
  q_.Push(a);  // the last one moves to the heap
  EXPECT_TRUE(q_.IsInadmissible(c));
  EXPECT_TRUE(q_.IsInadmissible(d));
  EXPECT_TRUE(q_.Remove(c));
  EXPECT_EQ(q_.Ordered(), (std::vector<WorkloadInfo*>{a, d}));
  EXPECT_EQ(q_.QueueInadmissible(), 1);
  EXPECT_EQ(Drain(q_), (std::vector<std::string>{"ns/d", "ns/a"}));
}

TEST_F(PendingQueueTest, BackoffReleasedOnlyWhenExpired) {
  WorkloadInfo* a = Wl("a", 0, 1);
  a->requeue_at = At(100);
  q_.PushBackoff(a);
  EXPECT_EQ(q_.backoff_size(), 1u);
  Time when;
  ASSERT_TRUE(q_.NextBackoff(&when));
  EXPECT_EQ(when, At(100));
  q_.ReleaseExpiredBackoff(At(99));
  EXPECT_EQ(q_.Pop(), nullptr);
  q_.ReleaseExpiredBackoff(At(100));
  EXPECT_FALSE(a->requeue_at.has_value());
  EXPECT_EQ(q_.Pop(), a);
}

TEST_F(PendingQueueTest, OrderedListsHeapThenInadmissibleThenBackoff) {
  WorkloadInfo* parked_high = Wl("parked-high", 9, 0);
  WorkloadInfo* parked_low = Wl("parked-low", 0, 0);
  WorkloadInfo* heap = Wl("heap", 0, 5);
  WorkloadInfo* waiting = Wl("waiting", 9, 0);
  waiting->requeue_at = At(50);
  q_.PushInadmissible(parked_low);
  q_.PushInadmissible(parked_high);
  q_.Push(heap);
  q_.PushBackoff(waiting);
  std::vector<WorkloadInfo*> want = {heap, parked_high, parked_low, waiting};
  EXPECT_EQ(q_.Ordered(), want);
  EXPECT_EQ(q_.PositionOf(heap), 0);
  EXPECT_EQ(q_.PositionOf(parked_low), 2);
  EXPECT_EQ(q_.PositionOf(Wl("absent", 0, 0)), -1);
}

// The heap is a binary heap with each workload's position on its record:
// arbitrary removals, parking and re-pushing in a random mix must still pop
// in exactly the sorted order of what is left.
TEST_F(PendingQueueTest, HeapKeepsOrderUnderRandomRemovalsAndParking) {
  std::vector<WorkloadInfo*> all;
  uint64_t x = 12345;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int i = 0; i < 500; ++i) {
    WorkloadInfo* wl = Wl("w" + std::to_string(i), static_cast<int32_t>(next() % 5),
                          static_cast<int64_t>(next() % 50));
    wl->seq = static_cast<uint64_t>(i);
    all.push_back(wl);
    q_.Push(wl);
  }
  std::vector<WorkloadInfo*> in_heap;
  for (WorkloadInfo* wl : all) {
    switch (next() % 4) {
      case 0:
        EXPECT_TRUE(q_.Remove(wl));
        break;
      case 1:
        q_.PushInadmissible(wl);
        break;
      default:
        in_heap.push_back(wl);
    }
  }
  std::sort(in_heap.begin(), in_heap.end(), [](const WorkloadInfo* a, const WorkloadInfo* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    if (a->queue_order_time != b->queue_order_time) {
      return a->queue_order_time < b->queue_order_time;
    }
    return a->seq < b->seq;
  });
  EXPECT_EQ(q_.heap_size(), in_heap.size());
  std::vector<WorkloadInfo*> popped;
  while (WorkloadInfo* wl = q_.Pop()) popped.push_back(wl);
  EXPECT_EQ(popped, in_heap);
  EXPECT_GT(q_.inadmissible_size(), 0u);
  const size_t parked = q_.inadmissible_size();
  EXPECT_EQ(q_.QueueInadmissible(), static_cast<int>(parked));
  EXPECT_EQ(q_.heap_size(), parked);
}

}  // namespace
}  // namespace kuota::engine
