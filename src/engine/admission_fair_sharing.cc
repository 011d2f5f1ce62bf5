#include "engine/admission_fair_sharing.h"

#include <cmath>
#include <limits>

namespace kuota::engine {
namespace {

// Kueue's calculateAlphaRate: the weight of a new sample after `elapsed`.
double AlphaRate(double elapsed_s, double half_life_s) {
  if (half_life_s == 0) return 0.0;
  return 1.0 - std::pow(0.5, elapsed_s / half_life_s);
}

double Units(int64_t milli) { return static_cast<double>(milli) / 1000.0; }

}  // namespace

void AfsLedger::Seed(const std::string& lq_key, const api::LocalQueue& lq, Time now) {
  if (entries_.count(lq_key) != 0) return;
  Entry e;
  if (lq.admission_fair_sharing) {
    for (const auto& [name, q] : lq.admission_fair_sharing->consumed_resources) {
      e.consumed[name] = Units(q.milli());
    }
  }
  e.last_update = now;
  entries_[lq_key] = std::move(e);
}

const AfsLedger::Entry* AfsLedger::Find(const std::string& lq_key) const {
  auto it = entries_.find(lq_key);
  return it == entries_.end() ? nullptr : &it->second;
}

double AfsLedger::Usage(const Entry* e, double lq_weight,
                        const std::map<std::string, double>& resource_weights) {
  double usage = 0;
  if (e != nullptr) {
    std::map<std::string, double> all = e->consumed;
    for (const auto& [name, v] : e->penalty) all[name] += v;
    for (const auto& [name, v] : all) {
      auto w = resource_weights.find(name);
      usage += (w == resource_weights.end() ? 1.0 : w->second) * v;
    }
  }
  if (lq_weight <= 0) return std::numeric_limits<double>::infinity();
  return usage / lq_weight;
}

void AfsLedger::AddPenalty(const std::string& lq_key,
                           const std::vector<std::pair<std::string, int64_t>>& usage,
                           const api::AdmissionFairSharingConfig& cfg, Time now) {
  const double alpha = AlphaRate(static_cast<double>(cfg.usage_sampling_interval.ms) / 1000.0,
                                 static_cast<double>(cfg.usage_half_life_time.ms) / 1000.0);
  auto [it, fresh] = entries_.try_emplace(lq_key);
  if (fresh) it->second.last_update = now;
  for (const auto& [name, milli] : usage) it->second.penalty[name] += alpha * Units(milli);
}

void AfsLedger::Sample(Time now, const api::AdmissionFairSharingConfig& cfg,
                       const std::map<std::string, std::map<std::string, int64_t>>& admitted) {
  const double half_life = static_cast<double>(cfg.usage_half_life_time.ms) / 1000.0;
  for (auto& [key, e] : entries_) {
    const int64_t since = now.unix_ms - e.last_update.unix_ms;
    if (since < cfg.usage_sampling_interval.ms) continue;
    if (half_life == 0) {
      e.consumed.clear();  // no memory: Kueue resets the history
    } else {
      const double alpha = AlphaRate(static_cast<double>(since) / 1000.0, half_life);
      std::map<std::string, double> next;
      for (const auto& [name, v] : e.consumed) next[name] += v * (1 - alpha);
      if (auto a = admitted.find(key); a != admitted.end()) {
        for (const auto& [name, milli] : a->second) next[name] += Units(milli) * alpha;
      }
      e.consumed = std::move(next);
    }
    e.penalty.clear();  // the workloads they stood for are in the sample now
    e.last_update = now;
  }
}

}  // namespace kuota::engine
