#include "runtime/gpu_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace kuota::runtime {
namespace {

TEST(GpuAllocatorTest, AllocatesLowestFreeIndicesAndReleases) {
  GpuAllocator a({0, 1, 2, 3});
  EXPECT_EQ(a.Total(), 4);
  auto p1 = a.Allocate("pod-a", 2);
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  EXPECT_EQ(*p1, (std::vector<int>{0, 1}));
  auto p2 = a.Allocate("pod-b", 1);
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(*p2, (std::vector<int>{2}));
  EXPECT_EQ(a.Free(), 1);

  auto too_many = a.Allocate("pod-c", 2);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(too_many.status().message(), "GPU allocation for pod-c: asked for 2, only 1 of 4 free");
  EXPECT_EQ(a.Free(), 1);  // a failed request takes nothing

  a.Release("pod-a");
  EXPECT_EQ(a.Free(), 3);
  EXPECT_TRUE(a.HeldBy("pod-a").empty());
  auto p3 = a.Allocate("pod-c", 2);
  ASSERT_TRUE(p3.ok());
  EXPECT_EQ(*p3, (std::vector<int>{0, 1}));
  a.Release("nobody");  // no-op
  EXPECT_EQ(a.Free(), 1);
}

TEST(GpuAllocatorTest, RepeatedRequestsAreIdempotentButDifferentCountsConflict) {
  GpuAllocator a({0, 1, 2});
  ASSERT_TRUE(a.Allocate("pod-a", 2).ok());
  auto again = a.Allocate("pod-a", 2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, (std::vector<int>{0, 1}));
  EXPECT_EQ(a.Free(), 1);
  EXPECT_EQ(a.Allocate("pod-a", 1).status().code(), StatusCode::kConflict);
  auto zero = a.Allocate("pod-z", 0);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->empty());
  EXPECT_EQ(a.Allocate("pod-n", -1).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Allocate("", 1).status().code(), StatusCode::kInvalid);
}

TEST(GpuAllocatorTest, RestoreRebuildsStateAndNeverSharesAGpu) {
  GpuAllocator a({0, 1, 2, 3});
  ASSERT_TRUE(a.Restore("pod-a", {3, 1}).ok());
  EXPECT_EQ(a.HeldBy("pod-a"), (std::vector<int>{1, 3}));
  EXPECT_TRUE(a.Restore("pod-a", {1, 3}).ok());  // same set again: fine
  EXPECT_EQ(a.Free(), 2);

  Status taken = a.Restore("pod-b", {0, 1});
  EXPECT_EQ(taken.code(), StatusCode::kConflict);
  EXPECT_EQ(taken.message(), "GPU restore for pod-b: GPU 1 is already held by pod-a");
  EXPECT_TRUE(a.HeldBy("pod-b").empty());  // all or nothing: 0 not taken
  EXPECT_EQ(a.Free(), 2);

  Status unknown = a.Restore("pod-b", {7});
  EXPECT_EQ(unknown.code(), StatusCode::kInvalid);
  EXPECT_EQ(unknown.message(),
            "GPU restore for pod-b: GPU 7 is not on this machine (have [0,1,2,3])");
  EXPECT_EQ(a.Restore("pod-b", {0, 0}).code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Restore("pod-a", {1}).code(), StatusCode::kConflict);

  // New allocations skip restored GPUs.
  auto p = a.Allocate("pod-c", 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<int>{0, 2}));
  EXPECT_EQ(a.Free(), 0);
}

TEST(GpuAllocatorTest, ConcurrentAllocationsNeverHandOutAGpuTwice) {
  GpuAllocator a({0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<std::vector<int>> got(16);
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      auto r = a.Allocate("pod-" + std::to_string(t), 1);
      if (r.ok()) got[t] = *r;
    });
  }
  for (auto& th : threads) th.join();
  std::vector<int> all;
  for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(a.Free(), 0);
}

TEST(GpuAllocatorTest, VisibilityEnvListsIndices) {
  std::vector<EnvVar> env = GpuVisibilityEnv({0, 2});
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(env[0].value, "0,2");
  EXPECT_EQ(env[1].name, "NVIDIA_VISIBLE_DEVICES");
  EXPECT_EQ(env[1].value, "0,2");
  std::vector<EnvVar> none = GpuVisibilityEnv({});
  EXPECT_EQ(none[0].value, "");
  EXPECT_EQ(none[1].value, "");
}

}  // namespace
}  // namespace kuota::runtime
