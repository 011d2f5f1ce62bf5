// A pod's volumes on this machine: what configMap, secret and emptyDir
// volumes hold (keys, items, modes, optional sources, the kubelet's words for
// what is missing), where each volumeMount is, how mountPaths are rewritten,
// and the files WriteVolumes leaves on disk (modes, owner, replaced safely).
#include "standalone/pod_volumes.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "auth/base64.h"
#include "testing/temp_dir.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

PodConfigObjects VolumeTestConfig() {
  PodConfigObjects config;
  config.ns = "ns";
  config.config_maps["app"] = {
      {"data", {{"greeting", "hello"}, {"level", "debug"}}},
      {"binaryData", {{"blob", auth::Base64Encode(std::string("\0\1", 2))}}}};
  config.secrets["creds"] = {{"data", {{"token", auth::Base64Encode("s3cret")}}}};
  return config;
}

Json PodWithVolumes(const std::string& volumes) {
  return Json::parse(R"({"metadata": {"name": "p", "namespace": "ns"},
                         "spec": {"containers": [], "volumes": )" +
                     volumes + "}}");
}

const VolumeFile* FileNamed(const VolumeContent& v, const std::string& path) {
  for (const VolumeFile& f : v.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST(PlanVolumes, ConfigMapSecretAndEmptyDir) {
  auto plan = PlanVolumes(PodWithVolumes(R"([
      {"name": "cfg", "configMap": {"name": "app"}},
      {"name": "picked", "configMap": {"name": "app", "defaultMode": 288,
          "items": [{"key": "level", "path": "conf/level.txt"},
                    {"key": "greeting", "path": "hi", "mode": 256}]}},
      {"name": "sec", "secret": {"secretName": "creds", "defaultMode": 256}},
      {"name": "scratch", "emptyDir": {}},
      {"name": "host", "hostPath": {"path": "/tmp"}}])"),
                          VolumeTestConfig());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->size(), 4u);  // hostPath writes nothing
  const VolumeContent& cfg = (*plan)[0];
  EXPECT_EQ(cfg.name, "cfg");
  ASSERT_EQ(cfg.files.size(), 3u);  // data and binaryData
  EXPECT_EQ(FileNamed(cfg, "greeting")->bytes, "hello");
  EXPECT_EQ(FileNamed(cfg, "greeting")->mode, 0644u);  // Kubernetes' default
  EXPECT_EQ(FileNamed(cfg, "blob")->bytes, std::string("\0\1", 2));
  const VolumeContent& picked = (*plan)[1];
  ASSERT_EQ(picked.files.size(), 2u);
  EXPECT_EQ(FileNamed(picked, "conf/level.txt")->bytes, "debug");
  EXPECT_EQ(FileNamed(picked, "conf/level.txt")->mode, 0440u);  // defaultMode 288
  EXPECT_EQ(FileNamed(picked, "hi")->mode, 0400u);              // items[].mode 256
  const VolumeContent& sec = (*plan)[2];
  ASSERT_EQ(sec.files.size(), 1u);
  EXPECT_EQ(sec.files[0].path, "token");
  EXPECT_EQ(sec.files[0].bytes, "s3cret");  // decoded
  EXPECT_EQ(sec.files[0].mode, 0400u);
  EXPECT_EQ((*plan)[3].name, "scratch");
  EXPECT_TRUE((*plan)[3].files.empty());
}

