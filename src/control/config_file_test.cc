// LoadConfigFile: the defaults without a file, both Configuration versions
// (v1beta2 turns a section on by its presence), and errors naming the file.
#include "control/config_file.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace kuota::control {
namespace {

class ConfigFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_.string();
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                ("kuota_config_file_test_" + std::to_string(::getpid()) + ".yaml");
};

TEST_F(ConfigFileTest, NoPathGivesDefaults) {
  Result<api::Configuration> c = LoadConfigFile("");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->fair_sharing.enable);
  EXPECT_FALSE(c->wait_for_pods_ready.enable);
}

TEST_F(ConfigFileTest, V1beta1AndV1beta2ReadTheSame) {
  Result<api::Configuration> v1 = LoadConfigFile(Write(R"(
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
fairSharing: {enable: true}
waitForPodsReady: {enable: true, blockAdmission: false, timeout: 2m}
manageJobsWithoutQueueName: true
integrations: {frameworks: [batch/job]}
)"));
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  Result<api::Configuration> v2 = LoadConfigFile(Write(R"(
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing: {}
waitForPodsReady: {timeout: 2m}
manageJobsWithoutQueueName: true
integrations: {frameworks: [batch/job]}
)"));
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  for (const api::Configuration* c : {&*v1, &*v2}) {
    EXPECT_TRUE(c->fair_sharing.enable);
    EXPECT_TRUE(c->wait_for_pods_ready.enable);
    EXPECT_FALSE(c->wait_for_pods_ready.block_admission);
    EXPECT_EQ(c->wait_for_pods_ready.timeout.ms, 120'000);
    EXPECT_TRUE(c->manage_jobs_without_queue_name);
    ASSERT_TRUE(c->integrations.frameworks.has_value());
    EXPECT_EQ(*c->integrations.frameworks, std::vector<std::string>{"batch/job"});
  }
}

TEST_F(ConfigFileTest, V1beta2ErrorsNameFileFieldAndLine) {
  std::string path = Write(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "waitForPodsReady:\n  enable: true\n");
  Result<api::Configuration> c = LoadConfigFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            path +
                ": document 1 (Configuration, line 4): waitForPodsReady.enable: unknown field: "
                "config.kueue.x-k8s.io/v1beta2 always runs waitForPodsReady (the feature gate "
                "DisableWaitForPodsReady turns it off)");
}

TEST_F(ConfigFileTest, OtherKindIsRefused) {
  std::string path =
      Write("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n");
  Result<api::Configuration> c = LoadConfigFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            path +
                ": want kind Configuration (config.kueue.x-k8s.io/v1beta1 or v1beta2), got "
                "ResourceFlavor");
  EXPECT_EQ(LoadConfigFile(path + ".missing").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace kuota::control
