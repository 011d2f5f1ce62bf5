// ConnectionThreads: a thread per task on demand, up to the cap; tasks past
// the cap wait their turn; extra threads end when idle; shutdown runs what
// is queued and joins.
#include "server/connection_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kuota::server {
namespace {

using std::chrono::milliseconds;

// Tasks that block until released, counting how many are running.
class Gate {
 public:
  std::function<void()> Task() {
    return [this] {
      std::unique_lock<std::mutex> lock(mu_);
      ++running_;
      cv_.notify_all();
      cv_.wait(lock, [this] { return open_; });
      --running_;
      ++finished_;
      cv_.notify_all();
    };
  }
  bool WaitRunning(int n, milliseconds timeout = milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return running_ >= n; });
  }
  int running() {
    std::lock_guard<std::mutex> lock(mu_);
    return running_;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool WaitFinished(int n, milliseconds timeout = milliseconds(5000)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return finished_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  int finished_ = 0;
  bool open_ = false;
};

TEST(ConnectionThreadsTest, GrowsPastTheKeptThreadsUpToTheCap) {
  ConnectionThreads pool(2, 6, milliseconds(10000));
  EXPECT_EQ(pool.thread_count(), 2u);
  Gate gate;
  for (int i = 0; i < 8; ++i) pool.enqueue(gate.Task());
  ASSERT_TRUE(gate.WaitRunning(6));
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(gate.running(), 6);  // the other two wait for a thread
  EXPECT_EQ(pool.thread_count(), 6u);
  gate.Open();
  EXPECT_TRUE(gate.WaitFinished(8));
  pool.shutdown();
}

TEST(ConnectionThreadsTest, ExtraThreadsEndWhenIdle) {
  ConnectionThreads pool(1, 8, milliseconds(100));
  Gate gate;
  for (int i = 0; i < 5; ++i) pool.enqueue(gate.Task());
  ASSERT_TRUE(gate.WaitRunning(5));
  gate.Open();
  ASSERT_TRUE(gate.WaitFinished(5));
  for (int i = 0; i < 100 && pool.thread_count() > 1; ++i) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(pool.thread_count(), 1u);
  // And it still serves.
  std::atomic<bool> ran{false};
  pool.enqueue([&] { ran = true; });
  pool.shutdown();
  EXPECT_TRUE(ran);
}

TEST(ConnectionThreadsTest, ShutdownRunsQueuedTasks) {
  std::atomic<int> ran{0};
  {
    ConnectionThreads pool(1, 1, milliseconds(10000));
    for (int i = 0; i < 20; ++i) pool.enqueue([&] { ++ran; });
    pool.shutdown();
    EXPECT_EQ(ran.load(), 20);
    pool.enqueue([&] { ++ran; });  // after shutdown: on this thread
    EXPECT_EQ(ran.load(), 21);
  }
}

}  // namespace
}  // namespace kuota::server
