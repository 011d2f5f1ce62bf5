#include "server/connection_threads.h"

#include <algorithm>
#include <utility>

namespace kuota::server {

ConnectionThreads::ConnectionThreads(size_t keep, size_t max, std::chrono::milliseconds idle_exit)
    : keep_(keep), max_(std::max<size_t>({max, keep, 1})), idle_exit_(idle_exit) {
  store::MutexLock lock(&mu_);
  for (size_t i = 0; i < keep_; ++i) StartThread();
}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::StartThread() {
  std::thread t([this] { Work(); });
  // The new thread blocks on mu_ (held here) before it looks itself up.
  threads_.emplace(t.get_id(), std::move(t));
}

void ConnectionThreads::enqueue(std::function<void()> task) {
  std::vector<std::thread> exited;
  {
    store::MutexLock lock(&mu_);
    if (shut_down_) {
      // Too late for a thread; the task still owns its connection.
      lock.Unlock();
      task();
      return;
    }
    // Idle threads not yet claimed by the tasks already waiting take this one.
    const bool idle_thread = idle_ > tasks_.size();
    tasks_.push_back(std::move(task));
    if (idle_thread) {
      work_.Signal();
    } else if (threads_.size() < max_) {
      StartThread();
    }  // else: it waits for a thread to finish its connection
    exited.swap(exited_);
  }
  for (std::thread& t : exited) t.join();  // they have left Work(): quick
}

void ConnectionThreads::shutdown() {
  std::vector<std::thread> all;
  {
    store::MutexLock lock(&mu_);
    shut_down_ = true;
    work_.SignalAll();
    for (auto& [id, t] : threads_) all.push_back(std::move(t));
    threads_.clear();
    for (std::thread& t : exited_) all.push_back(std::move(t));
    exited_.clear();
  }
  for (std::thread& t : all) t.join();
}

size_t ConnectionThreads::thread_count() const {
  store::MutexLock lock(&mu_);
  return shut_down_ ? 0 : threads_.size();
}

void ConnectionThreads::Work() {
  store::MutexLock lock(&mu_);
  while (true) {
    if (!tasks_.empty()) {
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.Unlock();
      task();
      task = nullptr;  // what it captured goes outside the lock too
      lock.Lock();
      continue;
    }
    if (shut_down_) return;  // shutdown() joins this thread
    ++idle_;
    const bool woken = work_.WaitUntil(std::chrono::steady_clock::now() + idle_exit_);
    --idle_;
    if (!woken && tasks_.empty() && !shut_down_ && threads_.size() > keep_) {
      // Idle too long and not one of the kept: leave the handle to be joined.
      auto node = threads_.extract(std::this_thread::get_id());
      if (!node.empty()) exited_.push_back(std::move(node.mapped()));
      return;
    }
  }
}

}  // namespace kuota::server
