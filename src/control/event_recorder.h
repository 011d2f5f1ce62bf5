// EventRecorder: records core/v1 Events off the caller's thread, as
// client-go's event broadcaster does for Kueue's controllers. Record() queues
// and returns; one background thread writes whatever queued meanwhile in one
// store transaction (ObjectStore::WriteBatch) and coalesces repeats as
// Kubernetes' EventCorrelator does: an Event with the same object, type,
// reason and message as a recent one bumps that Event's count and
// lastTimestamp instead of making another. Best effort: beyond max_queued
// waiting Events new ones are dropped (and counted). Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "store/mutex.h"
#include "store/object_store.h"
#include "store/thread_annotations.h"

namespace kuota::control {

struct EventRecorderOptions {
  // source.component and reportingComponent of every Event.
  std::string component = "kuota-controller";
  // Events waiting to be written; more are dropped.
  size_t max_queued = 20000;
  // Recently written Events remembered for coalescing (least recent forgotten).
  size_t cache_size = 4096;
};

class EventRecorder {
 public:
  // `store` and `clock` must outlive the recorder. Starts its thread.
  EventRecorder(store::ObjectStore& store, const Clock& clock, EventRecorderOptions options = {});
  // Writes what is queued, then ends the thread.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues an Event (type "Normal" or "Warning") about `involved` (apiVersion,
  // kind, metadata name/namespace/uid). Never waits for the store.
  void Record(const nlohmann::json& involved, const std::string& type, const std::string& reason,
              const std::string& message) EXCLUDES(mu_);

  // Waits until every Event recorded before the call has been written (or
  // given up on). False on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout) EXCLUDES(mu_);

  struct Stats {
    int64_t recorded = 0;   // Record() calls
    int64_t created = 0;    // Event objects created
    int64_t coalesced = 0;  // occurrences folded into an existing Event's count
    int64_t dropped = 0;    // over max_queued, or their write failed
    int64_t batches = 0;    // WriteBatch calls
  };
  Stats stats() const EXCLUDES(mu_);

 private:
  struct Pending {
    std::string key;  // involved object, type, reason, message
    nlohmann::json event;
    int64_t count = 1;  // occurrences it stands for
  };
  // A written Event, for coalescing later occurrences into it.
  struct Cached {
    nlohmann::json event;  // as stored (metadata.name set), count included
    std::list<std::string>::iterator lru;
  };

  void Run() EXCLUDES(mu_);
  // Writes one drained queue; called on the recorder's thread only.
  void WriteOut(std::vector<Pending> batch) EXCLUDES(mu_);
  void Remember(const std::string& key, nlohmann::json stored);

  store::ObjectStore& store_;
  const Clock& clock_;
  const EventRecorderOptions options_;

  mutable store::Mutex mu_;
  store::CondVar work_{&mu_};  // queue_ filled or stopping
  store::CondVar idle_{&mu_};  // a batch finished
  std::vector<Pending> queue_ GUARDED_BY(mu_);
  bool writing_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  Stats stats_ GUARDED_BY(mu_);

  // Recorder-thread state.
  std::unordered_map<std::string, Cached> cache_;
  std::list<std::string> lru_;  // most recent first

  std::thread thread_;
};

}  // namespace kuota::control
