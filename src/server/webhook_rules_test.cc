// WebhookRules: a table of rules against requests (operations, groups,
// versions, resources and subresources, "*", scope) and label selectors.
#include "server/webhook_rules.h"

#include <gtest/gtest.h>

namespace kuota::server {
namespace {

using Json = nlohmann::json;

Json MakeHookRule(Json ops, Json groups, Json versions, Json resources, const char* scope = "*") {
  return {{"operations", std::move(ops)},
          {"apiGroups", std::move(groups)},
          {"apiVersions", std::move(versions)},
          {"resources", std::move(resources)},
          {"scope", scope}};
}

WebhookRuleRequest PodCreate(const std::string& sub = "") {
  return {"CREATE", "", "v1", "pods", sub, true};
}

TEST(WebhookRuleTest, MatchesAsKubeApiserver) {
  struct Case {
    const char* name;
    Json rule;
    WebhookRuleRequest request;
    bool want;
  };
  const std::vector<Case> cases = {
      {"exact", MakeHookRule({"CREATE"}, {""}, {"v1"}, {"pods"}), PodCreate(), true},
      {"other operation", MakeHookRule({"UPDATE"}, {""}, {"v1"}, {"pods"}), PodCreate(), false},
      {"star operation", MakeHookRule({"*"}, {""}, {"v1"}, {"pods"}), PodCreate(), true},
      {"other group", MakeHookRule({"*"}, {"apps"}, {"v1"}, {"pods"}), PodCreate(), false},
      {"star group", MakeHookRule({"*"}, {"*"}, {"v1"}, {"pods"}), PodCreate(), true},
      {"other version", MakeHookRule({"*"}, {""}, {"v2"}, {"pods"}), PodCreate(), false},
      {"star resource", MakeHookRule({"*"}, {""}, {"*"}, {"*"}), PodCreate(), true},
      {"star is not subresources", MakeHookRule({"*"}, {""}, {"*"}, {"*"}), PodCreate("status"),
       false},
      {"plain is not subresources", MakeHookRule({"*"}, {""}, {"*"}, {"pods"}), PodCreate("status"),
       false},
      {"named subresource", MakeHookRule({"*"}, {""}, {"*"}, {"pods/status"}), PodCreate("status"),
       true},
      {"named subresource not main", MakeHookRule({"*"}, {""}, {"*"}, {"pods/status"}), PodCreate(),
       false},
      {"resource/*", MakeHookRule({"*"}, {""}, {"*"}, {"pods/*"}), PodCreate("status"), true},
      {"resource/* main", MakeHookRule({"*"}, {""}, {"*"}, {"pods/*"}), PodCreate(), true},
      {"*/scale", MakeHookRule({"*"}, {"*"}, {"*"}, {"*/scale"}), PodCreate("scale"), true},
      {"*/scale not status", MakeHookRule({"*"}, {"*"}, {"*"}, {"*/scale"}), PodCreate("status"),
       false},
      {"*/*", MakeHookRule({"*"}, {"*"}, {"*"}, {"*/*"}), PodCreate("status"), true},
      {"cluster scope, namespaced", MakeHookRule({"*"}, {"*"}, {"*"}, {"*"}, "Cluster"),
       PodCreate(), false},
      {"namespaced scope", MakeHookRule({"*"}, {"*"}, {"*"}, {"*"}, "Namespaced"), PodCreate(),
       true},
      {"cluster scope, cluster object",
       MakeHookRule({"*"}, {"*"}, {"*"}, {"*"}, "Cluster"),
       {"DELETE", "", "v1", "namespaces", "", false},
       true},
      {"namespaced scope, cluster object",
       MakeHookRule({"*"}, {"*"}, {"*"}, {"*"}, "Namespaced"),
       {"DELETE", "", "v1", "namespaces", "", false},
       false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(WebhookRuleMatches(c.rule, c.request), c.want) << c.name;
  }
}

TEST(WebhookRuleTest, AnyRuleOfAWebhookMatches) {
  Json hook = {{"rules",
                {MakeHookRule({"DELETE"}, {""}, {"v1"}, {"pods"}),
                 MakeHookRule({"CREATE"}, {""}, {"v1"}, {"configmaps"})}}};
  EXPECT_FALSE(WebhookRulesMatch(hook, PodCreate()));
  hook["rules"].push_back(MakeHookRule({"CREATE"}, {""}, {"v1"}, {"pods"}));
  EXPECT_TRUE(WebhookRulesMatch(hook, PodCreate()));
  EXPECT_FALSE(WebhookRulesMatch(Json::object(), PodCreate()));  // no rules: nothing
}

TEST(WebhookSelectorTest, MatchLabelsAndExpressions) {
  const Json labels = {{"team", "a"}, {"tier", "gold"}};
  Json empty = Json::object();
  EXPECT_TRUE(*LabelSelectorMatches(nullptr, labels));
  EXPECT_TRUE(*LabelSelectorMatches(&empty, Json()));
  Json s = {{"matchLabels", {{"team", "a"}}}};
  EXPECT_TRUE(*LabelSelectorMatches(&s, labels));
  EXPECT_FALSE(*LabelSelectorMatches(&s, Json{{"team", "b"}}));
  struct Case {
    const char* op;
    Json values;
    bool want;
  };
  const std::vector<Case> cases = {
      {"In", {"gold", "silver"}, true}, {"In", {"silver"}, false},
      {"NotIn", {"silver"}, true},      {"NotIn", {"gold"}, false},
      {"Exists", Json::array(), true},  {"DoesNotExist", Json::array(), false}};
  for (const Case& c : cases) {
    Json e = {{"matchExpressions", {{{"key", "tier"}, {"operator", c.op}, {"values", c.values}}}}};
    Result<bool> got = LabelSelectorMatches(&e, labels);
    ASSERT_TRUE(got.ok()) << c.op;
    EXPECT_EQ(*got, c.want) << c.op;
  }
  Json missing = {{"matchExpressions", {{{"key", "zone"}, {"operator", "DoesNotExist"}}}}};
  EXPECT_TRUE(*LabelSelectorMatches(&missing, labels));
  Json bad = {{"matchExpressions", {{{"key", "zone"}, {"operator", "Near"}}}}};
  Result<bool> err = LabelSelectorMatches(&bad, labels);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("matchExpressions[0].operator: Unsupported value"),
            std::string::npos)
      << err.status().message();
}

}  // namespace
}  // namespace kuota::server
