// ConfigMaps and Secrets are defaulted and validated as kube-apiserver does,
// each refusal naming the field path.
#include "server/config_data_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "auth/base64.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

const ResourceInfo& Secrets() { return *FindResource("", "secrets"); }
const ResourceInfo& ConfigMaps() { return *FindResource("", "configmaps"); }

Json Object(const std::string& kind, Json fields) {
  Json o = {{"apiVersion", "v1"}, {"kind", kind}, {"metadata", {{"name", "x"}}}};
  o.update(fields);
  return o;
}

// The message of the refusal of `object`, or "" when accepted.
std::string Refusal(const ResourceInfo& r, Json object, const Json* old_object = nullptr) {
  Status st = PrepareConfigData(r, old_object, object);
  if (st.ok()) return "";
  EXPECT_EQ(st.code(), StatusCode::kInvalid) << st.ToString();
  return st.message();
}

TEST(ConfigDataRulesTest, OnlyConfigMapsAndSecrets) {
  EXPECT_TRUE(IsConfigDataKind(Secrets()));
  EXPECT_TRUE(IsConfigDataKind(ConfigMaps()));
  EXPECT_FALSE(IsConfigDataKind(*FindResource("", "pods")));
  Json pod = {{"data", {{"a b", 1}}}};
  EXPECT_TRUE(PrepareConfigData(*FindResource("", "pods"), nullptr, pod).ok());
}

TEST(ConfigDataRulesTest, SecretDefaultsAndStringData) {
  Json s = Object("Secret", {{"data", {{"a", "Yg=="}}}, {"stringData", {{"b", "hello"}}}});
  ASSERT_TRUE(PrepareConfigData(Secrets(), nullptr, s).ok());
  EXPECT_EQ(s["type"], "Opaque");
  EXPECT_FALSE(s.contains("stringData"));
  EXPECT_EQ(s["data"], Json({{"a", "Yg=="}, {"b", auth::Base64Encode("hello")}}));
  // stringData wins over data for the same key, as in Kubernetes.
  Json both = Object("Secret", {{"data", {{"a", "Yg=="}}}, {"stringData", {{"a", "z"}}}});
  ASSERT_TRUE(PrepareConfigData(Secrets(), nullptr, both).ok());
  EXPECT_EQ(both["data"]["a"], auth::Base64Encode("z"));
}

TEST(ConfigDataRulesTest, KeyNames) {
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"ok-key_1.txt", "v"}}}})), "");
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"a b", "v"}}}})),
            "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric "
            "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
            "used for validation is '[-._a-zA-Z0-9]+')");
  EXPECT_NE(Refusal(Secrets(), Object("Secret", {{"stringData", {{"..x", "v"}}}}))
                .find("data[..x]: Invalid value: \"..x\": must not start with '..'"),
            std::string::npos);
  EXPECT_NE(Refusal(ConfigMaps(), Object("ConfigMap", {{"binaryData", {{".", "AA=="}}}}))
                .find("binaryData[.]: Invalid value: \".\": must not be '.'"),
            std::string::npos);
  EXPECT_NE(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{std::string(254, 'k'), ""}}}}))
                .find("must be no more than 253 characters"),
            std::string::npos);
  EXPECT_NE(Refusal(ConfigMaps(),
                    Object("ConfigMap", {{"data", {{"k", "v"}}}, {"binaryData", {{"k", "AA=="}}}}))
                .find("data[k]: Invalid value: \"k\": duplicate of key present in binaryData"),
            std::string::npos);
}

TEST(ConfigDataRulesTest, ValueTypesAndBase64) {
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"k", 3}}}})),
            "data[k]: Invalid value: must be a string");
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", "text"}})),
            "data: Invalid value: must be a map of strings");
  EXPECT_NE(Refusal(Secrets(), Object("Secret", {{"data", {{"k", "not base64!"}}}}))
                .find("data[k]: Invalid value: must be a base64-encoded string"),
            std::string::npos);
  EXPECT_NE(Refusal(ConfigMaps(), Object("ConfigMap", {{"binaryData", {{"k", "%%%"}}}}))
                .find("binaryData[k]: Invalid value: must be a base64-encoded string"),
            std::string::npos);
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"stringData", {{"k", false}}}})),
            "stringData[k]: Invalid value: must be a string");
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"type", 7}})),
            "type: Invalid value: must be a string");
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"immutable", "yes"}})),
            "immutable: Invalid value: must be a boolean");
}

TEST(ConfigDataRulesTest, TotalSizeIsAtMostOneMebibyte) {
  const std::string half(kMaxConfigDataBytes / 2, 'x');
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"a", half}, {"b", half}}}})), "");
  EXPECT_EQ(
      Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"a", half}, {"b", half + "y"}}}})),
      "data: Too long: must have at most 1048576 bytes");
  // A Secret counts its decoded bytes.
  EXPECT_EQ(
      Refusal(Secrets(), Object("Secret", {{"data", {{"a", auth::Base64Encode(half + half)}}}})),
      "");
  EXPECT_EQ(
      Refusal(Secrets(), Object("Secret", {{"stringData", {{"a", half}, {"b", half + "y"}}}})),
      "data: Too long: must have at most 1048576 bytes");
}

