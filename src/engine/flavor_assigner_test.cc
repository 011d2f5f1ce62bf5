// Flavor assignment as Kueue's scheduler/flavorassigner does it: taints and
// tolerations, nodeSelector / required node affinity restricted to each
// flavor's own label keys, quota fit per flavor, flavorFungibility
// (whenCanBorrow, whenCanPreempt, preference), the "pods" resource, pod sets
// sharing flavors, uncovered and zero requests, and the reasons users read.
#include "engine/flavor_assigner.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

using api::FungibilityAction;
using api::FungibilityPreference;

constexpr const char* kWl = "ns/wl";

// "wl" in "lq": one pod asking `requests`.
MakeWorkload Wl(const testing::Requests& requests) {
  return std::move(MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, requests));
}

// A harness whose LocalQueue "lq" in "ns" points at ClusterQueue "cq".
class FlavorAssignerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(h.Apply(MakeLocalQueue("lq", "ns").ClusterQueue("cq"))); }
  // Flavor "default" with 4 cpu in "cq" and Wl(requests); runs a cycle.
  void RunOnFourCpu(const testing::Requests& requests) {
    ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                        MakeClusterQueue("cq").ResourceGroup(
                            {"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")}),
                        Wl(requests)));
    h.Cycle();
  }

  EngineHarness h;
};
// The same for a table test.
template <class Case>
class LqTest : public HarnessTest<Case> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(this->h.Apply(MakeLocalQueue("lq", "ns").ClusterQueue("cq")));
  }
};

// ---------------------------------------------------------------------------
// Taints and tolerations.

struct TaintCase {
  std::string name;
  api::Taint taint;
  std::string want_reason;  // substring of the pending message; "" when admitted
  std::optional<api::Toleration> pod_toleration = std::nullopt;
  std::optional<api::Toleration> flavor_toleration = std::nullopt;
};

using TaintTest = LqTest<TaintCase>;

TEST_P(TaintTest, OnlyFlavorIsTainted) {
  MakeResourceFlavor rf("tainted");
  rf.Taint(c.taint.key, c.taint.value, c.taint.effect);
  if (const auto& t = c.flavor_toleration) rf.Toleration(t->key, t->op, t->value, t->effect);
  MakeWorkload wl = Wl({{"cpu", "1"}});
  if (const auto& t = c.pod_toleration) wl.Toleration(t->key, t->op, t->value, t->effect);
  ASSERT_TRUE(h.Apply(rf,
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("tainted").Resource("cpu", "4")}),
                      wl));
  h.Cycle();
  EXPECT_EQ(h.HoldsQuota(kWl), c.want_reason.empty());
  if (!c.want_reason.empty()) {
    EXPECT_NE(h.engine().PendingMessage(kWl).find(c.want_reason), std::string::npos)
        << h.engine().PendingMessage(kWl);
  }
}

const api::Taint kSpot{"spot", "true", "NoSchedule"};

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

INSTANTIATE_TEST_SUITE_P(
    Table, TaintTest,
    ::testing::Values(
        TaintCase{"Untolerated", kSpot, "untolerated taint spot=true:NoSchedule in flavor tainted"},
        TaintCase{"UntoleratedNoValue",
                  {"dedicated", "", "NoSchedule"},
                  "untolerated taint dedicated:NoSchedule in flavor tainted"},
        TaintCase{"UntoleratedNoExecute",
                  {"spot", "true", "NoExecute"},
                  "untolerated taint spot=true:NoExecute in flavor tainted"},
        TaintCase{"ToleratedEqual", kSpot, "", Tol("spot", "Equal", "true", "NoSchedule")},
        TaintCase{"ToleratedExists", kSpot, "", Tol("spot", "Exists", "", "")},
        TaintCase{"ToleratedByEmptyKeyExists", kSpot, "", Tol("", "Exists", "", "")},
        TaintCase{"WrongValue", kSpot, "untolerated taint",
                  Tol("spot", "Equal", "false", "NoSchedule")},
        TaintCase{"WrongEffect", kSpot, "untolerated taint",
                  Tol("spot", "Equal", "true", "NoExecute")},
        TaintCase{"PreferNoScheduleIgnored", {"spot", "true", "PreferNoSchedule"}, ""},
        TaintCase{"FlavorToleratesItsOwnTaint", kSpot, "", std::nullopt,
                  Tol("spot", "Exists", "", "NoSchedule")}),
    [](const ::testing::TestParamInfo<TaintCase>& info) { return info.param.name; });

