#include "standalone/pod_command.h"

#include <gtest/gtest.h>

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

Json Pod() {
  return Json::parse(R"J({"metadata": {"name": "p", "namespace": "ns", "uid": "u1",
                                       "labels": {"team": "a"}},
                         "spec": {"containers": []}})J");
}

TEST(ProgramFromImage, LastPathComponentWithoutTagOrDigest) {
  EXPECT_EQ(ProgramFromImage("gcr.io/k8s-staging-perf-tests/sleep:latest"), "sleep");
  EXPECT_EQ(ProgramFromImage("busybox"), "busybox");
  EXPECT_EQ(ProgramFromImage("registry:5000/team/train@sha256:abc"), "train");
  EXPECT_EQ(ProgramFromImage(""), "");
}

TEST(BuildContainerCommand, ImageProgramRunsArgsWhenNoCommand) {
  Json c = {
      {"name", "c"}, {"image", "gcr.io/k8s-staging-perf-tests/sleep:latest"}, {"args", {"10s"}}};
  auto cmd = BuildContainerCommand(Pod(), c, {});
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv, (std::vector<std::string>{"sleep", "10s"}));
}

TEST(BuildContainerCommand, CommandArgsEnvAndExpansion) {
  Json c = Json::parse(R"J({"name": "c", "image": "x", "workingDir": "/tmp",
      "command": ["echo", "$(GREETING)", "$$(LITERAL)", "$(MISSING)"],
      "args": ["$(POD)"],
      "env": [{"name": "GREETING", "value": "hi"},
              {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
              {"name": "TEAM", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['team']"}}},
              {"name": "BOTH", "value": "$(GREETING)-$(POD)"}]})J");
  auto cmd = BuildContainerCommand(Pod(), c, {{"CUDA_VISIBLE_DEVICES", "1"}});
  ASSERT_TRUE(cmd.ok()) << cmd.status().message();
  EXPECT_EQ(cmd->argv, (std::vector<std::string>{"echo", "hi", "$(LITERAL)", "$(MISSING)", "p"}));
  EXPECT_EQ(cmd->working_dir, "/tmp");
  ASSERT_EQ(cmd->env.size(), 5u);
  EXPECT_EQ(cmd->env[2].value, "a");
  EXPECT_EQ(cmd->env[3].value, "hi-p");
  EXPECT_EQ(cmd->env[4].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_TRUE(cmd->warnings.empty());
}

TEST(BuildContainerCommand, UnsupportedEnvSourceIsAWarningNotAFailure) {
  Json c = Json::parse(R"J({"name": "c", "command": ["true"],
      "env": [{"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]})J");
  auto cmd = BuildContainerCommand(Pod(), c, {});
  ASSERT_TRUE(cmd.ok());
  ASSERT_EQ(cmd->warnings.size(), 1u);
  EXPECT_NE(cmd->warnings[0].find("spec.containers[c].env[0].valueFrom"), std::string::npos);
}

TEST(BuildContainerCommand, BadInputNamesTheField) {
  auto none = BuildContainerCommand(Pod(), Json{{"name", "c"}}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("spec.containers[c]: no command"), std::string::npos);
  auto bad_args = BuildContainerCommand(Pod(), Json{{"name", "c"}, {"command", {"a", 3}}}, {});
  ASSERT_FALSE(bad_args.ok());
  EXPECT_NE(bad_args.status().message().find("spec.containers[c].command[1]"), std::string::npos);
  auto bad_env = BuildContainerCommand(
      Pod(), Json::parse(R"J({"name":"c","command":["x"],"env":[{"name":"A=B"}]})J"), {});
  ASSERT_FALSE(bad_env.ok());
  EXPECT_NE(bad_env.status().message().find("env[0].name"), std::string::npos);
}

}  // namespace
}  // namespace kuota::standalone