TEST(PlanVolumes, MissingSourcesWaitWithTheKubeletsWords) {
  auto missing = PlanVolumes(PodWithVolumes(R"([{"name": "cfg", "configMap": {"name": "nope"}}])"),
                             VolumeTestConfig());
  ASSERT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "MountVolume.SetUp failed for volume \"cfg\" : configmap \"nope\" not found");
  auto secret = PlanVolumes(PodWithVolumes(R"([{"name": "s", "secret": {"secretName": "x"}}])"),
                            VolumeTestConfig());
  EXPECT_EQ(secret.status().message(),
            "MountVolume.SetUp failed for volume \"s\" : secret \"x\" not found");
  auto key = PlanVolumes(PodWithVolumes(R"([{"name": "cfg", "configMap": {"name": "app",
                                              "items": [{"key": "k", "path": "k"}]}}])"),
                         VolumeTestConfig());
  EXPECT_EQ(key.status().message(),
            "MountVolume.SetUp failed for volume \"cfg\" : configmap references non-existent "
            "config key: k");
  auto secret_key = PlanVolumes(PodWithVolumes(R"([{"name": "s", "secret": {"secretName": "creds",
                                              "items": [{"key": "k", "path": "k"}]}}])"),
                                VolumeTestConfig());
  EXPECT_EQ(secret_key.status().message(),
            "MountVolume.SetUp failed for volume \"s\" : references non-existent secret key: k");
  // optional: an empty volume, or the item left out.
  auto optional = PlanVolumes(PodWithVolumes(R"([
      {"name": "a", "configMap": {"name": "nope", "optional": true}},
      {"name": "b", "secret": {"secretName": "creds", "optional": true,
                               "items": [{"key": "k", "path": "k"}, {"key": "token", "path": "t"}]}}])"),
                              VolumeTestConfig());
  ASSERT_TRUE(optional.ok()) << optional.status().ToString();
  EXPECT_TRUE((*optional)[0].files.empty());
  ASSERT_EQ((*optional)[1].files.size(), 1u);
  EXPECT_EQ((*optional)[1].files[0].path, "t");
}

TEST(PlanVolumes, VolumesKuotadCannotWriteAreInvalid) {
  auto escape = PlanVolumes(PodWithVolumes(R"([{"name": "cfg", "configMap": {"name": "app",
                                               "items": [{"key": "level", "path": "../x"}]}}])"),
                            VolumeTestConfig());
  ASSERT_EQ(escape.status().code(), StatusCode::kInvalid);
  EXPECT_NE(escape.status().message().find("spec.volumes[0].configMap.items[0].path"),
            std::string::npos);
  auto absolute = PlanVolumes(PodWithVolumes(R"([{"name": "cfg", "configMap": {"name": "app",
                                                 "items": [{"key": "level", "path": "/etc/x"}]}}])"),
                              VolumeTestConfig());
  EXPECT_EQ(absolute.status().code(), StatusCode::kInvalid);
  auto mode = PlanVolumes(PodWithVolumes(R"([{"name": "cfg", "configMap": {"name": "app",
                                             "defaultMode": 4095}}])"),
                          VolumeTestConfig());
  ASSERT_EQ(mode.status().code(), StatusCode::kInvalid);
  EXPECT_NE(mode.status().message().find("spec.volumes[0].configMap.defaultMode"),
            std::string::npos);
  auto name =
      PlanVolumes(PodWithVolumes(R"([{"name": "..", "emptyDir": {}}])"), VolumeTestConfig());
  EXPECT_EQ(name.status().code(), StatusCode::kInvalid);
}

TEST(MountsOf, WhereEachMountIs) {
  Json pod = PodWithVolumes(R"([
      {"name": "cfg", "configMap": {"name": "app"}},
      {"name": "scratch", "emptyDir": {}},
      {"name": "host", "hostPath": {"path": "/srv/data"}},
      {"name": "claim", "persistentVolumeClaim": {"claimName": "c"}}])");
  Json container = Json::parse(R"({"name": "main", "volumeMounts": [
      {"name": "cfg", "mountPath": "/etc/app/"},
      {"name": "cfg", "mountPath": "/etc/level", "subPath": "level"},
      {"name": "scratch", "mountPath": "/scratch"},
      {"name": "host", "mountPath": "/data"},
      {"name": "claim", "mountPath": "/claim"},
      {"name": "absent", "mountPath": "/absent"}]})");
  ContainerMounts m = MountsOf(pod, container, "/var/kuota/pods/u1/volumes");
  ASSERT_EQ(m.mounts.size(), 4u);
  EXPECT_EQ(m.mounts[0].mount_path, "/etc/app");
  EXPECT_EQ(m.mounts[0].host_path, "/var/kuota/pods/u1/volumes/cfg");
  EXPECT_EQ(m.mounts[1].host_path, "/var/kuota/pods/u1/volumes/cfg/level");
  EXPECT_EQ(m.mounts[2].host_path, "/var/kuota/pods/u1/volumes/scratch");
  EXPECT_EQ(m.mounts[3].host_path, "/srv/data");
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_NE(m.warnings[0].find("spec.containers[main].volumeMounts[4]: persistentVolumeClaim "
                               "volumes are not available"),
            std::string::npos)
      << m.warnings[0];
  EXPECT_NE(m.warnings[1].find("no volume named \"absent\""), std::string::npos) << m.warnings[1];
}

