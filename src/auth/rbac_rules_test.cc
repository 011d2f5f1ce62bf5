// RuleAllows and SubjectMatches: one PolicyRule or subject against a request
// and a user, with RBAC's wildcards, subresources and resourceNames.
#include "auth/rbac_rules.h"

#include <gtest/gtest.h>

namespace kuota::auth {
namespace {

using Json = nlohmann::json;

TEST(RbacRulesTest, VerbsGroupsResourcesAndNames) {
  Json rule = Json::parse(R"({"apiGroups":["batch"],"resources":["jobs"],"verbs":["get","list"]})");
  EXPECT_TRUE(RuleAllows(rule, ParseRequestInfo("GET", "/apis/batch/v1/namespaces/a/jobs", false)));
  EXPECT_FALSE(
      RuleAllows(rule, ParseRequestInfo("POST", "/apis/batch/v1/namespaces/a/jobs", false)));
  EXPECT_FALSE(RuleAllows(rule, ParseRequestInfo("GET", "/api/v1/namespaces/a/pods", false)));
  EXPECT_FALSE(RuleAllows(
      rule, ParseRequestInfo("GET", "/apis/batch/v1/namespaces/a/jobs/j/status", false)));

  Json named =
      Json::parse(R"({"apiGroups":[""],"resources":["pods"],"resourceNames":["p"],"verbs":["*"]})");
  EXPECT_TRUE(RuleAllows(named, ParseRequestInfo("DELETE", "/api/v1/namespaces/a/pods/p", false)));
  EXPECT_FALSE(RuleAllows(named, ParseRequestInfo("DELETE", "/api/v1/namespaces/a/pods/q", false)));
  EXPECT_FALSE(RuleAllows(named, ParseRequestInfo("GET", "/api/v1/namespaces/a/pods", false)));
}

TEST(RbacRulesTest, SubresourceWildcardsAndNonResourceUrls) {
  Json logs = Json::parse(R"({"apiGroups":[""],"resources":["pods/*"],"verbs":["get"]})");
  EXPECT_TRUE(RuleAllows(logs, ParseRequestInfo("GET", "/api/v1/namespaces/a/pods/p/log", false)));
  EXPECT_FALSE(RuleAllows(logs, ParseRequestInfo("GET", "/api/v1/namespaces/a/pods/p", false)));
  Json all = Json::parse(R"({"apiGroups":["*"],"resources":["*"],"verbs":["*"]})");
  EXPECT_TRUE(RuleAllows(
      all, ParseRequestInfo("PUT", "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq/status", false)));
  Json urls = Json::parse(R"({"nonResourceURLs":["/healthz","/api*"],"verbs":["get"]})");
  EXPECT_TRUE(RuleAllows(urls, ParseRequestInfo("GET", "/healthz", false)));
  EXPECT_TRUE(RuleAllows(urls, ParseRequestInfo("GET", "/apis", false)));
  EXPECT_FALSE(RuleAllows(urls, ParseRequestInfo("GET", "/version", false)));
  // A resource rule never allows a non-resource URL and the other way round.
  EXPECT_FALSE(RuleAllows(all, ParseRequestInfo("GET", "/version", false)));
  EXPECT_FALSE(RuleAllows(urls, ParseRequestInfo("GET", "/api/v1/namespaces/a/pods", false)));
  EXPECT_FALSE(RuleAllows(Json("not a rule"), ParseRequestInfo("GET", "/healthz", false)));
}

TEST(RbacRulesTest, Subjects) {
  UserInfo alice{"alice", {kGroupAuthenticated, "ml"}, 1001, true};
  EXPECT_TRUE(SubjectMatches(Json::parse(R"({"kind":"User","name":"alice"})"), alice, "a"));
  EXPECT_FALSE(SubjectMatches(Json::parse(R"({"kind":"User","name":"bob"})"), alice, "a"));
  EXPECT_TRUE(SubjectMatches(Json::parse(R"({"kind":"Group","name":"ml"})"), alice, "a"));
  EXPECT_TRUE(
      SubjectMatches(Json::parse(R"({"kind":"Group","name":"system:authenticated"})"), alice, "a"));
  EXPECT_FALSE(SubjectMatches(Json::parse(R"({"kind":"Group","name":""})"), alice, "a"));
  UserInfo sa{"system:serviceaccount:a:builder", {}, -1, true};
  EXPECT_TRUE(
      SubjectMatches(Json::parse(R"({"kind":"ServiceAccount","name":"builder"})"), sa, "a"));
  EXPECT_FALSE(
      SubjectMatches(Json::parse(R"({"kind":"ServiceAccount","name":"builder"})"), sa, "b"));
}

}  // namespace
}  // namespace kuota::auth
