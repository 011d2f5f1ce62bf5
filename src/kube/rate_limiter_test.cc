// RateLimiter: client-go's token bucket — a burst at once, then qps per
// second. Bounds are generous: these run under AddressSanitizer too.
#include "kube/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace kuota::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using Clock = std::chrono::steady_clock;

TEST(RateLimiterTest, BurstAtOnceThenPacedAtQps) {
  RateLimiter limiter(20, 5);
  const auto start = Clock::now();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(limiter.Acquire(), nanoseconds(0)) << "token " << i;
  EXPECT_LT(Clock::now() - start, milliseconds(100));
  for (int i = 0; i < 10; ++i) EXPECT_GT(limiter.Acquire(), nanoseconds(0)) << "token " << 5 + i;
  // 10 tokens beyond the burst at 20 per second: about 500 ms.
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, milliseconds(450));
  EXPECT_LT(elapsed, milliseconds(3000));
}

TEST(RateLimiterTest, EachWaitIsAboutOneIntervalOnceTheBurstIsSpent) {
  RateLimiter limiter(50, 1);
  EXPECT_EQ(limiter.Acquire(), nanoseconds(0));
  const nanoseconds wait = limiter.Acquire();
  EXPECT_GT(wait, milliseconds(5));  // 20 ms, less the time since the first
  EXPECT_LE(wait, milliseconds(20));
}

TEST(RateLimiterTest, RefillsWhileIdleUpToTheBurst) {
  RateLimiter limiter(50, 2);
  limiter.Acquire();
  limiter.Acquire();
  std::this_thread::sleep_for(milliseconds(200));  // 10 tokens' worth, capped at 2
  EXPECT_EQ(limiter.Acquire(), nanoseconds(0));
  EXPECT_EQ(limiter.Acquire(), nanoseconds(0));
  EXPECT_GT(limiter.Acquire(), nanoseconds(0));
}

TEST(RateLimiterTest, ConcurrentCallersShareTheBudget) {
  RateLimiter limiter(40, 4);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) limiter.Acquire();
    });
  }
  for (auto& t : threads) t.join();
  // 20 tokens, 16 beyond the burst at 40 per second: about 400 ms.
  const auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, milliseconds(350));
  EXPECT_LT(elapsed, milliseconds(3000));
}

TEST(RateLimiterTest, NoLimitWithoutQps) {
  RateLimiter limiter(0, 1);
  const auto start = Clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(limiter.Acquire(), nanoseconds(0));
  EXPECT_LT(Clock::now() - start, milliseconds(500));
}

TEST(RateLimiterTest, ZeroBurstStillLetsOneThrough) {
  RateLimiter limiter(10, 0);
  EXPECT_EQ(limiter.Acquire(), nanoseconds(0));
  EXPECT_GT(limiter.Acquire(), milliseconds(50));
}

}  // namespace
}  // namespace kuota::kube
