// The Engine facade: routing through LocalQueues, namespaceSelector,
// inactive ClusterQueues (missing flavor or check, stopPolicy), priorities
// from WorkloadPriorityClass / PriorityClass, admission checks, eviction
// with requeue backoff, and workload lifecycle calls.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

MakeWorkload Wl(const std::string& name, const std::string& ns = "ns",
                const std::string& queue = "lq", const std::string& cpu = "1") {
  MakeWorkload w(name, ns);
  w.Queue(queue).PodSet("main", 1, {{"cpu", cpu}});
  return w;
}

// Flavor "default", "cq" of 4 cpu and its LocalQueue "lq" in "ns", then
// `workloads`.
template <class... Ws>
bool ApplyWithQueue(EngineHarness& h, const Ws&... workloads) {
  return h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "4"),
                 MakeLocalQueue("lq", "ns").ClusterQueue("cq"), workloads...);
}

// ---------------------------------------------------------------------------
// Routing.

TEST(RoutingTest, MissingLocalQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "4"), Wl("wl", "ns", "nope")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), "LocalQueue nope doesn't exist");
  // Creating the LocalQueue lets it in.
  ASSERT_TRUE(h.Apply(MakeLocalQueue("nope", "ns").ClusterQueue("cq")));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));
}

TEST(RoutingTest, LocalQueueInAnotherNamespaceDoesNotCount) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "4"),
                      MakeLocalQueue("lq", "other").ClusterQueue("cq"), Wl("wl")));
  h.Cycle();
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), "LocalQueue lq doesn't exist");
}

TEST(RoutingTest, MissingClusterQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      MakeLocalQueue("lq", "ns").ClusterQueue("gone"), Wl("wl")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), "ClusterQueue gone doesn't exist");
  ASSERT_TRUE(h.Apply(CpuQueue("gone", "4")));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));
}

TEST(RoutingTest, NoQueueName) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "4"), Wl("wl", "ns", "")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_FALSE(h.engine().PendingMessage("ns/wl").empty());
}

// ---------------------------------------------------------------------------
// namespaceSelector.

struct NsCase {
  std::string name;
  std::optional<api::LabelSelector> selector;
  api::Labels ns_labels;
  bool want_admitted;
};

using NamespaceSelectorTest = HarnessTest<NsCase>;

TEST_P(NamespaceSelectorTest, Admission) {
  MakeNamespace ns("ns");
  for (const auto& [k, v] : c.ns_labels) ns.Label(k, v);
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), ns,
                      CpuQueue("cq", "4").NamespaceSelector(c.selector),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), Wl("wl")));
  auto r = h.Cycle();
  EXPECT_EQ(h.HoldsQuota("ns/wl"), c.want_admitted);
  if (!c.want_admitted) {
    ASSERT_EQ(r.pending.size(), 1u);
    EXPECT_EQ(r.pending[0].message(), "Workload namespace doesn't match ClusterQueue selector");
    EXPECT_EQ(h.engine().PendingMessage("ns/wl"),
              "Workload namespace doesn't match ClusterQueue selector");
  }
}

api::LabelSelector MatchLabels(api::Labels l) {
  api::LabelSelector s;
  s.match_labels = std::move(l);
  return s;
}

api::LabelSelector MatchExpression(std::string key, std::string op, std::vector<std::string> v) {
  api::LabelSelector s;
  s.match_expressions.push_back({std::move(key), std::move(op), std::move(v)});
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Table, NamespaceSelectorTest,
    ::testing::Values(
        NsCase{"EmptySelectorMatchesAll", api::LabelSelector{}, {}, true},
        NsCase{"NullSelectorMatchesNone", std::nullopt, {{"team", "a"}}, false},
        NsCase{"MatchLabelsMatch", MatchLabels({{"team", "a"}}), {{"team", "a"}}, true},
        NsCase{"MatchLabelsMismatch", MatchLabels({{"team", "a"}}), {{"team", "b"}}, false},
        NsCase{"MatchLabelsNamespaceUnlabelled", MatchLabels({{"team", "a"}}), {}, false},
        NsCase{"ExpressionIn", MatchExpression("team", "In", {"a", "b"}), {{"team", "b"}}, true},
        NsCase{"ExpressionNotIn", MatchExpression("team", "NotIn", {"a"}), {{"team", "a"}}, false},
        NsCase{"ExpressionExists", MatchExpression("team", "Exists", {}), {{"team", "z"}}, true}),
    [](const ::testing::TestParamInfo<NsCase>& info) { return info.param.name; });

