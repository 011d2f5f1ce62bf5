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

// ---------------------------------------------------------------------------
// Taints and tolerations.

struct TaintCase {
  std::string name;
  api::Taint taint;
  std::vector<api::Toleration> pod_tolerations;
  std::vector<api::Toleration> flavor_tolerations;
  bool want_admitted;
  std::string want_reason;  // substring of the pending message when not admitted
};

using TaintTest = HarnessTest<TaintCase>;

TEST_P(TaintTest, OnlyFlavorIsTainted) {
  MakeResourceFlavor rf("tainted");
  rf.Taint(c.taint.key, c.taint.value, c.taint.effect);
  for (const auto& t : c.flavor_tolerations) rf.Toleration(t.key, t.op, t.value, t.effect);
  MakeWorkload wl("wl", "ns");
  wl.Queue("lq").PodSet("main", 1, {{"cpu", "1"}});
  for (const auto& t : c.pod_tolerations) wl.Toleration(t.key, t.op, t.value, t.effect);
  ASSERT_TRUE(h.Apply(rf,
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("tainted").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), wl));
  h.Cycle();
  EXPECT_EQ(h.HoldsQuota(kWl), c.want_admitted);
  if (!c.want_admitted) {
    EXPECT_NE(h.engine().PendingMessage(kWl).find(c.want_reason), std::string::npos)
        << h.engine().PendingMessage(kWl);
  }
}

api::Toleration Tol(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

INSTANTIATE_TEST_SUITE_P(
    Table, TaintTest,
    ::testing::Values(
        TaintCase{"Untolerated",
                  {"spot", "true", "NoSchedule"},
                  {},
                  {},
                  false,
                  "untolerated taint spot=true:NoSchedule in flavor tainted"},
        TaintCase{"UntoleratedNoValue",
                  {"dedicated", "", "NoSchedule"},
                  {},
                  {},
                  false,
                  "untolerated taint dedicated:NoSchedule in flavor tainted"},
        TaintCase{"UntoleratedNoExecute",
                  {"spot", "true", "NoExecute"},
                  {},
                  {},
                  false,
                  "untolerated taint spot=true:NoExecute in flavor tainted"},
        TaintCase{"ToleratedEqual",
                  {"spot", "true", "NoSchedule"},
                  {Tol("spot", "Equal", "true", "NoSchedule")},
                  {},
                  true,
                  ""},
        TaintCase{"ToleratedExists",
                  {"spot", "true", "NoSchedule"},
                  {Tol("spot", "Exists", "", "")},
                  {},
                  true,
                  ""},
        TaintCase{"ToleratedByEmptyKeyExists",
                  {"spot", "true", "NoSchedule"},
                  {Tol("", "Exists", "", "")},
                  {},
                  true,
                  ""},
        TaintCase{"WrongValue",
                  {"spot", "true", "NoSchedule"},
                  {Tol("spot", "Equal", "false", "NoSchedule")},
                  {},
                  false,
                  "untolerated taint"},
        TaintCase{"WrongEffect",
                  {"spot", "true", "NoSchedule"},
                  {Tol("spot", "Equal", "true", "NoExecute")},
                  {},
                  false,
                  "untolerated taint"},
        TaintCase{
            "PreferNoScheduleIgnored", {"spot", "true", "PreferNoSchedule"}, {}, {}, true, ""},
        TaintCase{"FlavorToleratesItsOwnTaint",
                  {"spot", "true", "NoSchedule"},
                  {},
                  {Tol("spot", "Exists", "", "NoSchedule")},
                  true,
                  ""}),
    [](const ::testing::TestParamInfo<TaintCase>& info) { return info.param.name; });

TEST(FlavorAssignerTest, UntoleratedTaintExactMessage) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("spot").Taint("spot", "true", "NoSchedule"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("spot").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "1"}})));
  auto r = h.Cycle();
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_EQ(r.pending[0].message(),
            "couldn't assign flavors to pod set main: untolerated taint spot=true:NoSchedule in "
            "flavor spot");
  EXPECT_EQ(h.engine().PendingMessage(kWl), r.pending[0].message());
}

