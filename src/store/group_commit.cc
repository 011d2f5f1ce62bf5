#include "store/group_commit.h"

#include <vector>

namespace kuota::store {

Result<nlohmann::json> GroupCommit::Submit(Apply apply) {
  std::vector<Apply> one;
  one.push_back(std::move(apply));
  return std::move(SubmitAll(std::move(one)).front());
}

std::vector<Result<nlohmann::json>> GroupCommit::SubmitAll(std::vector<Apply> applies) {
  Waiter self(&mu_);
  self.writes.resize(applies.size());
  for (size_t i = 0; i < applies.size(); ++i) self.writes[i].apply = std::move(applies[i]);
  auto results = [&self] {
    std::vector<Result<nlohmann::json>> out;
    out.reserve(self.writes.size());
    for (Write& w : self.writes) out.push_back(std::move(w.result));
    return out;
  };
  if (self.writes.empty()) return {};
  MutexLock lock(&mu_);
  queue_.push_back(&self);
  while (!self.done && queue_.front() != &self) self.cv.Wait();
  if (self.done) return results();

  // Leader: take what is queued now; later arrivals wait for the next batch.
  // A waiter's writes are never split; the first is taken whatever its size.
  std::vector<Waiter*> batch;
  std::vector<Write*> writes;
  for (Waiter* w : queue_) {
    if (!batch.empty() && writes.size() + w->writes.size() > max_batch_) break;
    batch.push_back(w);
    for (Write& write : w->writes) writes.push_back(&write);
  }
  lock.Unlock();
  runner_(writes);
  lock.Lock();
  for (Waiter* w : batch) {
    queue_.pop_front();
    if (w != &self) {
      w->done = true;
      w->cv.Signal();
    }
  }
  if (!queue_.empty()) queue_.front()->cv.Signal();  // the next leader
  return results();
}

}  // namespace kuota::store
