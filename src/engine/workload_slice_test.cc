// Elastic jobs' workload slices (Kueue's ElasticJobsViaWorkloadSlices): a
// replacement slice takes over the quota and flavors of the slice it
// replaces and needs only the difference; the old slice is finished as the
// new one is admitted, so usage never counts both; a scale-down in place
// frees quota at once; preemption takes an elastic job's slice whole.
#include "engine/workload_slice.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/engine_harness.h"

namespace kuota::engine {
namespace {

// An elastic job's slice `name` of `pods` pods of 1 cpu in "ns" (queue
// "lq"), replacing `replaces` ("ns/<name>") when given.
MakeWorkload SliceOf(const std::string& name, int32_t pods) {
  MakeWorkload w(name, "ns");
  w.Queue("lq").PodSet("main", pods, {{"cpu", "1"}});
  return w;
}

api::Workload Elastic(const MakeWorkload& w, const std::string& replaces = "") {
  api::Workload wl = w.Obj();
  wl.metadata.annotations[std::string(kElasticJobAnnotation)] = "true";
  wl.metadata.labels["kueue.x-k8s.io/job-uid"] = "job-uid";
  if (!replaces.empty()) {
    wl.metadata.annotations[std::string(kSliceReplacementForAnnotation)] = replaces;
  }
  return wl;
}

// The old slice, admitted with `pods` pods on `flavor`.
api::Workload AdmittedSlice(const std::string& name, int32_t pods,
                            const std::string& flavor = "default") {
  return Elastic(SliceOf(name, pods).ReserveQuota("cq", {{"cpu", flavor}}).Admitted());
}

int64_t CpuUsage(EngineHarness& h, const std::string& flavor = "default") {
  return h.CQ("cq")->usage(h.Fr(flavor, "cpu"));
}

std::string FinishedReason(EngineHarness& h, const std::string& key) {
  const WorkloadInfo* wl = h.Find(key);
  if (wl == nullptr) return "<gone>";
  const api::Condition* c = api::FindCondition(wl->object.status.conditions, api::kFinished);
  return c != nullptr && c->status == "True" ? c->reason : "";
}

void ApplyQueue(EngineHarness& h, const std::string& cpus) {
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"), CpuQueue("cq", cpus),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq")));
}