TEST(NamespaceSelectorTest, MismatchIsInadmissibleEvenInStrictFifo) {
  // The mismatching head is set aside; the next workload is offered.
  EngineHarness h;
  ASSERT_TRUE(
      h.Apply(MakeResourceFlavor("default"), MakeNamespace("good").Label("team", "a"),
              CpuQueue("cq", "4").StrictFIFO().NamespaceSelector(MatchLabels({{"team", "a"}})),
              MakeLocalQueue("lq", "bad").ClusterQueue("cq"),
              MakeLocalQueue("lq", "good").ClusterQueue("cq"), Wl("first", "bad").Created(At(1)),
              Wl("second", "good").Created(At(2))));
  h.Cycles(2);
  EXPECT_FALSE(h.HoldsQuota("bad/first"));
  EXPECT_TRUE(h.HoldsQuota("good/second"));
}

// ---------------------------------------------------------------------------
// Inactive ClusterQueues.

TEST(InactiveClusterQueueTest, MissingFlavor) {
  EngineHarness h;
  ASSERT_TRUE(
      h.Apply(CpuQueue("cq", "4"), MakeLocalQueue("lq", "ns").ClusterQueue("cq"), Wl("wl")));
  ClusterQueueNode* cq = h.CQ("cq");
  ASSERT_NE(cq, nullptr);
  EXPECT_FALSE(cq->active());
  EXPECT_EQ(cq->inactive_reason(), "FlavorNotFound");
  auto r = h.Cycle();
  EXPECT_EQ(r.heads, 0);
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_TRUE(
      EngineHarness::StartsWith(h.engine().PendingMessage("ns/wl"), "ClusterQueue cq is inactive"))
      << h.engine().PendingMessage("ns/wl");
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default")));
  EXPECT_TRUE(h.CQ("cq")->active());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));
}

TEST(InactiveClusterQueueTest, MissingAdmissionCheck) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "4").AdmissionChecks({"prov"}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), Wl("wl")));
  EXPECT_FALSE(h.CQ("cq")->active());
  EXPECT_EQ(h.CQ("cq")->inactive_reason(), "AdmissionCheckNotFound");
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
}

TEST(InactiveClusterQueueTest, StopPolicyHoldKeepsAdmittedAndAdmitsNothing) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"), CpuQueue("cq", "4").StopPolicy(api::StopPolicy::kHold),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      Wl("running").ReserveQuota("cq", {{"cpu", "default"}}).Admitted(), Wl("wl").Created(At(5))));
  EXPECT_FALSE(h.CQ("cq")->active());
  EXPECT_EQ(h.CQ("cq")->inactive_reason(), "Stopped");
  h.Cycles(2);
  EXPECT_TRUE(h.HoldsQuota("ns/running"));
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  // Lifting the stop lets the pending workload in.
  ASSERT_TRUE(h.Apply(CpuQueue("cq", "4")));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));
}

TEST(InactiveClusterQueueTest, StopPolicyHoldAndDrainEvictsAdmitted) {
  // Kueue evicts the workloads of a ClusterQueue stopped with HoldAndDrain
  // (Evicted condition, reason ClusterQueueStopped).
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      CpuQueue("cq", "4").StopPolicy(api::StopPolicy::kHoldAndDrain),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      Wl("running").ReserveQuota("cq", {{"cpu", "default"}}).Admitted()));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/running"));
}

