// TokenSigner: tokens it issued verify to their uid; anything else does not;
// its secret file is created 0600 and a malformed one is refused, untouched.
#include "auth/token_signer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace kuota::auth {
namespace {

TEST(TokenSignerTest, IssuedTokensVerify) {
  TokenSigner signer("secret-one");
  std::string token = signer.Issue(1001);
  EXPECT_EQ(token.rfind("kuota1.1001.", 0), 0u) << token;
  ASSERT_TRUE(signer.Verify(token).has_value());
  EXPECT_EQ(*signer.Verify(token), 1001u);
  EXPECT_EQ(*signer.Verify(signer.Issue(0)), 0u);
}

TEST(TokenSignerTest, ForgedAndForeignTokensFail) {
  TokenSigner signer("secret-one");
  TokenSigner other("secret-two");
  std::string token = signer.Issue(1001);
  EXPECT_FALSE(other.Verify(token).has_value());
  std::string as_root = token;
  as_root.replace(7, 4, "0000");  // another uid, same MAC
  EXPECT_FALSE(signer.Verify(as_root).has_value());
  std::string flipped = token;
  flipped.back() = flipped.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(signer.Verify(flipped).has_value());
  for (const char* bad : {"", "kuota1", "kuota1..", "kuota1.x.y", "Bearer x", "kuota1.-1.00"}) {
    EXPECT_FALSE(signer.Verify(bad).has_value()) << bad;
  }
}

TEST(TokenSignerTest, SecretFileCreatedPrivateAndKept) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "kuota-token-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = (dir / "token-secret").string();
  Result<TokenSigner> first = TokenSigner::Load(path);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<TokenSigner> again = TokenSigner::Load(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Verify(first->Issue(42)).value_or(0), 42u);

  { std::ofstream(path, std::ios::trunc) << "not hex!"; }
  Result<TokenSigner> bad = TokenSigner::Load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find(path), std::string::npos) << bad.status().ToString();
  std::ifstream in(path);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "not hex!");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kuota::auth
