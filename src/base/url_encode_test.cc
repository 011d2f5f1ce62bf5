// UrlEncode: unreserved characters pass, everything else (reserved
// characters, spaces, bytes above 0x7f) becomes %XX in upper-case hex.
#include "base/url_encode.h"

#include <gtest/gtest.h>

namespace kuota {
namespace {

TEST(UrlEncodeTest, ReservedCharactersAreEncoded) {
  EXPECT_EQ(UrlEncode("a=b,c!=d"), "a%3Db%2Cc%21%3Dd");
  EXPECT_EQ(UrlEncode("kueue.x-k8s.io/job-uid"), "kueue.x-k8s.io%2Fjob-uid");
}

TEST(UrlEncodeTest, UnreservedPassAndOtherBytesAreHex) {
  EXPECT_EQ(UrlEncode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(UrlEncode("a b"), "a%20b");
  EXPECT_EQ(UrlEncode("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(UrlEncode(std::string_view("\0", 1)), "%00");
  EXPECT_EQ(UrlEncode(""), "");
}

}  // namespace
}  // namespace kuota
