// The ConfigMaps and Secrets a pod draws on: which names it refers to, what
// a real store gives back for them (absent ones left out), and their values
// as the kubelet reads them.
#include "standalone/pod_config_objects.h"

#include <gtest/gtest.h>

#include "auth/base64.h"
#include "base/clock.h"
#include "store/sqlite_object_store.h"
#include "testing/temp_dir.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

Json PodReferringToConfig() {
  return Json::parse(R"({"metadata": {"name": "p", "namespace": "team"},
    "spec": {"containers": [{"name": "c",
        "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "a"}}},
                {"name": "B", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "b"}}},
                {"name": "C", "value": "plain"}],
        "envFrom": [{"configMapRef": {"name": "more"}}, {"secretRef": {"name": "absent"}}]}],
      "volumes": [{"name": "v1", "configMap": {"name": "files"}},
                  {"name": "v2", "secret": {"secretName": "certs"}},
                  {"name": "v3", "emptyDir": {}}]}})");
}

TEST(ConfigNamesOf, EveryReference) {
  PodConfigNames names = ConfigNamesOf(PodReferringToConfig());
  EXPECT_EQ(names.config_maps, (std::set<std::string>{"app", "more", "files"}));
  EXPECT_EQ(names.secrets, (std::set<std::string>{"creds", "absent", "certs"}));
  EXPECT_TRUE(ConfigNamesOf(Json::parse(R"({"spec": {"containers": [{"name": "c"}]}})"))
                  .config_maps.empty());
}

TEST(ReadPodConfigObjects, FromARealStore) {
  kuota::testing::TempDir dir("kuota-config");
  ASSERT_TRUE(dir.ok());
  ManualClock clock(Time::FromSeconds(1767225600));
  store::StoreOptions options;
  options.path = dir.File("kuota.db");
  options.clock = &clock;
  auto opened = store::SqliteObjectStore::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store::ObjectStore& store = **opened;
  auto object = [](const char* kind, const char* ns, const char* name, Json fields) {
    Json o = {
        {"apiVersion", "v1"}, {"kind", kind}, {"metadata", {{"name", name}, {"namespace", ns}}}};
    o.update(fields);
    return o;
  };
  ASSERT_TRUE(
      store.Create("configmaps", object("ConfigMap", "team", "app", {{"data", {{"a", "1"}}}}))
          .ok());
  ASSERT_TRUE(store
                  .Create("secrets", object("Secret", "team", "creds",
                                            {{"data", {{"b", auth::Base64Encode("2")}}}}))
                  .ok());
  // Another namespace's ConfigMap of the same name is not the pod's.
  ASSERT_TRUE(
      store.Create("configmaps", object("ConfigMap", "other", "more", Json::object())).ok());
  auto got = ReadPodConfigObjects(store, PodReferringToConfig());
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->ns, "team");
  ASSERT_NE(got->FindConfigMap("app"), nullptr);
  EXPECT_EQ(ConfigMapValue(*got->FindConfigMap("app"), "a", false), "1");
  ASSERT_NE(got->FindSecret("creds"), nullptr);
  EXPECT_EQ(SecretValue(*got->FindSecret("creds"), "b"), "2");
  EXPECT_EQ(got->FindConfigMap("more"), nullptr);
  EXPECT_EQ(got->FindSecret("absent"), nullptr);
  EXPECT_EQ(got->FindConfigMap("files"), nullptr);
}

TEST(ConfigValues, AsTheKubeletReadsThem) {
  Json cm = {{"data", {{"a", "1"}}}, {"binaryData", {{"b", auth::Base64Encode("\x01")}}}};
  EXPECT_EQ(ConfigMapValue(cm, "a", false), "1");
  EXPECT_EQ(ConfigMapValue(cm, "b", false), std::nullopt);  // env reads data only
  EXPECT_EQ(ConfigMapValue(cm, "b", true), "\x01");
  EXPECT_EQ(ConfigMapValues(cm, false), (std::map<std::string, std::string>{{"a", "1"}}));
  EXPECT_EQ(ConfigMapValues(cm, true).size(), 2u);
  Json secret = {{"data", {{"k", auth::Base64Encode("v")}, {"bad", "%%"}}}};
  EXPECT_EQ(SecretValue(secret, "k"), "v");
  EXPECT_EQ(SecretValue(secret, "bad"), std::nullopt);
  EXPECT_EQ(SecretValues(secret), (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_EQ(ConfigNotFoundMessage("configmap", "app-config"), "configmap \"app-config\" not found");
}

}  // namespace
}  // namespace kuota::standalone
