#include "standalone/store_loop.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "control/object_errors.h"

namespace kuota::standalone {

StoreLoop::StoreLoop(store::ObjectStore& store, const Clock& clock, std::string name,
                     std::chrono::milliseconds idle_tick)
    : loop_store_(store), loop_clock_(clock), name_(std::move(name)), idle_tick_(idle_tick) {}

StoreLoop::~StoreLoop() { Stop(); }

Status StoreLoop::Start() {
  Status synced;
  std::string err = control::CatchAll([&] { synced = Sync(); });
  if (!err.empty()) return Status::Internal(name_ + ": initial list: " + err);
  KUOTA_RETURN_IF_ERROR(synced.WithContext(name_));
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void StoreLoop::Stop() {
  stop_ = true;
  if (watcher_) watcher_->Stop();
  if (thread_.joinable()) thread_.join();
}

bool StoreLoop::WaitIdle(std::chrono::milliseconds timeout) {
  const int64_t target = loop_store_.CurrentResourceVersion();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    // In this order: the loop marks itself busy before it counts a change
    // as handled.
    if (processed_rv_ >= target && !busy_) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

void StoreLoop::HandleFailed(const store::WatchEvent& ev, const std::string& error) {
  std::fprintf(stderr, "kuotad: %s: %s: %s\n", name_.c_str(), ev.resource.c_str(), error.c_str());
}

void StoreLoop::ReconcileFailed(const std::string& key, const std::string& error) {
  std::fprintf(stderr, "kuotad: %s: %s: %s\n", name_.c_str(), key.c_str(), error.c_str());
  WakeAt(key, loop_clock_.Now() + Duration{1000});
}

void StoreLoop::Replay(const std::string& resource, Json object) {
  store::WatchEvent ev;
  ev.type = store::EventType::kAdded;
  ev.resource = resource;
  ev.object = std::move(object);
  HandleSafely(ev);
}

Status StoreLoop::Sync() {
  const int64_t rv = loop_store_.CurrentResourceVersion();
  dirty_.clear();
  timers_.clear();
  KUOTA_RETURN_IF_ERROR(List());
  KUOTA_ASSIGN_OR_RETURN(watcher_, loop_store_.Watch(store::kAllButEvents, "", rv));
  processed_rv_ = rv;
  listed_ = true;
  return Status::Ok();
}

void StoreLoop::HandleSafely(const store::WatchEvent& ev) {
  std::string err = control::CatchAll([&] { Handle(ev); });
  if (!err.empty()) HandleFailed(ev, err);
}

void StoreLoop::Run() {
  // No exception may end the loop: a step's is logged where it happens;
  // anything else is logged here, and the loop lists again.
  while (!stop_) {
    std::string err = control::CatchAll([&] { RunLoop(); });
    if (err.empty()) break;
    std::fprintf(stderr, "kuotad: %s: %s; listing again\n", name_.c_str(), err.c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
    err = control::CatchAll([&] { (void)Sync(); });
    if (!err.empty()) std::fprintf(stderr, "kuotad: %s: %s\n", name_.c_str(), err.c_str());
  }
}

std::chrono::milliseconds StoreLoop::NextWait() const {
  if (!dirty_.empty()) return std::chrono::milliseconds(0);
  std::chrono::milliseconds wait = idle_tick_;
  if (!timers_.empty()) {
    const Time now = loop_clock_.Now();
    for (const auto& [key, when] : timers_) {
      if (when <= now) return std::chrono::milliseconds(0);
      wait = std::min(wait, std::chrono::milliseconds((when - now).ms));
    }
  }
  return wait;
}

void StoreLoop::RunLoop() {
  while (!stop_) {
    if (listed_) {
      listed_ = false;
      std::string err = control::CatchAll([&] { AfterList(); });
      if (!err.empty()) std::fprintf(stderr, "kuotad: %s: %s\n", name_.c_str(), err.c_str());
    }
    // Idle while it waits with nothing to do; every change stored before
    // the wait began is handled in this round.
    busy_ = !dirty_.empty();
    const int64_t stored_before = loop_store_.CurrentResourceVersion();
    store::EventPtr ev;
    auto wait = NextWait();
    while (!stop_ && watcher_->Next(&ev, wait)) {
      busy_ = true;
      HandleSafely(*ev);
      processed_rv_ = std::max<int64_t>(processed_rv_, ev->resource_version);
      wait = std::chrono::milliseconds(0);
    }
    if (stop_) break;
    if (!watcher_->Alive()) {
      std::fprintf(stderr, "kuotad: %s: the watch ended; listing again\n", name_.c_str());
      if (!Sync().ok()) std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    const Time now = loop_clock_.Now();
    for (auto it = timers_.begin(); it != timers_.end();) {
      if (it->second <= now) {
        dirty_.insert(it->first);
        it = timers_.erase(it);
      } else {
        ++it;
      }
    }
    if (!dirty_.empty()) busy_ = true;
    std::set<std::string> work;
    work.swap(dirty_);
    for (const std::string& key : work) {
      if (stop_) break;
      bool again = false;
      std::string err = control::CatchAll([&] { again = Reconcile(key); });
      if (!err.empty()) {
        ReconcileFailed(key, err);
      } else if (again) {
        dirty_.insert(key);
      }
    }
    // Versions no watched change took (Events) count as handled too.
    if (dirty_.empty()) processed_rv_ = std::max<int64_t>(processed_rv_, stored_before);
    busy_ = !dirty_.empty();
  }
}

}  // namespace kuota::standalone
