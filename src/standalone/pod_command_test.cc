#include "standalone/pod_command.h"

#include <gtest/gtest.h>

#include <string>

#include "auth/base64.h"

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
      "env": [{"name": "S", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}]})J");
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

// The value the command's environment ends with for `name` (a later entry
// wins, as ProcessSpec has it); nullopt when unset.
std::optional<std::string> EnvValue(const ContainerCommand& cmd, const std::string& name) {
  std::optional<std::string> value;
  for (const auto& e : cmd.env) {
    if (e.name == name) value = e.value;
  }
  return value;
}

PodConfigObjects CommandTestConfig() {
  PodConfigObjects config;
  config.ns = "ns";
  config.config_maps["app"] = {{"data", {{"LEVEL", "debug"}, {"MODE", "fast"}}},
                               {"binaryData", {{"BLOB", "AAE="}}}};
  config.secrets["creds"] = {{"data", {{"TOKEN", auth::Base64Encode("s3cret")}}}};
  return config;
}

TEST(BuildContainerCommand, EnvFromConfigMapsAndSecrets) {
  Json c = Json::parse(R"J({"name": "c", "command": ["echo", "$(CFG_LEVEL)", "$(TOKEN)"],
      "envFrom": [{"configMapRef": {"name": "app"}, "prefix": "CFG_"},
                  {"secretRef": {"name": "creds"}}],
      "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "LEVEL"}}},
              {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "TOKEN"}}},
              {"name": "CFG_MODE", "value": "slow-$(TOKEN)"}]})J");
  const PodConfigObjects config = CommandTestConfig();
  ContainerInputs inputs;
  inputs.config = &config;
  auto cmd = BuildContainerCommand(Pod(), c, {}, inputs);
  ASSERT_TRUE(cmd.ok()) << cmd.status().ToString();
  EXPECT_EQ(EnvValue(*cmd, "CFG_LEVEL"), "debug");
  EXPECT_EQ(EnvValue(*cmd, "TOKEN"), "s3cret");  // decoded from base64
  EXPECT_EQ(EnvValue(*cmd, "LEVEL"), "debug");
  EXPECT_EQ(EnvValue(*cmd, "PASSWORD"), "s3cret");
  // env overrides envFrom, and expands what envFrom set.
  EXPECT_EQ(EnvValue(*cmd, "CFG_MODE"), "slow-s3cret");
  // binaryData never becomes an environment variable.
  EXPECT_EQ(EnvValue(*cmd, "CFG_BLOB"), std::nullopt);
  EXPECT_EQ(cmd->argv, (std::vector<std::string>{"echo", "debug", "s3cret"}));
}

TEST(BuildContainerCommand, MissingConfigWaitsWithTheKubeletsWords) {
  const PodConfigObjects config = CommandTestConfig();
  ContainerInputs inputs;
  inputs.config = &config;
  auto build = [&](const std::string& env) {
    Json c = Json::parse(R"J({"name": "c", "command": ["true"], "env": [)J" + env + "]}");
    return BuildContainerCommand(Pod(), c, {}, inputs);
  };
  auto missing =
      build(R"({"name": "X", "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "k"}}})");
  ASSERT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "configmap \"nope\" not found");
  auto no_key =
      build(R"({"name": "X", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "k"}}})");
  EXPECT_EQ(no_key.status().message(), "couldn't find key k in ConfigMap ns/app");
  auto no_secret =
      build(R"({"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})");
  EXPECT_EQ(no_secret.status().message(), "secret \"s\" not found");
  auto no_secret_key =
      build(R"({"name": "X", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "k"}}})");
  EXPECT_EQ(no_secret_key.status().message(), "couldn't find key k in Secret ns/creds");
  // optional: the variable is left out.
  auto optional = build(R"({"name": "X", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k",
                                                          "optional": true}}},
                          {"name": "Y", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "k",
                                                          "optional": true}}})");
  ASSERT_TRUE(optional.ok()) << optional.status().ToString();
  EXPECT_EQ(EnvValue(*optional, "X"), std::nullopt);
  EXPECT_EQ(EnvValue(*optional, "Y"), std::nullopt);
  // envFrom a missing ConfigMap waits too, unless optional.
  Json from = Json::parse(R"J({"name": "c", "command": ["true"],
      "envFrom": [{"configMapRef": {"name": "nope"}}]})J");
  EXPECT_EQ(BuildContainerCommand(Pod(), from, {}, inputs).status().message(),
            "configmap \"nope\" not found");
  from["envFrom"][0]["configMapRef"]["optional"] = true;
  EXPECT_TRUE(BuildContainerCommand(Pod(), from, {}, inputs).ok());
  // Nothing read at all: every reference is missing.
  Json secret_from = Json::parse(R"J({"name": "c", "command": ["true"],
      "envFrom": [{"secretRef": {"name": "creds"}}]})J");
  EXPECT_TRUE(BuildContainerCommand(Pod(), secret_from, {}, inputs).ok());
  EXPECT_EQ(BuildContainerCommand(Pod(), secret_from, {}).status().code(), StatusCode::kNotFound);
}

TEST(BuildContainerCommand, SecretValueWithNulIsRefused) {
  PodConfigObjects config = CommandTestConfig();
  config.secrets["bin"] = {{"data", {{"K", auth::Base64Encode(std::string("a\0b", 3))}}}};
  ContainerInputs inputs;
  inputs.config = &config;
  Json c = Json::parse(R"J({"name": "c", "command": ["true"],
      "env": [{"name": "K", "valueFrom": {"secretKeyRef": {"name": "bin", "key": "K"}}}]})J");
  auto cmd = BuildContainerCommand(Pod(), c, {}, inputs);
  ASSERT_EQ(cmd.status().code(), StatusCode::kInvalid);
  EXPECT_NE(cmd.status().message().find("spec.containers[c].env[0]"), std::string::npos);
}

TEST(BuildContainerCommand, MountPathsResolveToTheVolumes) {
  Json c = Json::parse(R"J({"name": "c", "workingDir": "/etc/app",
      "command": ["sh", "-c", "cat /etc/app/greeting /etc/apps/x /opt/etc/app/y $(CONF)"],
      "args": ["--config=/etc/app/app.yaml", "/data/sub/file"],
      "env": [{"name": "CONF", "value": "/etc/app/conf.d"}]})J");
  ContainerInputs inputs;
  inputs.mounts = {{"/etc/app", "/var/kuota/pods/u1/volumes/cfg"},
                   {"/data", "/scratch"},
                   {"/data/sub", "/var/kuota/pods/u1/volumes/sub"}};
  auto cmd = BuildContainerCommand(Pod(), c, {}, inputs);
  ASSERT_TRUE(cmd.ok()) << cmd.status().ToString();
  EXPECT_EQ(cmd->argv,
            (std::vector<std::string>{"sh", "-c",
                                      "cat /var/kuota/pods/u1/volumes/cfg/greeting /etc/apps/x "
                                      "/opt/etc/app/y /var/kuota/pods/u1/volumes/cfg/conf.d",
                                      "--config=/var/kuota/pods/u1/volumes/cfg/app.yaml",
                                      "/var/kuota/pods/u1/volumes/sub/file"}));
  EXPECT_EQ(EnvValue(*cmd, "CONF"), "/var/kuota/pods/u1/volumes/cfg/conf.d");
  EXPECT_EQ(cmd->working_dir, "/var/kuota/pods/u1/volumes/cfg");
}

}  // namespace
}  // namespace kuota::standalone
