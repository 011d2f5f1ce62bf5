// StoreLoop: the loop each of kuotad's local controllers (jobs, Deployments
// and StatefulSets, AppWrappers, Volcano queues) runs over the store, on a
// thread of its own: list what it follows, then watch every change after
// that list; hand each change to Handle, which marks the keys it concerns;
// reconcile each marked key and each key whose wake-up time has come. An
// exception in one step is logged (a key's is retried a second later); one
// that escapes the loop, or a watch that ends, makes it list again. A
// subclass supplies List, Handle and Reconcile, and must call Stop() in its
// own destructor (the loop calls its virtual functions). Start, Stop and
// WaitIdle are thread-safe; everything else runs on the loop thread (List
// also inside Start, before the thread exists).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "store/object_store.h"

namespace kuota::standalone {

class StoreLoop {
 public:
  StoreLoop(const StoreLoop&) = delete;
  StoreLoop& operator=(const StoreLoop&) = delete;
  virtual ~StoreLoop();

  // Lists what the loop follows and starts its thread; fails when that
  // first list does.
  Status Start();
  // Ends the loop and joins its thread. Idempotent.
  void Stop();
  // Waits until every change stored before the call has been handled and no
  // key is left to reconcile at once. False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout);

 protected:
  using Json = nlohmann::json;

  // `name` names the loop in logs ("job controller"); `idle_tick` is how
  // long it waits for a change before it looks at wake-up times again.
  // `store` and `clock` must outlive the loop.
  StoreLoop(store::ObjectStore& store, const Clock& clock, std::string name,
            std::chrono::milliseconds idle_tick);

  // Forgets what the loop knows and lists what it follows again, handing
  // each object to Replay (or marking keys itself).
  virtual Status List() = 0;
  // One change seen: updates what the loop knows and marks keys.
  virtual void Handle(const store::WatchEvent& ev) = 0;
  // One step for `key`; true when it should be looked at again at once.
  virtual bool Reconcile(const std::string& key) = 0;
  // Handle threw `error` on `ev`. Logged by default.
  virtual void HandleFailed(const store::WatchEvent& ev, const std::string& error);
  // Reconcile threw `error` on `key`. Logged and retried a second later by
  // default.
  virtual void ReconcileFailed(const std::string& key, const std::string& error);
  // Runs on the loop thread after each list, before any change is handled
  // (for collecting what was orphaned while kuotad was down).
  virtual void AfterList() {}

  // Hands `object` of `resource` to Handle as added, as a watch would.
  void Replay(const std::string& resource, Json object);
  void MarkDirty(const std::string& key) { dirty_.insert(key); }
  // Reconciles `key` at `when` (replacing an earlier wake-up time).
  void WakeAt(const std::string& key, Time when) { timers_[key] = when; }
  void CancelWake(const std::string& key) { timers_.erase(key); }
  // Drops `key`'s mark and wake-up time (its object is gone).
  void Forget(const std::string& key) {
    dirty_.erase(key);
    timers_.erase(key);
  }
  const std::string& loop_name() const { return name_; }

 private:
  // List, then a watch from the version listed.
  Status Sync();
  void Run();
  void RunLoop();  // Run's body; may throw (Run catches)
  void HandleSafely(const store::WatchEvent& ev);
  // How long to wait for a change: 0 with keys marked, else until the next
  // wake-up time, at most idle_tick.
  std::chrono::milliseconds NextWait() const;

  store::ObjectStore& loop_store_;
  const Clock& loop_clock_;
  const std::string name_;
  const std::chrono::milliseconds idle_tick_;
  std::unique_ptr<store::Watcher> watcher_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> processed_rv_{0};
  std::atomic<bool> busy_{true};

  // Loop-thread state.
  bool listed_ = false;                 // AfterList is due
  std::set<std::string> dirty_;         // keys to reconcile
  std::map<std::string, Time> timers_;  // key -> when to reconcile it
};

}  // namespace kuota::standalone
