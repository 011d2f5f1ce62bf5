#include "store/continue_token.h"

#include <gtest/gtest.h>

namespace kuota::store {
namespace {

TEST(ContinueTokenTest, RoundTrips) {
  const ContinueToken cases[] = {
      {0, "", ""},
      {42, "default", "a"},
      {1234567890123, "team-a", "job-with-a-long-name.x"},
      {7, "ns", "n\"quote\\slash/é"},
  };
  for (const ContinueToken& t : cases) {
    std::string text = t.Encode();
    EXPECT_EQ(text.find_first_of("+/= "), std::string::npos) << text;
    Result<ContinueToken> back = ContinueToken::Decode(text);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->resource_version, t.resource_version);
    EXPECT_EQ(back->ns, t.ns);
    EXPECT_EQ(back->name, t.name);
  }
}

TEST(ContinueTokenTest, RejectsGarbage) {
  for (const char* text : {"x", "!!!!", "bm90IGpzb24", "e30", "eyJ2IjoyfQ"}) {
    Result<ContinueToken> t = ContinueToken::Decode(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalid);
    EXPECT_NE(t.status().message().find("continue"), std::string::npos);
  }
}

}  // namespace
}  // namespace kuota::store