TEST(FlavorAssignerTest, TaintedFirstFlavorIsSkipped) {
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

using AffinityTest = HarnessTest<AffinityCase>;

TEST_P(AffinityTest, ChoosesFlavor) {
  MakeWorkload wl("wl", "ns");
  wl.Queue("lq").PodSet("main", 1, {{"cpu", "1"}});
  for (const auto& [k, v] : c.node_selector) wl.NodeSelector(k, v);
  for (const auto& e : c.terms) wl.NodeAffinityTerm(e.key, e.op, e.values);
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("x86").NodeLabel("arch", "amd64"),
      MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"}, {MakeFlavorQuotas("x86").Resource("cpu", "4"),
                                                     MakeFlavorQuotas("arm").Resource("cpu", "4")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), wl));
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

TEST(FlavorAssignerTest, LabelKeysAreThoseOfEachFlavor) {
  // The gpu group's flavors define "accel"; the cpu group's flavor does not,
  // so a nodeSelector on "accel" constrains only the gpu group.
  EngineHarness h;
  ASSERT_TRUE(
      h.Apply(MakeResourceFlavor("default"), MakeResourceFlavor("a100").NodeLabel("accel", "a100"),
              MakeResourceFlavor("t4").NodeLabel("accel", "t4"),
              MakeClusterQueue("cq")
                  .ResourceGroup({"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")})
                  .ResourceGroup({"gpu"}, {MakeFlavorQuotas("a100").Resource("gpu", "4"),
                                           MakeFlavorQuotas("t4").Resource("gpu", "4")}),
              MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
              MakeWorkload("wl", "ns")
                  .Queue("lq")
                  .PodSet("main", 1, {{"cpu", "1"}, {"gpu", "1"}})
                  .NodeSelector("accel", "t4")));
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

using OwnKeysTest = HarnessTest<OwnKeysCase>;

TEST_P(OwnKeysTest, ChoosesFlavor) {
  MakeWorkload wl("wl", "ns");
  wl.Queue("lq").PodSet("main", 1, {{"cpu", "1"}});
  for (const auto& [k, v] : c.node_selector) wl.NodeSelector(k, v);
  for (const auto& e : c.terms) wl.NodeAffinityTerm(e.key, e.op, e.values);
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
                      MakeResourceFlavor("zone-a").NodeLabel("zone", "a"),
                      MakeResourceFlavor("plain"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("arm").Resource("cpu", "4"),
                                    MakeFlavorQuotas("zone-a").Resource("cpu", "4"),
                                    MakeFlavorQuotas("plain").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"), wl));
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

TEST(FlavorAssignerTest, LabelledFlavorFirstIsKeptOverLabelLess) {
  // Order decides: the labelled flavor listed first matches and is chosen.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("arm").NodeLabel("arch", "arm64"),
                      MakeResourceFlavor("plain"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("arm").Resource("cpu", "4"),
                                    MakeFlavorQuotas("plain").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      MakeWorkload("wl", "ns")
                          .Queue("lq")
                          .PodSet("main", 1, {{"cpu", "1"}})
                          .NodeSelector("arch", "arm64")));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "arm");
}

TEST(FlavorAssignerTest, ToleratedTaintOnLabelledFlavorIsNoObstacle) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("spot").NodeLabel("tier", "spot").Taint("spot", "true", "NoSchedule"),
      MakeResourceFlavor("on-demand").NodeLabel("tier", "on-demand"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"},
                                           {MakeFlavorQuotas("spot").Resource("cpu", "4"),
                                            MakeFlavorQuotas("on-demand").Resource("cpu", "4")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      MakeWorkload("wl", "ns")
          .Queue("lq")
          .PodSet("main", 1, {{"cpu", "1"}})
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
                      MakeLocalQueue("lq", "ns").ClusterQueue("a"),
                      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "4"}})));
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
      MakeLocalQueue("lq", "ns").ClusterQueue("a"),
      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "4"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "f1");
}

// f1 (4 cpu) is full with a low-priority workload; f2 (4 cpu) is empty.
struct PreemptOutcome {
  std::string flavor;
  std::vector<std::string> victims;
};

