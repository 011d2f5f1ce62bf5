// RateLimiter: the client-side request budget of the Kubernetes driver, as
// client-go's token bucket (Kueue's clientConnection.qps / burst): up to
// `burst` requests at once, refilled at `qps` per second; Acquire waits for a
// token. qps <= 0 means no limit. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>

namespace kuota::kube {

class RateLimiter {
 public:
  RateLimiter(double qps, int burst);
  // Takes one token, waiting as long as needed; returns how long it waited.
  std::chrono::nanoseconds Acquire();

 private:
  using Clock = std::chrono::steady_clock;
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace kuota::kube