TEST_F(FlavorAssignerTest, UntoleratedTaintExactMessage) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("spot").Taint("spot", "true", "NoSchedule"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("spot").Resource("cpu", "4")}),
                      Wl({{"cpu", "1"}})));
  auto r = h.Cycle();
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_EQ(r.pending[0].message(),
            "couldn't assign flavors to pod set main: untolerated taint spot=true:NoSchedule in "
            "flavor spot");
  EXPECT_EQ(h.engine().PendingMessage(kWl), r.pending[0].message());
}

TEST_F(FlavorAssignerTest, TaintedFirstFlavorIsSkipped) {
  for (bool tolerate : {false, true}) {
    EngineHarness h;
    MakeWorkload wl("wl", "ns");
    wl.Queue("lq").PodSet("main", 1, {{"cpu", "1"}});
    if (tolerate) wl.Toleration("spot", "Exists", "", "NoSchedule");
    ASSERT_TRUE(h.Apply(MakeResourceFlavor("spot").Taint("spot", "true", "NoSchedule"),
                        MakeResourceFlavor("on-demand"),
                        MakeClusterQueue("cq").ResourceGroup(
                            {"cpu"}, {MakeFlavorQuotas("spot").Resource("cpu", "4"),
                                      MakeFlavorQuotas("on-demand").Resource("cpu", "4")}),
                        MakeLocalQueue("lq", "ns").ClusterQueue("cq"), wl));
    h.Cycle();
    EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), tolerate ? "spot" : "on-demand");
  }
}

// ---------------------------------------------------------------------------
// nodeSelector and required node affinity. Flavors: x86 {arch: amd64},
// arm {arch: arm64}; the ClusterQueue lists x86 first.

struct AffinityCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> node_selector;
  // Each inner vector is one term: (key, op, values).
  struct Expr {
    std::string key;
    std::string op;
    std::vector<std::string> values;
  };
  std::vector<Expr> terms;  // one expression per term, terms ORed
  std::string want_flavor;  // "" when pending
};

// "wl" (1 cpu) with `node_selector` and one required node affinity term per
// expression of `terms`.
MakeWorkload WithAffinity(const std::vector<std::pair<std::string, std::string>>& node_selector,
                          const std::vector<AffinityCase::Expr>& terms) {
  MakeWorkload wl = Wl({{"cpu", "1"}});
  for (const auto& [k, v] : node_selector) wl.NodeSelector(k, v);
  for (const auto& e : terms) wl.NodeAffinityTerm(e.key, e.op, e.values);
  return wl;
}

using AffinityTest = LqTest<AffinityCase>;

TEST_P(AffinityTest, ChoosesFlavor) {
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("x86").NodeLabel("arch", "amd64"),
      MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"}, {MakeFlavorQuotas("x86").Resource("cpu", "4"),
                                                     MakeFlavorQuotas("arm").Resource("cpu", "4")}),
      WithAffinity(c.node_selector, c.terms)));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), c.want_flavor);
  if (c.want_flavor.empty()) {
    EXPECT_EQ(h.engine().PendingMessage(kWl),
              "couldn't assign flavors to pod set main: flavor arm doesn't match node affinity, "
              "flavor x86 doesn't match node affinity");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, AffinityTest,
    ::testing::Values(
        AffinityCase{"NoConstraintsTakesFirst", {}, {}, "x86"},
        AffinityCase{"NodeSelectorPicksSecond", {{"arch", "arm64"}}, {}, "arm"},
        AffinityCase{"NodeSelectorKeyNoFlavorDefinesIsIgnored", {{"zone", "a"}}, {}, "x86"},
        AffinityCase{"NodeSelectorMixedKeys", {{"zone", "a"}, {"arch", "arm64"}}, {}, "arm"},
        AffinityCase{"NodeSelectorMatchesNone", {{"arch", "ppc64le"}}, {}, ""},
        AffinityCase{"AffinityIn", {}, {{"arch", "In", {"arm64"}}}, "arm"},
        AffinityCase{"AffinityNotIn", {}, {{"arch", "NotIn", {"amd64"}}}, "arm"},
        AffinityCase{"AffinityUnknownKeyMatchesAny", {}, {{"zone", "In", {"a"}}}, "x86"},
        AffinityCase{"AffinityTermsOred",
                     {},
                     {{"arch", "In", {"ppc64le"}}, {"arch", "In", {"arm64"}}},
                     "arm"},
        AffinityCase{"AffinityEmptiedTermMatchesAny",
                     {},
                     {{"arch", "In", {"ppc64le"}}, {"zone", "In", {"a"}}},
                     "x86"},
        AffinityCase{"AffinityDoesNotExist", {}, {{"arch", "DoesNotExist", {}}}, ""}),
    [](const ::testing::TestParamInfo<AffinityCase>& info) { return info.param.name; });