TEST(InactiveClusterQueueTest, StopPolicyHoldCancelsReservations) {
  // Kueue's workload controller unsets the quota reservation of a workload
  // that is not yet Admitted (waiting for its checks) when its ClusterQueue
  // is stopped, with Hold as with HoldAndDrain; admitted ones keep running.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"), MakeAdmissionCheck("prov"),
      CpuQueue("cq", "4").AdmissionChecks({"prov"}), MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      Wl("admitted")
          .ReserveQuota("cq", {{"cpu", "default"}})
          .Admitted()
          .AdmissionCheck("prov", "Ready"),
      Wl("reserving").ReserveQuota("cq", {{"cpu", "default"}}).AdmissionCheck("prov", "Pending")));
  ASSERT_EQ(h.Find("ns/reserving")->state, WorkloadState::kQuotaReserved);
  ASSERT_TRUE(
      h.Apply(CpuQueue("cq", "4").AdmissionChecks({"prov"}).StopPolicy(api::StopPolicy::kHold)));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/admitted"));
  EXPECT_FALSE(h.HoldsQuota("ns/reserving"));
}

TEST(InactiveClusterQueueTest, StoppedLocalQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"), CpuQueue("cq", "4"),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq").StopPolicy(api::StopPolicy::kHold), Wl("wl")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  EXPECT_EQ(h.engine().PendingMessage("ns/wl"), "LocalQueue lq is inactive");
}

// ---------------------------------------------------------------------------
// Priorities.

struct PriorityCase {
  std::string name;
  std::string class_name;
  std::string source;
  std::optional<int32_t> spec_priority;
  std::string pod_class;
  bool with_global_default;
  int32_t want;
};

using PriorityTest = HarnessTest<PriorityCase>;

TEST_P(PriorityTest, Resolved) {
  ASSERT_TRUE(h.Apply(MakeWorkloadPriorityClass("high", 1000), MakePriorityClass("pod-high", 500),
                      MakeWorkloadPriorityClass("same-name", 7),
                      MakePriorityClass("same-name", 8)));
  if (c.with_global_default) {
    ASSERT_TRUE(h.Apply(MakePriorityClass("default-a", 50, true),
                        MakePriorityClass("default-b", 40, true)));
  }
  MakeWorkload w = Wl("wl");
  if (!c.class_name.empty()) w.PriorityClass(c.class_name, c.source);
  if (c.spec_priority) w.Priority(*c.spec_priority);
  if (!c.pod_class.empty()) w.PodPriorityClassName(c.pod_class);
  ASSERT_TRUE(h.Apply(w));
  const WorkloadInfo* wl = h.Find("ns/wl");
  ASSERT_NE(wl, nullptr);
  EXPECT_EQ(wl->priority, c.want);
}

constexpr const char* kWpc = api::kWorkloadPriorityClassSource;
constexpr const char* kPc = api::kPodPriorityClassSource;

INSTANTIATE_TEST_SUITE_P(
    Table, PriorityTest,
    ::testing::Values(
        PriorityCase{"NoneIsZero", "", "", std::nullopt, "", false, 0},
        PriorityCase{"WorkloadPriorityClass", "high", kWpc, std::nullopt, "", false, 1000},
        PriorityCase{"PodPriorityClass", "pod-high", kPc, std::nullopt, "", false, 500},
        PriorityCase{"SourceDecidesBetweenSameNames", "same-name", kPc, std::nullopt, "", false, 8},
        PriorityCase{"SourceWorkloadClass", "same-name", kWpc, std::nullopt, "", false, 7},
        PriorityCase{"SpecPriorityWins", "high", kWpc, 3, "", false, 3},
        PriorityCase{"PodTemplateClass", "", "", std::nullopt, "pod-high", false, 500},
        PriorityCase{"GlobalDefaultLowestOfDefaults", "", "", std::nullopt, "", true, 40},
        PriorityCase{"ClassBeatsGlobalDefault", "high", kWpc, std::nullopt, "", true, 1000}),
    [](const ::testing::TestParamInfo<PriorityCase>& info) { return info.param.name; });