PreemptOutcome WhenCanPreempt(FungibilityAction when_can_preempt) {
  EngineHarness h;
  EXPECT_TRUE(
      h.Apply(MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
              MakeClusterQueue("cq")
                  .ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "4"),
                                           MakeFlavorQuotas("f2").Resource("cpu", "4")})
                  .Preemption(api::WithinClusterQueuePolicy::kLowerPriority)
                  .FlavorFungibility(FungibilityAction::kMayStopSearch, when_can_preempt),
              MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
              MakeWorkload("low", "ns")
                  .Queue("lq")
                  .Priority(0)
                  .PodSet("main", 1, {{"cpu", "4"}})
                  .ReserveQuota("cq", {{"cpu", "f1"}})
                  .Admitted(),
              MakeWorkload("wl", "ns").Queue("lq").Priority(10).PodSet("main", 1, {{"cpu", "4"}})));
  auto r = h.Cycle();
  return {h.FlavorOf(kWl, "main", "cpu"), EngineHarness::Victims(r.preempted)};
}

TEST(FlavorFungibilityTest, WhenCanPreemptTryNextFlavorUsesFreeFlavor) {
  PreemptOutcome o = WhenCanPreempt(FungibilityAction::kTryNextFlavor);
  EXPECT_EQ(o.flavor, "f2");
  EXPECT_TRUE(o.victims.empty());
}

TEST(FlavorFungibilityTest, WhenCanPreemptMayStopSearchPreemptsInFirstFlavor) {
  PreemptOutcome o = WhenCanPreempt(FungibilityAction::kMayStopSearch);
  EXPECT_EQ(o.flavor, "");  // pending until the victim is gone
  EXPECT_EQ(o.victims, std::vector<std::string>{"ns/low"});
}

// on-demand: 5 nominal, no borrowing, full with a low-priority workload
// (preemption possible); spot: 0 nominal, may borrow 5 from the lender.
// Both flavors say TryNextFlavor, so the preference decides.
PreemptOutcome Preference(FungibilityPreference pref) {
  EngineHarness h;
  EXPECT_TRUE(
      h.Apply(MakeResourceFlavor("on-demand"), MakeResourceFlavor("spot"),
              MakeClusterQueue("cq")
                  .Cohort("all")
                  .ResourceGroup({"cpu"}, {MakeFlavorQuotas("on-demand").Resource("cpu", "5", "0"),
                                           MakeFlavorQuotas("spot").Resource("cpu", "0", "5")})
                  .Preemption(api::WithinClusterQueuePolicy::kLowerPriority)
                  .FlavorFungibility(FungibilityAction::kTryNextFlavor,
                                     FungibilityAction::kTryNextFlavor, pref),
              MakeClusterQueue("lender").Cohort("all").ResourceGroup(
                  {"cpu"}, {MakeFlavorQuotas("spot").Resource("cpu", "5")}),
              MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
              MakeWorkload("low", "ns")
                  .Queue("lq")
                  .Priority(0)
                  .PodSet("main", 1, {{"cpu", "5"}})
                  .ReserveQuota("cq", {{"cpu", "on-demand"}})
                  .Admitted(),
              MakeWorkload("wl", "ns").Queue("lq").Priority(10).PodSet("main", 1, {{"cpu", "5"}})));
  auto r = h.Cycle();
  return {h.FlavorOf(kWl, "main", "cpu"), EngineHarness::Victims(r.preempted)};
}

TEST(FlavorFungibilityTest, PreferenceUnsetPrefersBorrowingToPreempting) {
  PreemptOutcome o = Preference(FungibilityPreference::kUnset);
  EXPECT_EQ(o.flavor, "spot");
  EXPECT_TRUE(o.victims.empty());
}

TEST(FlavorFungibilityTest, PreferenceBorrowingOverPreemption) {
  PreemptOutcome o = Preference(FungibilityPreference::kBorrowingOverPreemption);
  EXPECT_EQ(o.flavor, "spot");
  EXPECT_TRUE(o.victims.empty());
}

TEST(FlavorFungibilityTest, PreferencePreemptionOverBorrowing) {
  PreemptOutcome o = Preference(FungibilityPreference::kPreemptionOverBorrowing);
  EXPECT_EQ(o.flavor, "");
  EXPECT_EQ(o.victims, std::vector<std::string>{"ns/low"});
}

// ---------------------------------------------------------------------------
// Resources.

