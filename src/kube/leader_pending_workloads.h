// LeaderPendingWorkloads: the visibility API's source in the Kubernetes mode,
// which every replica serves but only the leader can answer (its engine holds
// the queues). While the leader's controller is attached, calls go to it;
// otherwise they are Unavailable, saying this replica does not lead.
// Thread-safe: Attach/Detach wait for calls in flight, so a controller may
// be stopped and destroyed once Detach returns.
#pragma once

#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "server/pending_workloads_source.h"

namespace kuota::kube {

class LeaderPendingWorkloads : public server::PendingWorkloadsSource {
 public:
  // `source` (the leader's controller) must stay alive until Detach.
  void Attach(server::PendingWorkloadsSource& source) {
    std::unique_lock lock(mu_);
    source_ = &source;
  }
  void Detach() {
    std::unique_lock lock(mu_);
    source_ = nullptr;
  }

  Result<std::vector<server::PendingWorkloadInfo>> ForClusterQueue(const std::string& cq) override {
    std::shared_lock lock(mu_);
    if (source_ == nullptr) return NotLeading();
    return source_->ForClusterQueue(cq);
  }
  Result<std::vector<server::PendingWorkloadInfo>> ForLocalQueue(const std::string& ns,
                                                                 const std::string& lq) override {
    std::shared_lock lock(mu_);
    if (source_ == nullptr) return NotLeading();
    return source_->ForLocalQueue(ns, lq);
  }

 private:
  static Status NotLeading() {
    return Status::Unavailable(
        "this replica does not lead: pending workloads are answered by the leader's engine "
        "(retry: the Service sends the next request to any replica)");
  }

  std::shared_mutex mu_;
  server::PendingWorkloadsSource* source_ = nullptr;  // guarded by mu_
};

}  // namespace kuota::kube