TEST(PriorityTest, WorkloadPriorityClassOrdersTheQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), MakeWorkloadPriorityClass("high", 1000),
                      CpuQueue("cq", "1"), MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      Wl("old").Created(At(1)), Wl("new").Created(At(9)).PriorityClass("high")));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_FALSE(h.HoldsQuota("ns/old"));
}

// ---------------------------------------------------------------------------
// Admission checks.

class AdmissionCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(h_.Apply(MakeResourceFlavor("default"), MakeAdmissionCheck("prov"),
                         CpuQueue("cq", "4").AdmissionChecks({"prov"}),
                         MakeLocalQueue("lq", "ns").ClusterQueue("cq"), Wl("wl", "ns", "lq", "2")));
    auto r = h_.Cycle();
    ASSERT_EQ(r.admitted.size(), 1u);
    EXPECT_FALSE(r.admitted[0].admitted);
  }
  WorkloadState State() { return h_.Find("ns/wl")->state; }
  EngineHarness h_;
};

TEST_F(AdmissionCheckTest, QuotaReservedUntilReady) {
  EXPECT_EQ(State(), WorkloadState::kQuotaReserved);
  EXPECT_TRUE(h_.HoldsQuota("ns/wl"));
  const auto& conds = h_.Find("ns/wl")->object.status.conditions;
  EXPECT_TRUE(api::IsConditionTrue(conds, api::kQuotaReserved));
  EXPECT_FALSE(api::IsConditionTrue(conds, api::kAdmitted));
  EXPECT_EQ(h_.engine().PendingMessage("ns/wl"),
            "Quota reserved in ClusterQueue cq; waiting for admission checks to be Ready");
  ASSERT_TRUE(h_.engine().SetAdmissionCheckState("ns/wl", "prov", "Pending", "").ok());
  EXPECT_EQ(State(), WorkloadState::kQuotaReserved);
  ASSERT_TRUE(h_.engine().SetAdmissionCheckState("ns/wl", "prov", "Ready", "").ok());
  EXPECT_EQ(State(), WorkloadState::kAdmitted);
  EXPECT_TRUE(api::IsConditionTrue(h_.Find("ns/wl")->object.status.conditions, api::kAdmitted));
}

TEST_F(AdmissionCheckTest, RetryEvictsAndRequeues) {
  ASSERT_TRUE(h_.engine().SetAdmissionCheckState("ns/wl", "prov", "Retry", "try later").ok());
  EXPECT_FALSE(h_.HoldsQuota("ns/wl"));
  EXPECT_EQ(State(), WorkloadState::kPending);
  EXPECT_EQ(h_.CQ("cq")->usage(h_.Fr("default", "cpu")), 0);
  const auto& st = h_.Find("ns/wl")->object.status;
  EXPECT_TRUE(api::IsConditionTrue(st.conditions, api::kEvicted));
  ASSERT_EQ(st.admission_checks.size(), 1u);
  EXPECT_EQ(st.admission_checks[0].state, "Pending");
}

TEST_F(AdmissionCheckTest, RejectedDeactivates) {
  ASSERT_TRUE(h_.engine().SetAdmissionCheckState("ns/wl", "prov", "Rejected", "no capacity").ok());
  EXPECT_FALSE(h_.HoldsQuota("ns/wl"));
  EXPECT_EQ(State(), WorkloadState::kInactive);
  EXPECT_FALSE(h_.Find("ns/wl")->object.spec.active);
  EXPECT_EQ(h_.CQ("cq")->usage(h_.Fr("default", "cpu")), 0);
  h_.Cycles(2);
  EXPECT_FALSE(h_.HoldsQuota("ns/wl"));
}