TEST(WorkloadSliceTest, ReplacementNeedsOnlyTheDelta) {
  EngineHarness h;
  ApplyQueue(h, "4");
  // 2 of 4 cpus held by the old slice, 1 by another job: 1 free, and the
  // scale-up from 2 to 3 pods needs exactly that one.
  ASSERT_TRUE(h.Apply(AdmittedSlice("old", 2),
                      SliceOf("other", 1).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Elastic(SliceOf("new", 3), "ns/old")));
  EXPECT_EQ(CpuUsage(h), 3000);
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), std::vector<std::string>{"ns/new"});
  EXPECT_EQ(r.replaced, std::vector<std::string>{"ns/old"});
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(h.CountOf("ns/new", "main"), 3);
  EXPECT_EQ(h.FlavorOf("ns/new", "main", "cpu"), "default");
  EXPECT_FALSE(h.HoldsQuota("ns/old"));
  EXPECT_EQ(h.Find("ns/old")->state, WorkloadState::kFinished);
  EXPECT_EQ(FinishedReason(h, "ns/old"), "WorkloadSliceReplaced");
  const api::Condition* f =
      api::FindCondition(h.Find("ns/old")->object.status.conditions, api::kFinished);
  EXPECT_EQ(f->message,
            "Replaced to accommodate a workload (UID: ns-new, JobUID: job-uid) due to workload "
            "slice aggregation");
  // The admission written on the new slice is its whole usage, not the delta.
  ASSERT_TRUE(h.Find("ns/new")->object.status.admission.has_value());
  EXPECT_EQ(h.Find("ns/new")
                ->object.status.admission->pod_set_assignments[0]
                .resource_usage.at("cpu")
                .milli(),
            3000);
  // Usage is the new slice's and the other job's: never old + new.
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, QuotaNeverCountedTwice) {
  EngineHarness h;
  ApplyQueue(h, "4");
  ASSERT_TRUE(h.Apply(AdmittedSlice("old", 2), Elastic(SliceOf("new", 4), "ns/old")));
  EXPECT_EQ(CpuUsage(h), 2000);  // the pending slice holds nothing
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(CpuUsage(h), 4000);  // 4 pods, not 2 + 4
  // A later cycle changes nothing: the finished slice is not admitted again.
  auto r = h.Cycle();
  EXPECT_TRUE(r.admitted.empty());
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, WaitsWhileTheDeltaDoesNotFitAndIsAdmittedWhenQuotaFrees) {
  EngineHarness h;
  ApplyQueue(h, "4");
  ASSERT_TRUE(h.Apply(AdmittedSlice("old", 2),
                      SliceOf("filler", 2).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Elastic(SliceOf("new", 4), "ns/old")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/new"));
  EXPECT_TRUE(h.HoldsQuota("ns/old"));  // keeps running while the scale-up waits
  EXPECT_TRUE(h.PendingStartsWith("ns/new",
                                  "couldn't assign flavors to pod set main: "
                                  "insufficient unused quota for cpu in flavor "
                                  "default, 2 more needed"));
  EXPECT_EQ(CpuUsage(h), 4000);
  ASSERT_TRUE(h.engine().FinishWorkload("ns/filler").ok());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(FinishedReason(h, "ns/old"), "WorkloadSliceReplaced");
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, PendingSliceUpdatedInPlaceIsNoDuplicate) {
  EngineHarness h;
  ApplyQueue(h, "4");
  ASSERT_TRUE(h.Apply(AdmittedSlice("old", 2),
                      SliceOf("filler", 1).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Elastic(SliceOf("new", 4), "ns/old")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/new"));
  // A second change of parallelism (4 -> 3) while the slice is pending
  // rewrites that slice's count: still one replacement, and now it fits.
  ASSERT_TRUE(h.Apply(Elastic(SliceOf("new", 3), "ns/old")));
  auto r = h.Cycle();
  EXPECT_EQ(EngineHarness::AdmittedKeys(r), std::vector<std::string>{"ns/new"});
  EXPECT_EQ(h.CountOf("ns/new", "main"), 3);
  EXPECT_EQ(CpuUsage(h), 4000);
  int holding = 0;
  for (const WorkloadInfo* wl : h.engine().Workloads()) holding += wl->holds_quota() ? 1 : 0;
  EXPECT_EQ(holding, 2);  // the new slice and the filler
}

TEST(WorkloadSliceTest, ScaleDownInPlaceFreesQuotaAtOnce) {
  EngineHarness h;
  ApplyQueue(h, "4");
  ASSERT_TRUE(h.Apply(AdmittedSlice("elastic", 4), SliceOf("waiting", 2)));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/waiting"));
  // The job went from 4 to 2: the Workload's count is updated, its
  // admission (4 pods) left as it was, as Kueue does.
  api::Workload down = AdmittedSlice("elastic", 4);
  down.spec.pod_sets[0].count = 2;
  ASSERT_TRUE(h.Apply(down));
  EXPECT_TRUE(h.HoldsQuota("ns/elastic"));
  EXPECT_EQ(h.CountOf("ns/elastic", "main"), 2);
  EXPECT_EQ(CpuUsage(h), 2000);
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/waiting"));
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, ReplacementKeepsTheOldSlicesFlavor) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(
      MakeResourceFlavor("small"), MakeResourceFlavor("big"),
      MakeClusterQueue("cq").ResourceGroup({"cpu"}, {MakeFlavorQuotas("small").Resource("cpu", "8"),
                                                     MakeFlavorQuotas("big").Resource("cpu", "3")}),
      MakeLocalQueue("lq", "ns").ClusterQueue("cq")));
  ASSERT_TRUE(h.Apply(AdmittedSlice("old", 2, "big"), Elastic(SliceOf("new", 4), "ns/old")));
  h.Cycle();
  // "small" has room for all 4 pods, "big" not for 2 more: it waits.
  EXPECT_FALSE(h.HoldsQuota("ns/new"));
  EXPECT_NE(h.engine().PendingMessage("ns/new").find(
                "could not assign small flavor since the original workload is assigned: big"),
            std::string::npos)
      << h.engine().PendingMessage("ns/new");
  ASSERT_TRUE(h.Apply(Elastic(SliceOf("new", 3), "ns/old")));
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(h.FlavorOf("ns/new", "main", "cpu"), "big");
  EXPECT_EQ(CpuUsage(h, "big"), 3000);
  EXPECT_EQ(CpuUsage(h, "small"), 0);
}

TEST(WorkloadSliceTest, ReplacementWithoutAHeldSliceNeedsFullQuota) {
  EngineHarness h;
  ApplyQueue(h, "4");
  // The slice it names holds nothing (evicted, finished or gone): the
  // replacement is admitted like any workload, on its whole usage.
  ASSERT_TRUE(h.Apply(SliceOf("filler", 1).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Elastic(SliceOf("new", 4), "ns/gone")));
  h.Cycle();
  EXPECT_FALSE(h.HoldsQuota("ns/new"));
  ASSERT_TRUE(h.engine().FinishWorkload("ns/filler").ok());
  h.Cycle();
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, PreemptionEvictsTheElasticJobWhole) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      CpuQueue("cq", "4").Preemption(api::WithinClusterQueuePolicy::kLowerPriority),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq")));
  // The elastic job runs 2 pods and waits to grow to 4 (a filler, of the
  // preemptor's priority, holds 2).
  ASSERT_TRUE(h.Apply(
      AdmittedSlice("old", 2),
      SliceOf("filler", 2).Priority(100).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
      Elastic(SliceOf("new", 4), "ns/old")));
  h.Cycle();
  ASSERT_FALSE(h.HoldsQuota("ns/new"));
  // A higher-priority workload needing 2 cpus takes the elastic slice whole
  // (both pods), not part of it; the filler keeps its quota.
  api::Workload urgent = SliceOf("urgent", 2).Priority(100).Obj();
  urgent.metadata.creation_timestamp = At(30);
  ASSERT_TRUE(h.Apply(urgent));
  auto victims = h.Cycles(3);
  EXPECT_EQ(EngineHarness::Victims(victims), std::vector<std::string>{"ns/old"});
  EXPECT_FALSE(h.HoldsQuota("ns/old"));
  EXPECT_TRUE(h.HoldsQuota("ns/urgent"));
  EXPECT_TRUE(h.HoldsQuota("ns/filler"));
  EXPECT_FALSE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(CpuUsage(h), 4000);
}

TEST(WorkloadSliceTest, ScaleUpPreemptsForTheDeltaNeverItsOwnSlice) {
  EngineHarness h;
  ASSERT_TRUE(h.Apply(MakeResourceFlavor("default"),
                      CpuQueue("cq", "4").Preemption(api::WithinClusterQueuePolicy::kLowerPriority),
                      MakeLocalQueue("lq", "ns").ClusterQueue("cq")));
  // The elastic job (priority 100) holds 2 cpus, a low-priority job 2: the
  // scale-up to 4 needs 2 more, which preemption of the low one gives.
  api::Workload old =
      Elastic(SliceOf("old", 2).Priority(100).ReserveQuota("cq", {{"cpu", "default"}}).Admitted());
  ASSERT_TRUE(h.Apply(old, SliceOf("low", 2).ReserveQuota("cq", {{"cpu", "default"}}).Admitted(),
                      Elastic(SliceOf("new", 4).Priority(100), "ns/old")));
  auto victims = h.Cycles(3);
  EXPECT_EQ(EngineHarness::Victims(victims), std::vector<std::string>{"ns/low"});
  EXPECT_TRUE(h.HoldsQuota("ns/new"));
  EXPECT_EQ(FinishedReason(h, "ns/old"), "WorkloadSliceReplaced");
  EXPECT_EQ(CpuUsage(h), 4000);
}

}  // namespace
}  // namespace kuota::engine