TEST_F(FlavorAssignerTest, LabelKeysAreThoseOfEachFlavor) {
  // The gpu group's flavors define "accel"; the cpu group's flavor does not,
  // so a nodeSelector on "accel" constrains only the gpu group.
  ASSERT_TRUE(
      h.Apply(MakeResourceFlavor("default"), MakeResourceFlavor("a100").NodeLabel("accel", "a100"),
              MakeResourceFlavor("t4").NodeLabel("accel", "t4"),
              MakeClusterQueue("cq")
                  .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")})
                  .ResourceGroup({"gpu"}, {MakeFlavorQuotas("a100").Resource("gpu", "4"),
                                           MakeFlavorQuotas("t4").Resource("gpu", "4")}),
              Wl({{"cpu", "1"}, {"gpu", "1"}}).NodeSelector("accel", "t4")));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "default");
  EXPECT_EQ(h.FlavorOf(kWl, "main", "gpu"), "t4");
}

// Flavors of one group with different label keys: arm {arch: arm64},
// zone-a {zone: a}, plain {} in that order. Each is judged on its own keys.
struct OwnKeysCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> node_selector;
  std::vector<AffinityCase::Expr> terms;
  std::string want_flavor;
};

using OwnKeysTest = LqTest<OwnKeysCase>;

TEST_P(OwnKeysTest, ChoosesFlavor) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
                      MakeResourceFlavor("zone-a").NodeLabel("zone", "a"),
                      MakeResourceFlavor("plain"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("arm").Resource("cpu", "4"),
                                    MakeFlavorQuotas("zone-a").Resource("cpu", "4"),
                                    MakeFlavorQuotas("plain").Resource("cpu", "4")}),
                      WithAffinity(c.node_selector, c.terms)));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), c.want_flavor);
}

INSTANTIATE_TEST_SUITE_P(
    Table, OwnKeysTest,
    ::testing::Values(
        // arm does not declare zone: a zone selector does not disqualify it.
        OwnKeysCase{"KeyOfAnotherFlavorIsIgnored", {{"zone", "b"}}, {}, "arm"},
        OwnKeysCase{"OwnKeyMismatchSkips", {{"arch", "amd64"}, {"zone", "a"}}, {}, "zone-a"},
        // Neither labelled flavor matches; the label-less one matches anything.
        OwnKeysCase{"LabelLessFlavorMatches", {{"arch", "amd64"}, {"zone", "b"}}, {}, "plain"},
        OwnKeysCase{"AffinityOnAnotherFlavorsKey", {}, {{"zone", "In", {"b"}}}, "arm"},
        OwnKeysCase{"AffinityAndSelectorOnlyLabelLessMatches",
                    {{"zone", "b"}},
                    {{"arch", "In", {"amd64"}}},
                    "plain"}),
    [](const ::testing::TestParamInfo<OwnKeysCase>& info) { return info.param.name; });

TEST_F(FlavorAssignerTest, LabelledFlavorFirstIsKeptOverLabelLess) {
  // Order decides: the labelled flavor listed first matches and is chosen.
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
                      MakeResourceFlavor("plain"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("arm").Resource("cpu", "4"),
                                    MakeFlavorQuotas("plain").Resource("cpu", "4")}),
                      Wl({{"cpu", "1"}}).NodeSelector("arch", "arm64")));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "arm");
}

TEST_F(FlavorAssignerTest, ToleratedTaintOnLabelledFlavorIsNoObstacle) {
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("spot").NodeLabel("tier", "spot").Taint("spot", "true", "NoSchedule"),
      MakeResourceFlavor("on-demand").NodeLabel("tier", "on-demand"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"},
                                           {MakeFlavorQuotas("spot").Resource("cpu", "4"),
                                            MakeFlavorQuotas("on-demand").Resource("cpu", "4")}),
      Wl({{"cpu", "1"}})
          .NodeSelector("zone", "b")
          .Toleration("spot", "Equal", "true", "NoSchedule")));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "spot");
}

