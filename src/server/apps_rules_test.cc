// apps/v1 Deployments and StatefulSets are defaulted and validated as
// kube-apiserver does, each refusal naming the field path; their scale
// subresource reads and writes spec.replicas.
#include "server/apps_rules.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "server/scale_subresource.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

const ResourceInfo& Deployments() { return *FindResource("apps", "deployments"); }
const ResourceInfo& StatefulSets() { return *FindResource("apps", "statefulsets"); }

Json AppsObject(const std::string& kind) {
  Json container = {{"name", "main"}, {"image", "busybox"}};
  Json tmpl = {{"metadata", {{"labels", {{"app", "web"}}}}},
               {"spec", {{"containers", Json::array({container})}}}};
  Json spec = {
      {"replicas", 2}, {"selector", {{"matchLabels", {{"app", "web"}}}}}, {"template", tmpl}};
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata", {{"name", "web"}, {"namespace", "ns"}, {"resourceVersion", "7"}}},
          {"spec", spec},
          {"status", {{"replicas", 2}}}};
}

std::string AppsRefusal(const ResourceInfo& r, Json object, const Json* old_object = nullptr) {
  Status st = PrepareAppsObject(r, old_object, object);
  return st.ok() ? "" : st.message();
}

TEST(AppsRulesTest, DefaultsAsKubeApiserver) {
  Json d = AppsObject("Deployment");
  d["spec"].erase("replicas");
  ASSERT_TRUE(PrepareAppsObject(Deployments(), nullptr, d).ok());
  EXPECT_EQ(d["spec"]["replicas"], 1);
  EXPECT_EQ(d["spec"]["strategy"]["type"], "RollingUpdate");
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"], 600);
  EXPECT_EQ(d["spec"]["template"]["spec"]["restartPolicy"], "Always");
  Json s = AppsObject("StatefulSet");
  ASSERT_TRUE(PrepareAppsObject(StatefulSets(), nullptr, s).ok());
  EXPECT_EQ(s["spec"]["podManagementPolicy"], "OrderedReady");
  EXPECT_EQ(s["spec"]["updateStrategy"]["rollingUpdate"]["partition"], 0);
}

TEST(AppsRulesTest, RefusesWithFieldPaths) {
  struct Case {
    const char* name;
    std::function<void(Json&)> edit;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"negative replicas", [](Json& o) { o["spec"]["replicas"] = -1; },
       "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
      {"no selector", [](Json& o) { o["spec"].erase("selector"); },
       "spec.selector: Required value"},
      {"empty selector", [](Json& o) { o["spec"]["selector"] = Json::object(); },
       "spec.selector: Invalid value: \"\": empty selector is invalid for deployment"},
      {"selector not matching", [](Json& o) { o["spec"]["selector"]["matchLabels"]["app"] = "x"; },
       "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: "
       "`selector` does not match template `labels`"},
      {"no containers", [](Json& o) { o["spec"]["template"]["spec"].erase("containers"); },
       "spec.template.spec.containers: Required value"},
      {"restart policy", [](Json& o) { o["spec"]["template"]["spec"]["restartPolicy"] = "Never"; },
       "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: "
       "\"Always\""},
  };
  for (const Case& c : cases) {
    Json d = AppsObject("Deployment");
    c.edit(d);
    EXPECT_EQ(AppsRefusal(Deployments(), d), c.want) << c.name;
  }
  Json ok = AppsObject("Deployment");
  EXPECT_EQ(AppsRefusal(Deployments(), ok), "");
}

TEST(AppsRulesTest, UpdateRules) {
  Json old = AppsObject("StatefulSet");
  ASSERT_TRUE(PrepareAppsObject(StatefulSets(), nullptr, old).ok());
  Json scaled = old;
  scaled["spec"]["replicas"] = 5;
  EXPECT_EQ(AppsRefusal(StatefulSets(), scaled, &old), "");
  Json renamed = old;
  renamed["spec"]["serviceName"] = "other";
  EXPECT_NE(
      AppsRefusal(StatefulSets(), renamed, &old).find("spec: Forbidden: updates to statefulset"),
      std::string::npos);
  Json d = AppsObject("Deployment");
  ASSERT_TRUE(PrepareAppsObject(Deployments(), nullptr, d).ok());
  Json reselect = d;
  reselect["spec"]["selector"]["matchLabels"]["tier"] = "x";
  reselect["spec"]["template"]["metadata"]["labels"]["tier"] = "x";
  EXPECT_NE(AppsRefusal(Deployments(), reselect, &d).find("spec.selector: Invalid value"),
            std::string::npos);
}

TEST(ScaleSubresourceTest, ReadsAndWritesReplicas) {
  Json d = AppsObject("Deployment");
  d["spec"]["selector"]["matchExpressions"] = {
      {{"key", "tier"}, {"operator", "In"}, {"values", {"b", "a"}}}};
  Result<Json> scale = ScaleOf(Deployments(), d);
  ASSERT_TRUE(scale.ok());
  EXPECT_EQ((*scale)["apiVersion"], "autoscaling/v1");
  EXPECT_EQ((*scale)["kind"], "Scale");
  EXPECT_EQ((*scale)["metadata"]["name"], "web");
  EXPECT_EQ((*scale)["spec"]["replicas"], 2);
  EXPECT_EQ((*scale)["status"]["replicas"], 2);
  EXPECT_EQ((*scale)["status"]["selector"], "app=web,tier in (a,b)");

  Json want = *scale;
  want["spec"]["replicas"] = 4;
  Result<Json> written = ApplyScale(Deployments(), d, want);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ((*written)["spec"]["replicas"], 4);
  EXPECT_EQ((*written)["spec"]["template"], d["spec"]["template"]);

  want["spec"]["replicas"] = -1;
  Result<Json> negative = ApplyScale(Deployments(), d, want);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  want["spec"]["replicas"] = 1;
  want["metadata"]["resourceVersion"] = "6";
  EXPECT_EQ(ApplyScale(Deployments(), d, want).status().code(), StatusCode::kConflict);
  EXPECT_FALSE(ScaleOf(*FindResource("", "pods"), d).ok());
}

}  // namespace
}  // namespace kuota::server