TEST_F(AdmissionCheckTest, UnknownStateIsInvalid) {
  EXPECT_EQ(h_.engine().SetAdmissionCheckState("ns/wl", "prov", "Maybe", "").code(),
            StatusCode::kInvalid);
  EXPECT_EQ(h_.engine().SetAdmissionCheckState("ns/none", "prov", "Ready", "").code(),
            StatusCode::kNotFound);
}

TEST(AdmissionCheckStateTest, ReadyBeforeReservationAdmitsAtOnce) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), MakeAdmissionCheck("prov"),
                      CpuQueue("cq", "4").AdmissionChecks({"prov"}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      Wl("wl").AdmissionCheck("prov", "Ready")));
  auto r = h.Cycle();
  ASSERT_EQ(r.admitted.size(), 1u);
  EXPECT_TRUE(r.admitted[0].admitted);
  EXPECT_EQ(h.Find("ns/wl")->state, WorkloadState::kAdmitted);
}

// ---------------------------------------------------------------------------
// Eviction and requeue backoff (waitForPodsReady.requeuingStrategy).

TEST(EvictionTest, BackoffDelaysRequeue) {
  EngineHarness h;  // defaults: backoffBaseSeconds 60
  ASSERT_TRUE(ApplyWithQueue(h, Wl("wl")));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/wl"));
  const Time evicted_at = h.clock().Now();
  ASSERT_TRUE(h.engine().EvictWorkload("ns/wl", "PodsReadyTimeout", "not ready", true).ok());
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  const WorkloadInfo* wl = h.Find("ns/wl");
  ASSERT_TRUE(wl->requeue_at.has_value());
  EXPECT_EQ(*wl->requeue_at, evicted_at + Duration{60'000});
  EXPECT_EQ(wl->requeue_count, 1);
  ASSERT_TRUE(wl->object.status.requeue_state.has_value());
  EXPECT_EQ(wl->object.status.requeue_state->count, 1);

  EXPECT_EQ(h.Cycle().heads, 0);
  h.clock().Advance(Duration{59'000});
  EXPECT_FALSE(h.engine().HasPendingHeads());
  EXPECT_EQ(h.Cycle().heads, 0);
  EXPECT_FALSE(h.HoldsQuota("ns/wl"));
  h.clock().Advance(Duration{1'000});
  EXPECT_TRUE(h.engine().HasPendingHeads());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));

  // The second eviction doubles the wait.
  const Time second_at = h.clock().Now();
  ASSERT_TRUE(h.engine().EvictWorkload("ns/wl", "PodsReadyTimeout", "not ready", true).ok());
  EXPECT_EQ(*h.Find("ns/wl")->requeue_at, second_at + Duration{120'000});
}

TEST(EvictionTest, BackoffLimitDeactivates) {
  api::Configuration cfg;
  cfg.wait_for_pods_ready.enable = true;
  cfg.wait_for_pods_ready.requeuing_strategy.backoff_limit_count = 1;
  EngineHarness h(cfg);
  ASSERT_TRUE(ApplyWithQueue(h, Wl("wl")));
  h.Cycle();
  ASSERT_TRUE(h.engine().EvictWorkload("ns/wl", "PodsReadyTimeout", "not ready", true).ok());
  h.clock().Advance(Duration{60'000});
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/wl"));
  ASSERT_TRUE(h.engine().EvictWorkload("ns/wl", "PodsReadyTimeout", "not ready", true).ok());
  EXPECT_EQ(h.Find("ns/wl")->state, WorkloadState::kInactive);
}

TEST(EvictionTest, WithoutBackoffRequeuesAtOnce) {
  EngineHarness h;
  ASSERT_TRUE(ApplyWithQueue(h, Wl("wl")));
  h.Cycle();
  ASSERT_TRUE(h.engine().EvictWorkload("ns/wl", "Manual", "evicted by test", false).ok());
  EXPECT_FALSE(h.Find("ns/wl")->requeue_at.has_value());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/wl"));
}

struct RequeueOrderCase {
  std::string name;
  api::RequeuingTimestamp timestamp;
  std::string want_admitted;
};

class RequeueOrderTest : public ::testing::TestWithParam<RequeueOrderCase> {};

TEST_P(RequeueOrderTest, PodsReadyTimeoutEviction) {
  // waitForPodsReady.requeuingStrategy.timestamp: with Eviction (the
  // default) a workload evicted for PodsReadyTimeout queues by its eviction
  // time, behind newer workloads; with Creation it keeps its place.
  api::Configuration cfg;
  cfg.wait_for_pods_ready.enable = true;
  cfg.wait_for_pods_ready.requeuing_strategy.timestamp = GetParam().timestamp;
  EngineHarness h(cfg);
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "1"),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), Wl("old").Created(At(1)),
                      Wl("new").Created(At(2))));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/old"));
  ASSERT_TRUE(h.engine().EvictWorkload("ns/old", "PodsReadyTimeout", "not ready", false).ok());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota(GetParam().want_admitted));
}

INSTANTIATE_TEST_SUITE_P(
    Table, RequeueOrderTest,
    ::testing::Values(RequeueOrderCase{"Eviction", api::RequeuingTimestamp::kEviction, "ns/new"},
                      RequeueOrderCase{"Creation", api::RequeuingTimestamp::kCreation, "ns/old"}),
    [](const ::testing::TestParamInfo<RequeueOrderCase>& info) { return info.param.name; });

TEST(EvictionTest, EvictingReleasesQuotaForOthers) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", "1"),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      Wl("running").ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Wl("waiting").Created(At(5))));
  h.Cycles(2);
  ASSERT_FALSE(h.HoldsQuota("ns/waiting"));
  ASSERT_TRUE(h.engine().EvictWorkload("ns/running", "PodsReadyTimeout", "not ready", true).ok());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/waiting"));
  EXPECT_EQ(h.engine().EvictWorkload("ns/none", "x", "y", false).code(), StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------
// Objects carried in with state.

TEST(EngineStateTest, ReservedWorkloadCountsTowardsUsage) {
  EngineHarness h;
  ASSERT_TRUE(ApplyWithQueue(
      h, Wl("running", "ns", "lq", "3").ReserveQuota("cq", {{"cpu", "default"}}).Admitted()));
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "cpu")), 3000);
  EXPECT_EQ(h.Find("ns/running")->state, WorkloadState::kAdmitted);
  // Replacing the ClusterQueue keeps the usage.
  ASSERT_TRUE(h.Apply(CpuQueue("cq", "8")));
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "cpu")), 3000);
  EXPECT_EQ(h.CQ("cq")->Available(h.Fr("default", "cpu")), 5000);
}

TEST(EngineStateTest, InactiveWorkloadIsNotQueued) {
  EngineHarness h;
  ASSERT_TRUE(ApplyWithQueue(h, Wl("wl").Active(false)));
  EXPECT_EQ(h.Cycle().heads, 0);
  EXPECT_EQ(h.Find("ns/wl")->state, WorkloadState::kInactive);
}

TEST(EngineStateTest, FinishedWorkloadHoldsNothing) {
  EngineHarness h;
  ASSERT_TRUE(ApplyWithQueue(h, Wl("wl")));
  h.Cycle();
  ASSERT_TRUE(h.engine().FinishWorkload("ns/wl").ok());
  EXPECT_EQ(h.Find("ns/wl")->state, WorkloadState::kFinished);
  EXPECT_TRUE(api::IsConditionTrue(h.Find("ns/wl")->object.status.conditions, api::kFinished));
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "cpu")), 0);
  EXPECT_EQ(h.engine().FinishWorkload("ns/none").code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kuota::engine
