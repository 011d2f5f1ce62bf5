// WritePrivateFile: mode 0600 whatever the umask, replaces, errors name the file.
#include "base/private_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace kuota {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class PrivateFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kuota-private-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(PrivateFileTest, WritesOwnerOnlyAndReplaces) {
  const std::string path = dir_ + "/kubeconfig";
  mode_t old = ::umask(0);  // a umask that would leave files world-readable
  ASSERT_TRUE(WritePrivateFile(path, "first").ok());
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(Read(path), "first");
  { std::ofstream(path + ".tmp") << "leftover from a crash"; }
  ASSERT_TRUE(WritePrivateFile(path, "second").ok());
  EXPECT_EQ(Read(path), "second");
  EXPECT_NE(::access((path + ".tmp").c_str(), F_OK), 0);
}

TEST_F(PrivateFileTest, ErrorNamesTheFile) {
  Status s = WritePrivateFile(dir_ + "/no-such-dir/kubeconfig", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_ + "/no-such-dir/kubeconfig.tmp"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace kuota
