// Partial admission's order-based count search (Kueue's PodSetReducer with
// the order-based policy and its give-back phase), against `fits` callbacks
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
                      // 19 pods fit: the last pod set gives up 5 of its 10 spare, the
                      // earlier one stays whole.
                      ReduceCase{"LastPodSetShrinksFirst",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 19; },
                                 std::vector<int32_t>{1, 4, 14}},
                      // 14 fit: the last is at its minCount (10) and the middle one gives 1.
                      ReduceCase{"SpillsToEarlierPodSet",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return Sum(c) <= 14; },
                                 std::vector<int32_t>{1, 3, 10}},
                      // The middle pod set alone is capped at 2 (its own flavor); the last
                      // one was drained only on the way there, and grows back whole.
                      ReduceCase{"GiveBackRestoresNeedlessCuts",
                                 {Ps(1), Ps(4, 2), Ps(20, 10)},
                                 [](const std::vector<int32_t>& c) { return c[1] <= 2; },
                                 std::vector<int32_t>{1, 2, 20}},
                      // Give back grows a pod set only as far as it still fits.
                      ReduceCase{
                          "GiveBackGrowsPartly",
                          {Ps(1), Ps(4, 2), Ps(20, 10)},
                          [](const std::vector<int32_t>& c) { return c[1] <= 2 && c[2] <= 15; },
                          std::vector<int32_t>{1, 2, 15}}),
    [](const ::testing::TestParamInfo<ReduceCase>& info) { return info.param.name; });

TEST(PodSetReducerTest, CountsForBudget) {
  PodSetReducer r({Ps(1), Ps(4, 2), Ps(20, 10)});
  EXPECT_TRUE(r.CanReduce());
  EXPECT_EQ(r.CountsForBudget(0), (std::vector<int32_t>{1, 4, 20}));
  EXPECT_EQ(r.CountsForBudget(7), (std::vector<int32_t>{1, 4, 13}));
  EXPECT_EQ(r.CountsForBudget(11), (std::vector<int32_t>{1, 3, 10}));
  EXPECT_EQ(r.CountsForBudget(12), (std::vector<int32_t>{1, 2, 10}));
  EXPECT_EQ(r.CountsForBudget(100), (std::vector<int32_t>{1, 2, 10}));
}

}  // namespace
}  // namespace kuota::engine