TEST(RewriteMountPaths, OnlyWhereTheMountPathBeginsAPath) {
  std::vector<MountPoint> mounts = {{"/etc/app", "/v/cfg"}, {"/etc/app/sub", "/v/sub"}};
  EXPECT_EQ(RewriteMountPaths("cat /etc/app/x", mounts), "cat /v/cfg/x");
  EXPECT_EQ(RewriteMountPaths("/etc/app", mounts), "/v/cfg");
  EXPECT_EQ(RewriteMountPaths("--config=/etc/app/a.yaml,/etc/app", mounts),
            "--config=/v/cfg/a.yaml,/v/cfg");
  EXPECT_EQ(RewriteMountPaths("/etc/app/sub/y", mounts), "/v/sub/y");  // the longest first
  EXPECT_EQ(RewriteMountPaths("/etc/apps /etc/app.yaml /opt/etc/app x/etc/app", mounts),
            "/etc/apps /etc/app.yaml /opt/etc/app x/etc/app");
  EXPECT_EQ(RewriteMountPaths("'/etc/app' \"/etc/app/\"", mounts), "'/v/cfg' \"/v/cfg/\"");
  EXPECT_EQ(RewriteMountPaths("/etc/app", {}), "/etc/app");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct stat StatOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

TEST(WriteVolumes, FilesWithTheirModesOwnedByThePodsUser) {
  kuota::testing::TempDir dir("kuota-volumes");
  ASSERT_TRUE(dir.ok());
  // Root hands the files to another user (nobody); anyone else to itself.
  const VolumeOwner owner =
      ::geteuid() == 0 ? VolumeOwner{65534, 65534} : VolumeOwner{::getuid(), ::getgid()};
  const std::string volumes = dir.File("volumes");
  std::vector<VolumeContent> plan = {
      {"cfg", {{"greeting", "hello", 0644}, {"conf/level.txt", "debug", 0440}}}, {"scratch", {}}};
  ASSERT_TRUE(WriteVolumes(volumes, plan, owner).ok());
  EXPECT_EQ(ReadAll(volumes + "/cfg/greeting"), "hello");
  EXPECT_EQ(ReadAll(volumes + "/cfg/conf/level.txt"), "debug");
  EXPECT_EQ(StatOf(volumes).st_mode & 07777, 0711u);
  for (const std::string& p : {volumes + "/cfg", volumes + "/scratch"}) {
    struct stat st = StatOf(p);
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << p;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << p;
    EXPECT_EQ(st.st_uid, owner.uid) << p;
    EXPECT_EQ(st.st_gid, owner.gid) << p;
  }
  struct stat greeting = StatOf(volumes + "/cfg/greeting");
  EXPECT_EQ(greeting.st_mode & 07777, 0644u);
  EXPECT_EQ(greeting.st_uid, owner.uid);
  EXPECT_EQ(StatOf(volumes + "/cfg/conf/level.txt").st_mode & 07777, 0440u);
  EXPECT_EQ(StatOf(volumes + "/cfg/conf").st_uid, owner.uid);
  EXPECT_FALSE(std::filesystem::exists(volumes + "/.cfg.tmp"));
}

TEST(WriteVolumes, ReplacesWhatWasThereWithoutFollowingLinks) {
  kuota::testing::TempDir dir("kuota-volumes");
  ASSERT_TRUE(dir.ok());
  const std::string volumes = dir.File("volumes");
  const std::string outside = dir.File("outside");
  { std::ofstream(outside) << "untouched"; }
  ASSERT_TRUE(
      WriteVolumes(volumes, {{"cfg", {{"greeting", "v1", 0644}, {"old", "x", 0644}}}}, std::nullopt)
          .ok());
  // What a pod's user could leave in its volume: a link where a file goes.
  std::filesystem::remove(volumes + "/cfg/greeting");
  std::filesystem::create_symlink(outside, volumes + "/cfg/greeting");
  ASSERT_TRUE(WriteVolumes(volumes, {{"cfg", {{"greeting", "v2", 0600}}}}, std::nullopt).ok());
  EXPECT_EQ(ReadAll(outside), "untouched");
  EXPECT_EQ(ReadAll(volumes + "/cfg/greeting"), "v2");
  EXPECT_FALSE(S_ISLNK(StatOf(volumes + "/cfg/greeting").st_mode));
  EXPECT_FALSE(std::filesystem::exists(volumes + "/cfg/old"));
}

}  // namespace
}  // namespace kuota::standalone
