// How kuota finds its server (flag, environment, kubeconfig), kubeconfig
// parsing, and the error for a server that does not answer.
#include "cli/api_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

#include "cli/cli_test_support.h"

namespace kuota::cli {
namespace {

using testing::TempDir;
using testing::WriteFile;

// Sets an environment variable for the scope; restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

constexpr const char* kKubeconfig = R"(apiVersion: v1
kind: Config
clusters:
- name: other
  cluster:
    server: "http://10.0.0.1:1"
- name: kuota
  cluster:
    server: "http://127.0.0.1:8080"
contexts:
- name: kuota
  context:
    cluster: kuota
current-context: kuota
)";

TEST(ServerFromKubeconfigTest, CurrentContextsCluster) {
  Result<std::string> url = ServerFromKubeconfig(kKubeconfig);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(*url, "http://127.0.0.1:8080");
}

TEST(ServerFromKubeconfigTest, Errors) {
  EXPECT_FALSE(ServerFromKubeconfig("[1, 2").ok());
  EXPECT_FALSE(ServerFromKubeconfig("just text").ok());
  EXPECT_FALSE(ServerFromKubeconfig("clusters: []\n").ok());
}

TEST(ResolveServerUrlTest, Precedence) {
  TempDir dir;
  WriteFile(dir.path() + "/config", kKubeconfig);
  std::filesystem::create_directories(dir.path() + "/state/kuota");
  WriteFile(dir.path() + "/state/kuota/kubeconfig",
            "clusters:\n- name: a\n  cluster:\n    server: http://127.0.0.1:9999\n");
  const std::string state_dir = dir.path() + "/state";
  ScopedEnv state("XDG_STATE_HOME", state_dir.c_str());
  ScopedEnv server("KUOTA_SERVER", nullptr);
  EXPECT_EQ(*ResolveServerUrl({}), "http://127.0.0.1:9999");  // kuotad's default kubeconfig
  EXPECT_EQ(*ResolveServerUrl({"", dir.path() + "/config"}), "http://127.0.0.1:8080");
  {
    ScopedEnv env("KUOTA_SERVER", "http://127.0.0.1:7777");
    EXPECT_EQ(*ResolveServerUrl({}), "http://127.0.0.1:7777");
    EXPECT_EQ(*ResolveServerUrl({"http://127.0.0.1:1234", ""}), "http://127.0.0.1:1234");
  }
  Result<std::string> missing = ResolveServerUrl({"", dir.path() + "/nope"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--kubeconfig"), std::string::npos);
  const std::string empty_dir = dir.path() + "/empty";
  ScopedEnv empty_state("XDG_STATE_HOME", empty_dir.c_str());
  Result<std::string> none = ResolveServerUrl({});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("Start the server with `kuotad`"), std::string::npos)
      << none.status().message();
}

TEST(ApiClientTest, UnreachableServer) {
  // A port nobody listens on: bind one, then close it.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  ApiClient client(url);
  Result<Json> r = client.Get("/api");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(),
            "cannot reach kuotad at " + url + ": connection refused — start it with `kuotad`");
}

}  // namespace
}  // namespace kuota::cli
