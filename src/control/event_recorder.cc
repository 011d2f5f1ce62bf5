#include "control/event_recorder.h"

#include <map>
#include <utility>

#include "base/time.h"
#include "control/events.h"
#include "control/meta_string.h"

namespace kuota::control {
namespace {

constexpr const char* kEvents = "events";

// What makes two Events the same occurrence (EventCorrelator's key, less
// the source, which is one per recorder).
std::string CoalesceKey(const nlohmann::json& involved, const std::string& type,
                        const std::string& reason, const std::string& message) {
  std::string key = involved.value("kind", "");
  key += '\n';
  key += MetaString(involved, "namespace");
  key += '\n';
  key += MetaString(involved, "name");
  key += '\n';
  key += MetaString(involved, "uid");
  key += '\n';
  key += type;
  key += '\n';
  key += reason;
  key += '\n';
  key += message;
  return key;
}

}  // namespace

EventRecorder::EventRecorder(store::ObjectStore& store, const Clock& clock,
                             EventRecorderOptions options)
    : store_(store), clock_(clock), options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

EventRecorder::~EventRecorder() {
  {
    store::MutexLock lock(&mu_);
    stop_ = true;
    work_.SignalAll();
  }
  thread_.join();
}

void EventRecorder::Record(const nlohmann::json& involved, const std::string& type,
                           const std::string& reason, const std::string& message) {
  Pending p;
  p.key = CoalesceKey(involved, type, reason, message);
  p.event = MakeEvent(clock_.Now(), involved, type, reason, message, options_.component);
  store::MutexLock lock(&mu_);
  ++stats_.recorded;
  if (queue_.size() >= options_.max_queued || stop_) {
    ++stats_.dropped;
    return;
  }
  queue_.push_back(std::move(p));
  if (queue_.size() == 1) work_.Signal();
}

bool EventRecorder::WaitIdle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  store::MutexLock lock(&mu_);
  while (!queue_.empty() || writing_) {
    if (!idle_.WaitUntil(deadline) && std::chrono::steady_clock::now() >= deadline) {
      return queue_.empty() && !writing_;
    }
  }
  return true;
}

EventRecorder::Stats EventRecorder::stats() const {
  store::MutexLock lock(&mu_);
  return stats_;
}

void EventRecorder::Run() {
  store::MutexLock lock(&mu_);
  while (true) {
    while (queue_.empty() && !stop_) work_.Wait();
    if (queue_.empty()) break;  // stopping, and everything is written
    std::vector<Pending> batch;
    batch.swap(queue_);
    writing_ = true;
    lock.Unlock();
    WriteOut(std::move(batch));
    lock.Lock();
    writing_ = false;
    idle_.SignalAll();
  }
  idle_.SignalAll();
}

void EventRecorder::WriteOut(std::vector<Pending> batch) {
  // Occurrences of one key in this batch become one write.
  struct Group {
    std::string key;
    nlohmann::json event;  // the newest occurrence
    int64_t count = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (Pending& p : batch) {
    auto [it, fresh] = index.emplace(p.key, groups.size());
    if (fresh) {
      groups.push_back(Group{std::move(p.key), std::move(p.event), p.count});
    } else {
      Group& g = groups[it->second];
      g.event["lastTimestamp"] = p.event["lastTimestamp"];
      g.count += p.count;
    }
  }

  // A group whose Event is still remembered updates it; the others create.
  std::vector<store::BatchWrite> writes;
  writes.reserve(groups.size());
  std::vector<bool> updates;
  for (const Group& g : groups) {
    store::BatchWrite w;
    w.resource = kEvents;
    auto cached = cache_.find(g.key);
    if (cached != cache_.end()) {
      nlohmann::json ev = cached->second.event;
      ev["count"] = ev.value("count", int64_t{1}) + g.count;
      ev["lastTimestamp"] = g.event["lastTimestamp"];
      ev["metadata"].erase("resourceVersion");  // unconditional: counts only grow here
      w.op = store::BatchWrite::Op::kUpdate;
      w.object = std::move(ev);
      updates.push_back(true);
    } else {
      nlohmann::json ev = g.event;
      ev["count"] = g.count;
      w.op = store::BatchWrite::Op::kCreate;
      w.object = std::move(ev);
      updates.push_back(false);
    }
    writes.push_back(std::move(w));
  }
  std::vector<Result<nlohmann::json>> results = store_.WriteBatch(std::move(writes));

  Stats delta;
  delta.batches = 1;
  std::vector<Pending> again;  // updates of Events deleted meanwhile: create anew
  for (size_t i = 0; i < groups.size(); ++i) {
    Group& g = groups[i];
    const bool ok = i < results.size() && results[i].ok();
    if (ok) {
      if (updates[i]) {
        delta.coalesced += g.count;
      } else {
        ++delta.created;
        delta.coalesced += g.count - 1;
      }
      Remember(g.key, std::move(results[i]).value());
      continue;
    }
    if (updates[i] && i < results.size() && results[i].status().code() == StatusCode::kNotFound) {
      if (auto it = cache_.find(g.key); it != cache_.end()) {
        lru_.erase(it->second.lru);
        cache_.erase(it);
      }
      again.push_back(Pending{std::move(g.key), std::move(g.event), g.count});
      continue;
    }
    delta.dropped += g.count;
  }
  {
    store::MutexLock lock(&mu_);
    stats_.created += delta.created;
    stats_.coalesced += delta.coalesced;
    stats_.dropped += delta.dropped;
    stats_.batches += delta.batches;
    // Ahead of what queued meanwhile, so an object's Events stay in order.
    if (!again.empty()) {
      for (Pending& p : queue_) again.push_back(std::move(p));
      queue_.swap(again);
    }
  }
}

void EventRecorder::Remember(const std::string& key, nlohmann::json stored) {
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    lru_.erase(it->second.lru);
  } else {
    it = cache_.emplace(key, Cached{}).first;
  }
  lru_.push_front(key);
  it->second.event = std::move(stored);
  it->second.lru = lru_.begin();
  while (cache_.size() > options_.cache_size && !lru_.empty()) {
    cache_.erase(lru_.back());
    lru_.pop_back();
  }
}

}  // namespace kuota::control
