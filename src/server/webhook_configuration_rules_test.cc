// WebhookConfigurationRules: kube-apiserver's defaults and its field-path
// errors for Mutating/ValidatingWebhookConfigurations.
#include "server/webhook_configuration_rules.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace kuota::server {
namespace {

using Json = nlohmann::json;

const ResourceInfo& HookKind(const char* plural) {
  const ResourceInfo* r = FindResource("admissionregistration.k8s.io", "v1", plural);
  EXPECT_NE(r, nullptr) << plural;
  return *r;
}

Json GoodHookConfig() {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", "MutatingWebhookConfiguration"},
          {"metadata", {{"name", "m"}}},
          {"webhooks",
           {{{"name", "label.example.com"},
             {"admissionReviewVersions", {"v1"}},
             {"sideEffects", "None"},
             {"clientConfig", {{"url", "https://127.0.0.1:8443/mutate"}}},
             {"rules",
              {{{"operations", {"CREATE"}},
                {"apiGroups", {""}},
                {"apiVersions", {"v1"}},
                {"resources", {"configmaps"}}}}}}}}};
}

TEST(WebhookConfigurationRulesTest, DefaultsAsKubeApiserver) {
  Json o = GoodHookConfig();
  ASSERT_TRUE(PrepareWebhookConfiguration(HookKind("mutatingwebhookconfigurations"), o).ok());
  const Json& h = o["webhooks"][0];
  EXPECT_EQ(h["failurePolicy"], "Fail");
  EXPECT_EQ(h["matchPolicy"], "Equivalent");
  EXPECT_EQ(h["timeoutSeconds"], 10);
  EXPECT_EQ(h["reinvocationPolicy"], "Never");
  EXPECT_EQ(h["namespaceSelector"], Json::object());
  EXPECT_EQ(h["objectSelector"], Json::object());
  EXPECT_EQ(h["rules"][0]["scope"], "*");
  // A validating webhook has no reinvocationPolicy.
  Json v = GoodHookConfig();
  v["kind"] = "ValidatingWebhookConfiguration";
  ASSERT_TRUE(PrepareWebhookConfiguration(HookKind("validatingwebhookconfigurations"), v).ok());
  EXPECT_FALSE(v["webhooks"][0].contains("reinvocationPolicy"));
  // A service's port defaults to 443.
  Json s = GoodHookConfig();
  s["webhooks"][0]["clientConfig"] = {{"service", {{"name", "hook"}, {"namespace", "ns"}}}};
  ASSERT_TRUE(PrepareWebhookConfiguration(HookKind("mutatingwebhookconfigurations"), s).ok());
  EXPECT_EQ(s["webhooks"][0]["clientConfig"]["service"]["port"], 443);
}

TEST(WebhookConfigurationRulesTest, ErrorsNameTheFieldPath) {
  struct Case {
    const char* name;
    std::function<void(Json&)> edit;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"sideEffects required", [](Json& h) { h.erase("sideEffects"); },
       "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"},
      {"sideEffects Some", [](Json& h) { h["sideEffects"] = "Some"; },
       "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", "
       "\"NoneOnDryRun\""},
      {"review versions", [](Json& h) { h.erase("admissionReviewVersions"); },
       "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"},
      {"unknown review version", [](Json& h) { h["admissionReviewVersions"] = {"v9"}; },
       "webhooks[0].admissionReviewVersions: Invalid value: [\"v9\"]: must include at least one "
       "of v1, v1beta1"},
      {"timeout", [](Json& h) { h["timeoutSeconds"] = 31; },
       "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 "
       "seconds"},
      {"timeout zero", [](Json& h) { h["timeoutSeconds"] = 0; },
       "webhooks[0].timeoutSeconds: Invalid value: 0"},
      {"failurePolicy", [](Json& h) { h["failurePolicy"] = "Maybe"; },
       "webhooks[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", "
       "\"Ignore\""},
      {"matchPolicy", [](Json& h) { h["matchPolicy"] = "Close"; },
       "webhooks[0].matchPolicy: Unsupported value: \"Close\": supported values: \"Equivalent\", "
       "\"Exact\""},
      {"reinvocationPolicy", [](Json& h) { h["reinvocationPolicy"] = "Always"; },
       "webhooks[0].reinvocationPolicy: Unsupported value: \"Always\""},
      {"no clientConfig target", [](Json& h) { h["clientConfig"] = Json::object(); },
       "webhooks[0].clientConfig: Required value: exactly one of url or service is required"},
      {"url and service",
       [](Json& h) {
         h["clientConfig"]["service"] = {{"name", "a"}, {"namespace", "b"}};
       },
       "webhooks[0].clientConfig: Required value: exactly one of url or service is required"},
      {"http url", [](Json& h) { h["clientConfig"]["url"] = "http://127.0.0.1/x"; },
       "webhooks[0].clientConfig.url: Invalid value: \"http://127.0.0.1/x\": 'https' is the only "
       "allowed URL scheme"},
      {"service name",
       [](Json& h) {
         h["clientConfig"] = {{"service", {{"namespace", "ns"}}}};
       },
       "webhooks[0].clientConfig.service.name: Required value"},
      {"service port",
       [](Json& h) {
         h["clientConfig"] = {{"service", {{"name", "a"}, {"namespace", "ns"}, {"port", 70000}}}};
       },
       "webhooks[0].clientConfig.service.port: Invalid value: 70000"},
      {"short name", [](Json& h) { h["name"] = "hook"; },
       "webhooks[0].name: Invalid value: \"hook\": should be a domain with at least three segments "
       "separated by dots"},
      {"operations required", [](Json& h) { h["rules"][0].erase("operations"); },
       "webhooks[0].rules[0].operations: Required value"},
      {"operation unknown", [](Json& h) { h["rules"][0]["operations"] = {"PATCH"}; },
       "webhooks[0].rules[0].operations[0]: Unsupported value: \"PATCH\""},
      {"star with others",
       [](Json& h) {
         h["rules"][0]["resources"] = {"*", "pods"};
       },
       "webhooks[0].rules[0].resources: Invalid value: [\"*\",\"pods\"]: if '*' is present, must "
       "not specify other resources"},
      {"scope", [](Json& h) { h["rules"][0]["scope"] = "Global"; },
       "webhooks[0].rules[0].scope: Unsupported value: \"Global\""},
      {"selector",
       [](Json& h) {
         h["objectSelector"] = {{"matchExpressions", {{{"key", "a"}, {"operator", "Near"}}}}};
       },
       "webhooks[0].objectSelector.matchExpressions[0].operator: Unsupported value"},
  };
  for (const Case& c : cases) {
    Json o = GoodHookConfig();
    c.edit(o["webhooks"][0]);
    Status st = PrepareWebhookConfiguration(HookKind("mutatingwebhookconfigurations"), o);
    ASSERT_FALSE(st.ok()) << c.name;
    EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.name;
    EXPECT_EQ(st.message().rfind(c.want, 0), 0u) << c.name << ": " << st.message();
  }
  Json dup = GoodHookConfig();
  dup["webhooks"].push_back(dup["webhooks"][0]);
  Status st = PrepareWebhookConfiguration(HookKind("mutatingwebhookconfigurations"), dup);
  EXPECT_EQ(st.message(), "webhooks[1].name: Duplicate value: \"label.example.com\"");
}

}  // namespace
}  // namespace kuota::server
