// PlanWorkloadSlices: Kueue's EnsureWorkloadSlices and normalizeActiveSlices
// on an elastic Job's Workloads.
#include "control/workload_slices.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

SliceState Slice(std::string key, int32_t count, bool holds_quota, std::string replaces = "",
                 bool evicted = false) {
  SliceState s;
  s.key = std::move(key);
  s.counts = {{"main", count}};
  s.holds_quota = holds_quota;
  s.replacement_for = std::move(replaces);
  s.evicted = evicted;
  return s;
}

using Action = SlicePlan::Action;
using Finish = std::vector<std::pair<std::string, std::string>>;

TEST(WorkloadSlicesTest, Plans) {
  struct Case {
    const char* name;
    int32_t job_count;
    std::vector<SliceState> slices;
    Action action;
    std::string selected;
    std::string replaces;
    Finish finish;
  };
  const std::vector<Case> cases = {
      {"no slice yet: the first is made", 2, {}, Action::kCreate, "", "", {}},
      {"unchanged", 2, {Slice("ns/a", 2, true)}, Action::kNone, "ns/a", "", {}},
      {"not admitted yet: rewritten in place",
       4,
       {Slice("ns/a", 2, false)},
       Action::kUpdateCounts,
       "ns/a",
       "",
       {}},
      {"scale-down of an admitted slice: in place",
       1,
       {Slice("ns/a", 2, true)},
       Action::kUpdateCounts,
       "ns/a",
       "",
       {}},
      {"scale-up of an admitted slice: a replacement",
       4,
       {Slice("ns/a", 2, true)},
       Action::kCreate,
       "",
       "ns/a",
       {}},
      {"a second change while the replacement waits rewrites it (no duplicate)",
       5,
       {Slice("ns/a", 2, true), Slice("ns/b", 4, false, "ns/a")},
       Action::kUpdateCounts,
       "ns/b",
       "",
       {}},
      {"the replacement waits: the job follows it",
       4,
       {Slice("ns/a", 2, true), Slice("ns/b", 4, false, "ns/a")},
       Action::kNone,
       "ns/b",
       "",
       {}},
      {"duplicate replacements of a race: the extra one is finished",
       4,
       {Slice("ns/a", 2, true), Slice("ns/b", 4, false, "ns/a"), Slice("ns/c", 4, false, "ns/a")},
       Action::kNone,
       "ns/b",
       "",
       Finish{{"ns/c", "OutOfSync"}}},
      {"both admitted (the old one not yet finished): the old one is",
       4,
       {Slice("ns/a", 2, true), Slice("ns/b", 4, true, "ns/a")},
       Action::kNone,
       "ns/b",
       "",
       Finish{{"ns/a", "WorkloadSliceReplaced"}}},
      {"the admitted slice evicted: its replacement stands for the job",
       4,
       {Slice("ns/a", 2, false, "", true), Slice("ns/b", 4, false, "ns/a")},
       Action::kNone,
       "ns/b",
       "",
       Finish{{"ns/a", "WorkloadSliceReplaced"}}},
  };
  for (const Case& c : cases) {
    std::vector<SliceState> slices = c.slices;
    OrderSlices(slices);
    SlicePlan plan = PlanWorkloadSlices({{"main", c.job_count}}, slices);
    EXPECT_EQ(plan.action, c.action) << c.name;
    EXPECT_EQ(plan.selected, c.selected) << c.name;
    EXPECT_EQ(plan.replaces, c.replaces) << c.name;
    EXPECT_EQ(plan.finish, c.finish) << c.name;
    EXPECT_FALSE(plan.incompatible) << c.name;
  }
}

TEST(WorkloadSlicesTest, ReplacementCarriesTheChainsSliceName) {
  SliceState a = Slice("ns/job-a-2", 2, true);
  a.slice_name = "job-a-1";
  SlicePlan plan = PlanWorkloadSlices({{"main", 3}}, {a});
  EXPECT_EQ(plan.action, Action::kCreate);
  EXPECT_EQ(plan.origin, "job-a-1");
  plan = PlanWorkloadSlices({{"main", 3}}, {Slice("ns/job-a-1", 2, true)});
  EXPECT_EQ(plan.origin, "job-a-1");
}

TEST(WorkloadSlicesTest, OrderPutsAReplacementAfterTheSliceItReplaces) {
  std::vector<SliceState> slices = {Slice("ns/b", 4, false, "ns/a"), Slice("ns/a", 2, true)};
  OrderSlices(slices);
  EXPECT_EQ(slices[0].key, "ns/a");
  EXPECT_EQ(slices[1].key, "ns/b");
}

TEST(WorkloadSlicesTest, OtherPodSetsAreIncompatible) {
  SlicePlan plan = PlanWorkloadSlices({{"other", 2}}, {Slice("ns/a", 2, true)});
  EXPECT_TRUE(plan.incompatible);
}

}  // namespace
}  // namespace kuota::control
