// LeaderElector: leader election over a coordination.k8s.io/v1 Lease, as
// client-go's leaderelection (which Kueue's controller manager uses), so
// that of several kuotad replicas exactly one admits. A candidate takes the
// Lease when it is absent or its holder has not renewed it for
// leaseDurationSeconds of this candidate's own clock (the holder's renewTime
// is not compared across machines: the Lease counts as expired only once it
// has stayed unchanged that long since this candidate saw it change);
// every write is a create or an update at the read resourceVersion, so two
// candidates cannot both win. The leader renews every retry period and
// steps down when it could not renew within renew_deadline. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::kube {

struct LeaderElectionOptions {
  std::string ns = "kuota-system";
  std::string name = "kuota-controller-leader";
  std::string identity;  // this candidate (hostname + "_" + random)
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

class LeaderElector {
 public:
  // `store` (a cluster's, for leases.coordination.k8s.io) must outlive this.
  LeaderElector(store::ObjectStore& store, LeaderElectionOptions options);
  ~LeaderElector();

  // Blocks until this candidate leads (true) or `stop` is set (false).
  bool Acquire(const std::atomic<bool>& stop);
  // Renews on a thread of its own until Release(); `on_lost` runs once (on
  // that thread) if leadership is lost.
  void KeepRenewing(std::function<void()> on_lost);
  // Stops renewing and gives the Lease up (holder cleared) so a standby
  // takes over at once.
  void Release();

  bool leading() const { return leading_; }
  const std::string& identity() const { return options_.identity; }

 private:
  // One attempt to take or renew: true when this candidate holds the Lease.
  bool TryAcquireOrRenew();

  store::ObjectStore& store_;
  LeaderElectionOptions options_;
  std::atomic<bool> leading_{false};
  // What this candidate last saw of the Lease and when (its own clock).
  std::string observed_rv_;
  std::chrono::steady_clock::time_point observed_at_{};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_renewing_ = false;
  std::thread renewer_;
};

}  // namespace kuota::kube
