#include "store/group_commit.h"

#include <vector>

namespace kuota::store {

Result<nlohmann::json> GroupCommit::Submit(
    std::function<Result<nlohmann::json>(WriteTxn&)> apply) {
  Waiter self(&mu_);
  self.write.apply = std::move(apply);
  MutexLock lock(&mu_);
  queue_.push_back(&self);
  while (!self.done && queue_.front() != &self) self.cv.Wait();
  if (self.done) return std::move(self.write.result);

  // Leader: take what is queued now; later arrivals wait for the next batch.
  std::vector<Waiter*> batch;
  std::vector<Write*> writes;
  for (Waiter* w : queue_) {
    if (batch.size() == max_batch_) break;
    batch.push_back(w);
    writes.push_back(&w->write);
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
  return std::move(self.write.result);
}

}  // namespace kuota::store