// ---------------------------------------------------------------------------
// flavorFungibility.

// "a" has 2 cpu of f1 and 10 of f2; "lender" lends 10 of f1. A 4-cpu
// workload fits f1 only by borrowing.
std::string WhenCanBorrowFlavor(FungibilityAction when_can_borrow) {
  EngineHarness h;
  EXPECT_TRUE(h.Apply(MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
                      MakeClusterQueue("a")
                          .Cohort("all")
                          .ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "2"),
                                                   MakeFlavorQuotas("f2").Resource("cpu", "10")})
                          .FlavorFungibility(when_can_borrow, FungibilityAction::kTryNextFlavor),
                      MakeClusterQueue("lender").Cohort("all").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "10")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("a"), Wl({{"cpu", "4"}})));
  h.Cycle();
  return h.FlavorOf(kWl, "main", "cpu");
}

TEST(FlavorFungibilityTest, WhenCanBorrowMayStopSearchBorrowsInFirstFlavor) {
  EXPECT_EQ(WhenCanBorrowFlavor(FungibilityAction::kMayStopSearch), "f1");
}

TEST(FlavorFungibilityTest, WhenCanBorrowTryNextFlavorAvoidsBorrowing) {
  EXPECT_EQ(WhenCanBorrowFlavor(FungibilityAction::kTryNextFlavor), "f2");
}

TEST(FlavorFungibilityTest, WhenCanBorrowTryNextFlavorFallsBackToBorrowing) {
  // f2 is full: the only way in is borrowing f1, which is kept as the best.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
      MakeClusterQueue("a")
          .Cohort("all")
          .ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "2"),
                                   MakeFlavorQuotas("f2").Resource("cpu", "1")})
          .FlavorFungibility(FungibilityAction::kTryNextFlavor, FungibilityAction::kTryNextFlavor),
      MakeClusterQueue("lender").Cohort("all").ResourceGroup(
          {"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "10")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("a"), Wl({{"cpu", "4"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "f1");
}

// f1 (4 cpu) is full with a low-priority workload; f2 (4 cpu) is empty.
struct PreemptOutcome {
  std::string flavor;
  std::vector<std::string> victims;
};

// The flavor "wl" got is `flavor` ("" when pending) and `victims` were preempted.
void ExpectOutcome(const PreemptOutcome& o, const std::string& flavor, const Keys& victims) {
  EXPECT_EQ(o.flavor, flavor);
  EXPECT_EQ(o.victims, victims);
}

// Applies `queues` with the LocalQueue "lq" of "cq", "low" (priority 0)
// holding `cpu` of `flavor` in "cq" and "wl" (priority 10) asking as much;
// runs a cycle.
template <class... Qs>
PreemptOutcome WithLowHolding(const std::string& cpu, const std::string& flavor,
                              const Qs&... queues) {
  EngineHarness h;
  EXPECT_TRUE(
      h.Apply(queues..., MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
              MakeWorkload("low", "ns")
                  .Queue("lq")
                  .Priority(0)
                  .PodSet("main", 1, {{"cpu", cpu}})
                  .ReserveQuota("cq", {{"cpu", flavor}})
                  .Admitted(),
              MakeWorkload("wl", "ns").Queue("lq").Priority(10).PodSet("main", 1, {{"cpu", cpu}})));
  auto r = h.Cycle();
  return {h.FlavorOf(kWl, "main", "cpu"), EngineHarness::Victims(r.preempted)};
}

PreemptOutcome WhenCanPreempt(FungibilityAction when_can_preempt) {
  return WithLowHolding(
      "4", "f1", MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
      MakeClusterQueue("cq")
          .ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "4"),
                                   MakeFlavorQuotas("f2").Resource("cpu", "4")})
          .Preemption(api::WithinClusterQueuePolicy::kLowerPriority)
          .FlavorFungibility(FungibilityAction::kMayStopSearch, when_can_preempt));
}

TEST(FlavorFungibilityTest, WhenCanPreemptTryNextFlavorUsesFreeFlavor) {
  ExpectOutcome(WhenCanPreempt(FungibilityAction::kTryNextFlavor), "f2", {});
}

TEST(FlavorFungibilityTest, WhenCanPreemptMayStopSearchPreemptsInFirstFlavor) {
  ExpectOutcome(WhenCanPreempt(FungibilityAction::kMayStopSearch), "",
                {"ns/low"});  // pending until the victim is gone
}

