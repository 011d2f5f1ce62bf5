// Tests for ListEach / ListAll over a real SQLite store: a collection larger
// than one page is read whole, in order, with the caller's namespace and
// label selector, and a refused selector is an error, not an empty list.
#include "store/list_all.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/store_test_env.h"

namespace kuota::store {
namespace {

using ListAllTest = testing::OpenStoreTest;

TEST_F(ListAllTest, ReadsEveryPageInOrderWithTheCallersSelection) {
  // 2,100 objects: three pages of 1,000.
  for (int i = 0; i < 2100; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "cm-%04d", i);
    Json cm = ConfigMap(i % 3 == 0 ? "team-a" : "team-b", name);
    cm["metadata"]["labels"] = {{"even", i % 2 == 0 ? "yes" : "no"}};
    MustCreate(kConfigMaps, cm);
  }
  std::vector<std::string> seen;
  ASSERT_TRUE(
      ListEach(*store_, kConfigMaps, [&](Json& o) { seen.push_back(o["metadata"]["name"]); }).ok());
  ASSERT_EQ(seen.size(), 2100u);
  EXPECT_EQ(seen.front(), "cm-0000");  // team-a's first, then team-b's
  EXPECT_EQ(seen[699], "cm-2097");
  EXPECT_EQ(seen[700], "cm-0001");

  ListOptions only;
  only.ns = "team-a";
  only.label_selector = "even=yes";
  Result<std::vector<Json>> some = ListAll(*store_, kConfigMaps, only);
  ASSERT_TRUE(some.ok()) << some.status().message();
  EXPECT_EQ(some->size(), 350u);  // i % 6 == 0
  for (const Json& o : *some) EXPECT_EQ(o["metadata"]["namespace"], "team-a");

  ListOptions bad;
  bad.label_selector = "a in (";
  EXPECT_FALSE(ListAll(*store_, kConfigMaps, bad).ok());
}

}  // namespace
}  // namespace kuota::store