TEST(FlavorAssignerTest, PodsResourceCountsPods) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "pods"},
          {MakeFlavorQuotas("default").Resource("cpu", "100").Resource("pods", "3")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      MakeWorkload("first", "ns").Queue("lq").Created(At(1)).PodSet("main", 2, {{"cpu", "1"}}),
      MakeWorkload("second", "ns").Queue("lq").Created(At(2)).PodSet("main", 2, {{"cpu", "1"}})));
  h.Cycle();
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota("ns/first"));
  EXPECT_EQ(h.FlavorOf("ns/first", "main", "pods"), "default");
  EXPECT_EQ(h.CQ("cq")->usage(h.Fr("default", "pods")), 2000);
  EXPECT_FALSE(h.HoldsQuota("ns/second"));
  EXPECT_TRUE(EngineHarness::StartsWith(
      h.engine().PendingMessage("ns/second"),
      "couldn't assign flavors to pod set main: insufficient unused quota for pods in flavor "
      "default, 1 more needed"))
      << h.engine().PendingMessage("ns/second");
}

TEST(FlavorAssignerTest, SecondPodSetSpillsToNextFlavor) {
  // f1 has 4 cpu: the driver (2) takes f1; the workers (3 x 1) no longer fit
  // there beside it and go to f2.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"}, {MakeFlavorQuotas("f1").Resource("cpu", "4"),
                                                     MakeFlavorQuotas("f2").Resource("cpu", "10")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
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

TEST(FlavorAssignerTest, ResourcesOfOneGroupShareAFlavor) {
  // cpu fits in f1 but memory does not: both go to f2.
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("f1"), MakeResourceFlavor("f2"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "memory"},
          {MakeFlavorQuotas("f1").Resource("cpu", "4").Resource("memory", "1Gi"),
           MakeFlavorQuotas("f2").Resource("cpu", "4").Resource("memory", "8Gi")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "1"}, {"memory", "2Gi"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "f2");
  EXPECT_EQ(h.FlavorOf(kWl, "main", "memory"), "f2");
}

TEST(FlavorAssignerTest, ResourceNotCoveredByClusterQueue) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      MakeWorkload("wl", "ns")
                          .Queue("lq")
                          .PodSet("main", 1, {{"cpu", "1"}, {"example.com/gpu", "1"}})));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.engine().PendingMessage(kWl),
            "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in "
            "ClusterQueue");
}

TEST(FlavorAssignerTest, ZeroRequestForUncoveredResourceIsIgnored) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("default").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      MakeWorkload("wl", "ns")
                          .Queue("lq")
                          .PodSet("main", 1, {{"cpu", "1"}, {"example.com/gpu", "0"}})));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "default");
  EXPECT_EQ(h.FlavorOf(kWl, "main", "example.com/gpu"), "");
}

TEST(FlavorAssignerTest, ZeroRequestForCoveredResourceGetsTheGroupFlavor) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "memory"},
          {MakeFlavorQuotas("default").Resource("cpu", "4").Resource("memory", "1Gi")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "1"}, {"memory", "0"}})));
  h.Cycle();
  ASSERT_TRUE(h.HoldsQuota(kWl));
  EXPECT_EQ(h.FlavorOf(kWl, "main", "memory"), "default");
}

TEST(FlavorAssignerTest, ZeroQuotaFlavorIsSkipped) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("reserved"), MakeResourceFlavor("default"),
                      MakeClusterQueue("cq").ResourceGroup(
                          {"cpu"}, {MakeFlavorQuotas("reserved").Resource("cpu", "0"),
                                    MakeFlavorQuotas("default").Resource("cpu", "4")}),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
                      MakeWorkload("wl", "ns").Queue("lq").PodSet("main", 1, {{"cpu", "1"}})));
  h.Cycle();
  EXPECT_EQ(h.FlavorOf(kWl, "main", "cpu"), "default");
}

// ---------------------------------------------------------------------------
// Reasons, through the Assigner directly.

TEST(FlavorAssignerTest, AssignReportsModesAndReasons) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("default"),
      MakeClusterQueue("cq").ResourceGroup(
          {"cpu", "memory"},
          {MakeFlavorQuotas("default").Resource("cpu", "4").Resource("memory", "4Gi")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq"),
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
