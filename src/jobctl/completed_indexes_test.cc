// CompletedIndexes: status.completedIndexes text form, both directions.
#include "jobctl/completed_indexes.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::jobctl {
namespace {

TEST(FormatCompletedIndexesTest, CompressesRuns) {
  EXPECT_EQ(FormatCompletedIndexes({}), "");
  EXPECT_EQ(FormatCompletedIndexes({3}), "3");
  EXPECT_EQ(FormatCompletedIndexes({0, 1, 2, 5}), "0-2,5");
  EXPECT_EQ(FormatCompletedIndexes({1, 2}), "1-2");
  EXPECT_EQ(FormatCompletedIndexes({0, 2, 4, 5, 6, 9}), "0,2,4-6,9");
}

TEST(ParseCompletedIndexesTest, RoundTrips) {
  for (const std::string text : {"", "0", "0-2,5", "1,3,5-7,10"}) {
    Result<IndexSet> got = ParseCompletedIndexes(text, 100);
    ASSERT_TRUE(got.ok()) << text << ": " << got.status().ToString();
    EXPECT_EQ(FormatCompletedIndexes(*got), text);
  }
}

TEST(ParseCompletedIndexesTest, DropsIndexesBeyondCompletions) {
  Result<IndexSet> got = ParseCompletedIndexes("0-2,4-9,12", 6);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (IndexSet{0, 1, 2, 4, 5}));
}

TEST(ParseCompletedIndexesTest, RejectsMalformedText) {
  for (const std::string text :
       {"a", "1-", "-1", "3-1", "1,,2", "2,1", "0-2,2", "1 ,2", "0,", "9999999999"}) {
    Result<IndexSet> got = ParseCompletedIndexes(text, 100);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find("status.completedIndexes"), std::string::npos);
  }
}

}  // namespace
}  // namespace kuota::jobctl
