// The bootstrap ClusterRoles grant what Kubernetes' admin/edit/view grant for
// ConfigMaps and Secrets: edit and admin read and write both, view reads
// ConfigMaps and never Secrets.
#include "auth/bootstrap_policy.h"

#include <gtest/gtest.h>

#include <string>

#include "auth/rbac_rules.h"
#include "auth/request_info.h"

namespace kuota::auth {
namespace {

using Json = nlohmann::json;

Json RoleNamed(const std::string& name) {
  for (const Json& object : BootstrapPolicy({{"batch", "jobs"}})) {
    if (object["kind"] == "ClusterRole" && object["metadata"]["name"] == name) return object;
  }
  ADD_FAILURE() << "no ClusterRole " << name;
  return Json();
}

bool Allows(const Json& role, const std::string& method, const std::string& path) {
  const RequestInfo request = ParseRequestInfo(method, path, false);
  for (const Json& rule : role["rules"]) {
    if (RuleAllows(rule, request)) return true;
  }
  return false;
}

TEST(BootstrapPolicyTest, EditAndAdminReadAndWriteConfigMapsAndSecrets) {
  for (const char* name : {"edit", "admin"}) {
    const Json role = RoleNamed(name);
    for (const char* kind : {"configmaps", "secrets"}) {
      const std::string coll = std::string("/api/v1/namespaces/team-a/") + kind;
      EXPECT_TRUE(Allows(role, "POST", coll)) << name << " " << kind;
      EXPECT_TRUE(Allows(role, "GET", coll + "/x")) << name << " " << kind;
      EXPECT_TRUE(Allows(role, "GET", coll)) << name << " " << kind;
      EXPECT_TRUE(Allows(role, "PATCH", coll + "/x")) << name << " " << kind;
      EXPECT_TRUE(Allows(role, "DELETE", coll + "/x")) << name << " " << kind;
    }
  }
}

TEST(BootstrapPolicyTest, ViewReadsConfigMapsButNeverSecrets) {
  const Json view = RoleNamed("view");
  EXPECT_TRUE(Allows(view, "GET", "/api/v1/namespaces/team-a/configmaps/x"));
  EXPECT_TRUE(Allows(view, "GET", "/api/v1/namespaces/team-a/configmaps"));
  EXPECT_FALSE(Allows(view, "POST", "/api/v1/namespaces/team-a/configmaps"));
  EXPECT_FALSE(Allows(view, "GET", "/api/v1/namespaces/team-a/secrets/x"));
  EXPECT_FALSE(Allows(view, "GET", "/api/v1/namespaces/team-a/secrets"));
  // Nor does the batch user role, nor the queue reader every user has.
  for (const char* name : {"kueue-batch-user-role", "kuota:queue-reader"}) {
    EXPECT_FALSE(Allows(RoleNamed(name), "GET", "/api/v1/namespaces/team-a/secrets/x")) << name;
  }
}

}  // namespace
}  // namespace kuota::auth
