// ConnectionThreads: the httplib TaskQueue behind kuotad's listeners. httplib
// hands it one task per accepted connection, which runs until the connection
// closes (a watch's for as long as the watch is open), so each task gets a
// thread of its own, started on demand: `keep` threads stay ready, at most
// `max` run at once (later connections wait for one, in order), and a thread
// beyond `keep` that sits idle for `idle_exit` ends.
// Thread-safe: enqueue and shutdown may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include <httplib.h>

#include "store/mutex.h"
#include "store/thread_annotations.h"

namespace kuota::server {

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  // `max` is raised to `keep` (and to 1) when smaller.
  ConnectionThreads(size_t keep, size_t max, std::chrono::milliseconds idle_exit);
  // Shuts down first (joins every thread).
  ~ConnectionThreads() override;
  ConnectionThreads(const ConnectionThreads&) = delete;
  ConnectionThreads& operator=(const ConnectionThreads&) = delete;

  // Runs `task` on an idle thread, else on a new one while fewer than `max`
  // run, else once a thread comes free.
  void enqueue(std::function<void()> task) override;
  // Runs the tasks still queued, then joins every thread. A task enqueued
  // afterwards runs on the caller's thread. Idempotent.
  void shutdown() override;

  // Threads alive now (running a task or idle).
  size_t thread_count() const;

 private:
  void StartThread() REQUIRES(mu_);
  void Work();

  const size_t keep_;
  const size_t max_;
  const std::chrono::milliseconds idle_exit_;

  mutable store::Mutex mu_;
  store::CondVar work_{&mu_};  // a task was queued, or shutdown began
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  std::map<std::thread::id, std::thread> threads_ GUARDED_BY(mu_);
  // Threads that ended for idleness, to be joined by the next caller.
  std::vector<std::thread> exited_ GUARDED_BY(mu_);
  size_t idle_ GUARDED_BY(mu_) = 0;  // threads waiting for a task
  bool shut_down_ GUARDED_BY(mu_) = false;
};

}  // namespace kuota::server
