// GroupCommit: batches concurrent writes into one transaction, as leveldb's
// write queue does. Writers queue up; the one at the front becomes the
// leader, hands every queued write (up to max_batch) to the batch runner,
// which applies them in one transaction and commits once, and then wakes the
// others with their results. A writer may queue several writes at once
// (SubmitAll): they stay together in one batch. Thread-safe: Submit and
// SubmitAll may be called from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/mutex.h"
#include "store/thread_annotations.h"

namespace kuota::store {

class WriteTxn;

class GroupCommit {
 public:
  // One queued write: `apply` runs inside the batch's transaction; the
  // runner stores its outcome (or the commit's failure) in `result`.
  struct Write {
    std::function<Result<nlohmann::json>(WriteTxn&)> apply;
    Result<nlohmann::json> result = Status::Internal("write was not run");
  };
  // Runs a batch (in queue order). Called by one leader at a time.
  using BatchRunner = std::function<void(std::span<Write* const> batch)>;

  GroupCommit(size_t max_batch, BatchRunner runner)
      : max_batch_(max_batch == 0 ? 1 : max_batch), runner_(std::move(runner)) {}

  using Apply = std::function<Result<nlohmann::json>(WriteTxn&)>;

  // Queues `apply` and returns its result once its batch has committed (or
  // failed).
  Result<nlohmann::json> Submit(Apply apply) EXCLUDES(mu_);
  // Queues `applies` as one unit: they run in order in the same batch (and so
  // the same transaction), even when they are more than max_batch. Returns
  // their results in order once that batch has committed (or failed).
  std::vector<Result<nlohmann::json>> SubmitAll(std::vector<Apply> applies) EXCLUDES(mu_);

 private:
  struct Waiter {
    std::vector<Write> writes;
    bool done = false;
    CondVar cv;
    explicit Waiter(Mutex* mu) : cv(mu) {}
  };

  const size_t max_batch_;
  const BatchRunner runner_;
  Mutex mu_;
  std::deque<Waiter*> queue_ GUARDED_BY(mu_);
};

}  // namespace kuota::store