// on-demand: 5 nominal, no borrowing, full with a low-priority workload
// (preemption possible); spot: 0 nominal, may borrow 5 from the lender.
// Both flavors say TryNextFlavor, so the preference decides.
PreemptOutcome Preference(FungibilityPreference pref) {
  return WithLowHolding(
      "5", "on-demand", MakeResourceFlavor("on-demand"), MakeResourceFlavor("spot"),
      MakeClusterQueue("cq")
          .Cohort("all")
          .ResourceGroup({"cpu"}, {MakeFlavorQuotas("on-demand").Resource("cpu", "5", "0"),
                                   MakeFlavorQuotas("spot").Resource("cpu", "0", "5")})
          .Preemption(api::WithinClusterQueuePolicy::kLowerPriority)
          .FlavorFungibility(FungibilityAction::kTryNextFlavor, FungibilityAction::kTryNextFlavor,
                             pref),
      MakeClusterQueue("lender").Cohort("all").ResourceGroup(
          {"cpu"}, {MakeFlavorQuotas("spot").Resource("cpu", "5")}));
}

TEST(FlavorFungibilityTest, PreferenceUnsetPrefersBorrowingToPreempting) {
  ExpectOutcome(Preference(FungibilityPreference::kUnset), "spot", {});
}

TEST(FlavorFungibilityTest, PreferenceBorrowingOverPreemption) {
  ExpectOutcome(Preference(FungibilityPreference::kBorrowingOverPreemption), "spot", {});
}

TEST(FlavorFungibilityTest, PreferencePreemptionOverBorrowing) {
  ExpectOutcome(Preference(FungibilityPreference::kPreemptionOverBorrowing), "", {"ns/low"});
}

// ---------------------------------------------------------------------------
// Resources.

TEST_F(FlavorAssignerTest, PodsResourceCountsPods) {
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "pods"},
          {MakeFlavorQuotas("default").Resource("cpu", "100").Resource("pods", "3")}),
      MakeWorkload("first", "ns").Queue("lq").Created(At(1)).PodSet("main", 2, {{"cpu", "1"}}),
      MakeWorkload("second", "ns").Queue("lq").Created(At(2)).PodSet("main", 2, {{"cpu", "1"}})));
  h.Cycle();
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/first"));
  EXPECT_EQ(h.FlavorOf("ns/first", "main", "pods"), "default");
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "pods")), 2000);
  EXPECT_FALSE(h.HoldsQuota("ns/second"));
  EXPECT_TRUE(h.PendingStartsWith(
      "ns/second",
      "couldn't assign flavors to pod set main: insufficient unused quota for pods in flavor "
      "default, 1 more needed"));
}

TEST_F(FlavorAssignerTest, SecondPodSetSpillsToNextFlavor) {
  // f1 has 4 cpu: the driver (2) takes f1; the workers (3 x 1) no longer fit
  // there beside it and go to f2.
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "4"),
                                                     MakeFlavorQuotas("f2").Resource("cpu", "10")}),
      MakeWorkload("wl", "ns")
          .Queue("lq")
          .PodSet("driver", 1, {{"cpu", "2"}})
          .PodSet("workers", 3, {{"cpu", "1"}})));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.FlavorOf(kWl, "driver", "cpu"), "f1");
  EXPECT_EQ(h.FlavorOf(kWl, "workers", "cpu"), "f2");
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("f1", "cpu")), 2000);
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("f2", "cpu")), 3000);
}

TEST_F(FlavorAssignerTest, ResourcesOfOneGroupShareAFlavor) {
  // cpu fits in f1 but memory does not: both go to f2.
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu", "memory"},
                          {MakeFlavorQuotas("f1").Resource("cpu", "4").Resource("memory", "1Gi"),
                           MakeFlavorQuotas("f2").Resource("cpu", "4").Resource("memory", "8Gi")}),
                      Wl({{"cpu", "1"}, {"memory", "2Gi"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "f2");
  EXPECT_EQ(h.FlavorOf(kWl, "main", "memory"), "f2");
}

TEST_F(FlavorAssignerTest, ResourceNotCoveredByClusterQueue) {
  ASSERT_NO_FATAL_FAILURE(RunOnFourCpu({{"cpu", "1"}, {"example.com/gpu", "1"}}));
  EXPECT_FALSE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.engine().PendingMessage(kWl),
            "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in "
            "ClusterQueue");
}

