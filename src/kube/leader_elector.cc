#include "kube/leader_elector.h"

#include <cstdio>

#include "base/time.h"

namespace kuota::kube {
namespace {

constexpr const char* kLeases = "leases.coordination.k8s.io";

std::string MicroTimeNow() {
  // RFC 3339 with microseconds, as metav1.MicroTime.
  auto now = std::chrono::system_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1000000));
  return buf;
}

}  // namespace

LeaderElector::LeaderElector(store::ObjectStore& store, LeaderElectionOptions options)
    : store_(store), options_(std::move(options)) {}

LeaderElector::~LeaderElector() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_renewing_ = true;
  }
  cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
}

bool LeaderElector::TryAcquireOrRenew() {
  const auto now = std::chrono::steady_clock::now();
  const int duration_s = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count());
  Result<store::Json> got = store_.Get(kLeases, options_.ns, options_.name);
  if (!got.ok()) {
    if (got.status().code() != StatusCode::kNotFound) {
      std::fprintf(stderr, "kuotad: leader election: reading lease %s/%s: %s\n",
                   options_.ns.c_str(), options_.name.c_str(), got.status().message().c_str());
      return false;
    }
    store::Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                         {"kind", "Lease"},
                         {"metadata", {{"name", options_.name}, {"namespace", options_.ns}}},
                         {"spec",
                          {{"holderIdentity", options_.identity},
                           {"leaseDurationSeconds", duration_s},
                           {"acquireTime", MicroTimeNow()},
                           {"renewTime", MicroTimeNow()},
                           {"leaseTransitions", 0}}}};
    Result<store::Json> created = store_.Create(kLeases, lease);
    if (!created.ok()) return false;  // another candidate was first
    observed_rv_ = created->at("metadata").value("resourceVersion", "");
    observed_at_ = now;
    return true;
  }
  store::Json lease = *got;
  const std::string rv = lease["metadata"].value("resourceVersion", "");
  store::Json spec = lease.value("spec", store::Json::object());
  const std::string holder = spec.value("holderIdentity", "");
  if (rv != observed_rv_) {
    observed_rv_ = rv;
    observed_at_ = now;
  }
  const int held_s = spec.value("leaseDurationSeconds", duration_s);
  const bool expired = now - observed_at_ >= std::chrono::seconds(held_s);
  const bool mine = holder == options_.identity;
  if (!holder.empty() && !mine && !expired) return false;
  if (!mine) {
    spec["acquireTime"] = MicroTimeNow();
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = duration_s;
  spec["renewTime"] = MicroTimeNow();
  lease["spec"] = spec;
  // Update at the version read: a candidate that wrote in between wins.
  Result<store::Json> updated = store_.Update(kLeases, lease);
  if (!updated.ok()) return false;
  observed_rv_ = updated->at("metadata").value("resourceVersion", "");
  observed_at_ = now;
  return true;
}

bool LeaderElector::Acquire(const std::atomic<bool>& stop) {
  bool announced = false;
  while (!stop) {
    if (TryAcquireOrRenew()) {
      leading_ = true;
      std::fprintf(stderr, "kuotad: leader election: %s leads (lease %s/%s)\n",
                   options_.identity.c_str(), options_.ns.c_str(), options_.name.c_str());
      return true;
    }
    if (!announced) {
      std::fprintf(stderr, "kuotad: leader election: %s waits for lease %s/%s\n",
                   options_.identity.c_str(), options_.ns.c_str(), options_.name.c_str());
      announced = true;
    }
    auto until = std::chrono::steady_clock::now() + options_.retry_period;
    while (!stop && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return false;
}

void LeaderElector::KeepRenewing(std::function<void()> on_lost) {
  renewer_ = std::thread([this, on_lost = std::move(on_lost)] {
    auto last_renew = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_renewing_) {
      cv_.wait_for(lock, options_.retry_period, [&] { return stop_renewing_; });
      if (stop_renewing_) return;
      lock.unlock();
      const bool renewed = TryAcquireOrRenew();
      lock.lock();
      const auto now = std::chrono::steady_clock::now();
      if (renewed) {
        last_renew = now;
      } else if (now - last_renew >= options_.renew_deadline) {
        leading_ = false;
        std::fprintf(stderr,
                     "kuotad: leader election: %s could not renew lease %s/%s for %lld ms; "
                     "stepping down\n",
                     options_.identity.c_str(), options_.ns.c_str(), options_.name.c_str(),
                     static_cast<long long>(options_.renew_deadline.count()));
        lock.unlock();
        on_lost();
        return;
      }
    }
  });
}

void LeaderElector::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_renewing_ = true;
  }
  cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  if (!leading_) return;
  leading_ = false;
  Result<store::Json> got = store_.Get(kLeases, options_.ns, options_.name);
  if (!got.ok()) return;
  store::Json lease = *got;
  if (lease.value("spec", store::Json::object()).value("holderIdentity", "") != options_.identity) {
    return;
  }
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  (void)store_.Update(kLeases, lease);
}

}  // namespace kuota::kube
