#include "kube/rate_limiter.h"

#include <algorithm>
#include <thread>

namespace kuota::kube {

RateLimiter::RateLimiter(double qps, int burst)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_), last_(Clock::now()) {}

std::chrono::nanoseconds RateLimiter::Acquire() {
  if (qps_ <= 0) return std::chrono::nanoseconds(0);
  std::chrono::nanoseconds wait(0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
    // Take the token now (possibly going negative): later callers queue
    // behind this one, each waiting for its own share of the refill.
    tokens_ -= 1;
    if (tokens_ < 0) {
      wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(-tokens_ / qps_));
    }
  }
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
  return wait;
}

}  // namespace kuota::kube