TEST_F(FlavorAssignerTest, ZeroRequestForUncoveredResourceIsIgnored) {
  ASSERT_NO_FATAL_FAILURE(RunOnFourCpu({{"cpu", "1"}, {"example.com/gpu", "0"}}));
  ASSERT_TRUE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "default");
  EXPECT_EQ(h.FlavorOf(kWl, "main", "example.com/gpu"), "");
}

TEST_F(FlavorAssignerTest, ZeroRequestForCoveredResourceGetsTheGroupFlavor) {
  ASSERT_TRUE(
      h.Apply(MakeResourceFlavor("default"),
              MakeClusterQueue("cq").ResourceGroup(
                  {"cpu", "memory"},
                  {MakeFlavorQuotas("default").Resource("cpu", "4").Resource("memory", "1Gi")}),
              Wl({{"cpu", "1"}, {"memory", "0"}})));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.FlavorOf(kWl, "main", "memory"), "default");
}

TEST_F(FlavorAssignerTest, ZeroQuotaFlavorIsSkipped) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("reserved"), MakeResourceFlavor("default"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("reserved").Resource("cpu", "0"),
                                    MakeFlavorQuotas("default").Resource("cpu", "4")}),
                      Wl({{"cpu", "1"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "default");
}

// ---------------------------------------------------------------------------
// Reasons, through the Assigner directly.

TEST_F(FlavorAssignerTest, AssignReportsModesAndReasons) {
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "memory"},
          {MakeFlavorQuotas("default").Resource("cpu", "4").Resource("memory", "4Gi")}),
      MakeWorkload("running", "ns")
          .Queue("lq")
          .PodSet("main", 1, {{"cpu", "2"}, {"memory", "3Gi"}})
          .ReserveQuota("cq", {{"cpu", "default"}, {"memory", "default"}})
          .Admitted(),
      MakeWorkload("fits", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "2"}, {"memory", "1Gi"}}),
      MakeWorkload("needs", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "4"}, {"memory", "2Gi"}}),
      MakeWorkload("huge", "ns").Queue("lq").PodSet("main", 6, {{"cpu", "1"}})));
  const EngineState& s = h.engine().state();
  FlavorAssigner assigner(s.flavors, s.frs, s.config.fair_sharing, nullptr);
  const ClusterQueueNode& cq = *h.CQ("cq");

  Assignment fits = assigner.Assign(*h.Find("ns/fits"), cq);
  EXPECT_EQ(fits.mode, Mode::kFit);
  EXPECT_EQ(fits.Message(), "");
  EXPECT_EQ(fits.borrowing, 0);

  Assignment needs = assigner.Assign(*h.Find("ns/needs"), cq);
  EXPECT_EQ(needs.mode, Mode::kPreempt);  // within nominal: preemption could help
  EXPECT_EQ(needs.Message(),
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor "
            "default, 2 more needed, insufficient unused quota for memory in flavor default, 1Gi "
            "more needed");

  Assignment huge = assigner.Assign(*h.Find("ns/huge"), cq);
  EXPECT_EQ(huge.mode, Mode::kNoFit);
  EXPECT_EQ(huge.Message(),
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
            "default, request > maximum capacity (6 > 4)");

  // At reduced counts (partial admission) the same workload fits.
  Assignment reduced = assigner.Assign(*h.Find("ns/huge"), cq, {2});
  EXPECT_EQ(reduced.mode, Mode::kFit);
  ASSERT_EQ(reduced.pod_sets.size(), 1u);
  EXPECT_EQ(reduced.pod_sets[0].count, 2);
}

TEST(MatchesNodeAffinityTest, RestrictsToKnownKeys) {
  api::PodSpec spec;
  spec.node_selector = {{"arch", "arm64"}, {"zone", "a"}};
  EXPECT_TRUE(MatchesNodeAffinity(spec, {"arch"}, {{"arch", "arm64"}}));
  EXPECT_FALSE(MatchesNodeAffinity(spec, {"arch"}, {{"arch", "amd64"}}));
  EXPECT_FALSE(MatchesNodeAffinity(spec, {"arch", "zone"}, {{"arch", "arm64"}}));
  EXPECT_TRUE(MatchesNodeAffinity(spec, {}, {}));
}

}  // namespace
}  // namespace kuota::engine
