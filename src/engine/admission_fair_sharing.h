// AfsLedger: Kueue's admission fair sharing (AFS) bookkeeping. Per
// LocalQueue, a decayed history of the resources its admitted workloads used
// (folded in every usageSamplingInterval with a usageHalfLifeTime) and the
// entry penalties of workloads admitted since the last fold; a ClusterQueue
// with admissionMode UsageBasedAdmissionFairSharing offers first the
// workload whose LocalQueue has the least of it per its weight.
// Single-threaded (engine-owned).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/configuration.h"
#include "api/local_queue.h"
#include "base/time.h"

namespace kuota::engine {

class AfsLedger {
 public:
  struct Entry {
    std::map<std::string, double> consumed;  // resource -> whole units (a cpu is 1)
    std::map<std::string, double> penalty;   // workloads admitted since the last fold
    Time last_update;
  };

  // A LocalQueue seen: its history starts from its status (or empty), as of
  // `now`, unless the ledger already knows it.
  void Seed(const std::string& lq_key, const api::LocalQueue& lq, Time now);
  void Forget(const std::string& lq_key) { entries_.erase(lq_key); }
  const Entry* Find(const std::string& lq_key) const;

  // Kueue's CalculateUsage: (history + penalty), each resource times its
  // weight (1 when not listed), over the LocalQueue's weight; +inf for a
  // weight of 0 (such a queue goes last).
  static double Usage(const Entry* e, double lq_weight,
                      const std::map<std::string, double>& resource_weights);

  // A workload of `lq_key` was admitted using `usage` (resource, milli-units):
  // until the next fold its LocalQueue is charged alpha x usage.
  void AddPenalty(const std::string& lq_key,
                  const std::vector<std::pair<std::string, int64_t>>& usage,
                  const api::AdmissionFairSharingConfig& cfg, Time now);

  // Folds each due LocalQueue's admitted usage (`admitted`, by LocalQueue key,
  // resource -> milli-units) into its history: Kueue's decay
  // old x (1 - alpha) + new x alpha, alpha = 1 - 0.5^(elapsed / half-life);
  // due: `usageSamplingInterval` since its last fold. Penalties are settled.
  void Sample(Time now, const api::AdmissionFairSharingConfig& cfg,
              const std::map<std::string, std::map<std::string, int64_t>>& admitted);

  const std::map<std::string, Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, Entry> entries_;
};

}  // namespace kuota::engine