TEST(ConfigDataRulesTest, SecretTypesRequireTheirKeys) {
  const Json tls = {{"type", "kubernetes.io/tls"}};
  Json no_key = Object("Secret", tls);
  no_key["stringData"] = {{"tls.crt", "CERT"}};
  EXPECT_EQ(Refusal(Secrets(), no_key), "data[tls.key]: Required value");
  no_key["stringData"]["tls.key"] = "KEY";
  EXPECT_EQ(Refusal(Secrets(), no_key), "");

  Json docker = Object("Secret", {{"type", "kubernetes.io/dockerconfigjson"}});
  EXPECT_EQ(Refusal(Secrets(), docker), "data[.dockerconfigjson]: Required value");
  docker["stringData"] = {{".dockerconfigjson", "{not json"}};
  EXPECT_NE(Refusal(Secrets(), docker).find("data[.dockerconfigjson]: Invalid value"),
            std::string::npos);
  docker["stringData"] = {{".dockerconfigjson", R"({"auths":{}})"}};
  EXPECT_EQ(Refusal(Secrets(), docker), "");

  EXPECT_NE(Refusal(Secrets(), Object("Secret", {{"type", "kubernetes.io/basic-auth"}}))
                .find("data[username]: Required value"),
            std::string::npos);
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"type", "kubernetes.io/ssh-auth"}})),
            "data[ssh-privatekey]: Required value");
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"type", "kubernetes.io/service-account-token"}})),
            "metadata.annotations[kubernetes.io/service-account.name]: Required value");
  // Other types are the owner's business.
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"type", "example.com/custom"}})), "");
}

TEST(ConfigDataRulesTest, SecretTypeNeverChanges) {
  Json old = Object("Secret", {{"type", "Opaque"}, {"data", {{"a", "Yg=="}}}});
  Json changed = Object("Secret", {{"type", "example.com/custom"}, {"data", {{"a", "Yg=="}}}});
  EXPECT_EQ(Refusal(Secrets(), changed, &old),
            "type: Invalid value: \"example.com/custom\": field is immutable");
  // Left out, it defaults to Opaque again: no change.
  EXPECT_EQ(Refusal(Secrets(), Object("Secret", {{"data", {{"a", "Yg=="}}}}), &old), "");
}

TEST(ConfigDataRulesTest, ImmutableObjectsKeepTheirData) {
  Json old_cm = Object("ConfigMap", {{"immutable", true}, {"data", {{"a", "1"}}}});
  EXPECT_EQ(Refusal(ConfigMaps(),
                    Object("ConfigMap", {{"immutable", true}, {"data", {{"a", "2"}}}}), &old_cm),
            "data: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(Refusal(ConfigMaps(),
                    Object("ConfigMap", {{"immutable", false}, {"data", {{"a", "1"}}}}), &old_cm),
            "immutable: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(Refusal(ConfigMaps(), Object("ConfigMap", {{"data", {{"a", "1"}}}}), &old_cm),
            "immutable: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(Refusal(ConfigMaps(),
                    Object("ConfigMap", {{"immutable", true},
                                         {"binaryData", {{"b", "AA=="}}},
                                         {"data", {{"a", "1"}}}}),
                    &old_cm),
            "binaryData: Forbidden: field is immutable when `immutable` is set");
  // Labels may still change.
  Json relabelled = Object("ConfigMap", {{"immutable", true}, {"data", {{"a", "1"}}}});
  relabelled["metadata"]["labels"] = {{"x", "y"}};
  EXPECT_EQ(Refusal(ConfigMaps(), relabelled, &old_cm), "");
  // A mutable object may become immutable.
  Json mutable_cm = Object("ConfigMap", {{"data", {{"a", "1"}}}});
  EXPECT_EQ(
      Refusal(ConfigMaps(), Object("ConfigMap", {{"immutable", true}, {"data", {{"a", "2"}}}}),
              &mutable_cm),
      "");

  Json old_secret =
      Object("Secret", {{"type", "Opaque"}, {"immutable", true}, {"data", {{"a", "Yg=="}}}});
  EXPECT_EQ(
      Refusal(Secrets(), Object("Secret", {{"immutable", true}, {"stringData", {{"a", "c"}}}}),
              &old_secret),
      "data: Forbidden: field is immutable when `immutable` is set");
  EXPECT_EQ(
      Refusal(Secrets(), Object("Secret", {{"immutable", true}, {"stringData", {{"a", "b"}}}}),
              &old_secret),
      "");
}

}  // namespace
}  // namespace kuota::server
