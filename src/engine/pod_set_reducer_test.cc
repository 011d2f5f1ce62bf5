// Partial admission's count search (Kueue's PodSetReducer: every variable
// pod set shrinks by the same share of its slack), against `fits` callbacks
// standing in for flavor assignment.
#include "engine/pod_set_reducer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace kuota::engine {
namespace {

PodSetInfo Ps(int32_t count, std::optional<int32_t> min_count = std::nullopt) {
  PodSetInfo ps;
  ps.name = "ps";
  ps.count = count;
  ps.min_count = min_count;
  return ps;
}

struct ReduceCase {
  std::string name;
  std::vector<PodSetInfo> pod_sets;
  CountsFit fits;
  std::optional<std::vector<int32_t>> want;
};

class ReduceTest : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReduceTest, FindsCounts) {
  const ReduceCase& c = GetParam();
  EXPECT_EQ(PodSetReducer(c.pod_sets).Reduce(c.fits), c.want);
}

int Sum(const std::vector<int32_t>& v) {
  int s = 0;
  for (int32_t x : v) s += x;
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ReduceTest,
    ::testing::Values(ReduceCase{"NoMinCountNothingToReduce",
                                 {Ps(5)},
                                 [](const std::vector<int32_t>&) { return true; },
                                 std::nullopt},
                      ReduceCase{"OnePodSetShrinksToFit",
                                 {Ps(1), Ps(20, 5)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 11; },
                                 std::vector<int32_t>{1, 10}},
                      ReduceCase{"NotEvenMinCountFits",
                                 {Ps(20, 12)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 10; },
                                 std::nullopt},
                      // The (and Kueue's) example: 50 fit; the variable pod sets
                      // give up half their slack each, 10 of 20 and 5 of 10.
                      ReduceCase{"KueuesExample",
                                 {Ps(20), Ps(30, 10), Ps(15, 5)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 50; },
                                 std::vector<int32_t>{20, 20, 10}},
                      // 19 fit: step 6 of 12 gives up floor(2x6/12) = 1 and
                      // floor(10x6/12) = 5; step 5 gives up 0 + 4, one short.
                      ReduceCase{"ShrinkTogether",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 19; },
                                 std::vector<int32_t>{1, 3, 15}},
                      ReduceCase{"ToEveryMinCount",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 14; },
                                 std::vector<int32_t>{1, 2, 10}},
                      // A pod set capped on its own (its flavor) takes the others down
                      // with it: nothing is given back, as in Kueue.
                      ReduceCase{"NoGiveBack",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return c[1] <= 2; },
                                 std::vector<int32_t>{1, 2, 10}}),
    [](const ::testing::TestParamInfo<ReduceCase>& info) { return info.param.name; });

TEST(PodSetReducerTest, CountsForBudget) {
  PodSetReducer r({Ps(1), Ps(4, 2), Ps(20, 10)});
  EXPECT_TRUE(r.CanReduce());
  EXPECT_EQ(r.CountsForBudget(0), (std::vector<int32_t>{1, 4, 20}));
  EXPECT_EQ(r.CountsForBudget(6), (std::vector<int32_t>{1, 3, 15}));
  EXPECT_EQ(r.CountsForBudget(11), (std::vector<int32_t>{1, 3, 11}));
  EXPECT_EQ(r.CountsForBudget(12), (std::vector<int32_t>{1, 2, 10}));
}

}  // namespace
}  // namespace kuota::engine
