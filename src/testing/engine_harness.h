// EngineHarness: an engine::Engine on a ManualClock with short helpers for
// tests: apply builders, run cycles, and ask where a workload stands.
// Header-only, for engine tests only (it includes the engine); single-threaded.
// Below it, the names the engine's tests share in kuota::engine.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "engine/engine.h"
#include "testing/builders.h"

namespace kuota::testing {

class EngineHarness {
 public:
  explicit EngineHarness(api::Configuration config = {}, Time now = At(60))
      : clock_(now), engine_(clock_, std::move(config)) {}

  engine::Engine& engine() { return engine_; }
  ManualClock& clock() { return clock_; }

  // Applies builders or api structs; returns false if any Apply failed.
  template <class... Ts>
  bool Apply(const Ts&... xs) {
    bool ok = true;
    ((ok = engine_.Apply(ToObject(xs)).ok() && ok), ...);
    return ok;
  }

  // True when `text` starts with `prefix`: Kueue's reason comes first and the
  // engine may add detail after it.
  static bool StartsWith(const std::string& text, const std::string& prefix) {
    return text.rfind(prefix, 0) == 0;
  }

  // Flavor "default" and each of `cqs` with its LocalQueue "lq-<name>" in "ns".
  void ApplyQueues(const std::vector<api::ClusterQueue>& cqs) {
    ASSERT_TRUE(Apply(MakeResourceFlavor("default")));
    for (const auto& cq : cqs) {
      ASSERT_TRUE(
          Apply(cq, MakeLocalQueue("lq-" + cq.metadata.name, "ns").ClusterQueue(cq.metadata.name)));
    }
  }

  // The pending message of `key` starts with `prefix`; the message when not.
  ::testing::AssertionResult PendingStartsWith(const std::string& key, const std::string& prefix) {
    const std::string message = engine_.PendingMessage(key);
    if (StartsWith(message, prefix)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << message;
  }

  engine::CycleResult Cycle() { return engine_.RunCycle(); }
  // Runs `n` cycles and returns every preemption decided in them.
  std::vector<engine::PreemptionDecision> Cycles(int n) {
    std::vector<engine::PreemptionDecision> out;
    for (int i = 0; i < n; ++i) {
      auto r = engine_.RunCycle();
      out.insert(out.end(), r.preempted.begin(), r.preempted.end());
    }
    return out;
  }

  const engine::WorkloadInfo* Find(const std::string& key) { return engine_.FindWorkload(key); }
  bool HoldsQuota(const std::string& key) {
    const auto* wl = Find(key);
    return wl != nullptr && wl->holds_quota();
  }
  // The flavor `key`'s pod set `ps` got for `res`; "" when none.
  std::string FlavorOf(const std::string& key, const std::string& ps, const std::string& res) {
    const auto* wl = Find(key);
    if (wl == nullptr) return "";
    for (const auto& a : wl->admission) {
      if (a.name != ps) continue;
      auto it = a.flavors.find(res);
      return it == a.flavors.end() ? "" : it->second;
    }
    return "";
  }
  int32_t CountOf(const std::string& key, const std::string& ps) {
    const auto* wl = Find(key);
    if (wl == nullptr) return -1;
    for (const auto& a : wl->admission) {
      if (a.name == ps) return a.count;
    }
    return -1;
  }
  // Keys of the workloads preempted in `r`, in decision order.
  static std::vector<std::string> Victims(const std::vector<engine::PreemptionDecision>& ds) {
    std::vector<std::string> out;
    for (const auto& d : ds) out.push_back(d.workload);
    return out;
  }
  static std::vector<std::string> AdmittedKeys(const engine::CycleResult& r) {
    std::vector<std::string> out;
    for (const auto& a : r.admitted) out.push_back(a.workload);
    return out;
  }

  // Usage and availability of one (flavor, resource) on a quota node.
  engine::FrId Fr(const std::string& flavor, const std::string& res) {
    return engine_.state().frs.Find(flavor, res);
  }
  engine::ClusterQueueNode* CQ(const std::string& name) {
    return engine_.tree().FindClusterQueue(name);
  }
  engine::CohortNode* Cohort(const std::string& name) { return engine_.tree().FindCohort(name); }

 private:
  ManualClock clock_;
  engine::Engine engine_;
};

}  // namespace kuota::testing

// The engine's tests use the builders and the harness by their short names.
namespace kuota::engine {

using testing::At;
using testing::CpuQueue;
using testing::EngineHarness;
using testing::MakeAdmissionCheck;
using testing::MakeClusterQueue;
using testing::MakeCohort;
using testing::MakeFlavorQuotas;
using testing::MakeLocalQueue;
using testing::MakeNamespace;
using testing::MakePriorityClass;
using testing::MakeResourceFlavor;
using testing::MakeWorkload;
using testing::MakeWorkloadPriorityClass;
// Workload keys, in the order a test expects them.
using Keys = std::vector<std::string>;

// A test's fixture: a fresh harness `h`.
class HarnessFixture : public ::testing::Test {
 protected:
  EngineHarness h;
};

// A table test's fixture: its case `c` and a fresh harness `h`.
template <class Case>
class HarnessTest : public ::testing::TestWithParam<Case> {
 protected:
  const Case& c = this->GetParam();
  EngineHarness h;
};

}  // namespace kuota::engine
