// The bootstrap ClusterRoles grant what Kubernetes' admin/edit/view grant for
// ConfigMaps and Secrets: edit and admin read and write both, view reads
// ConfigMaps and never Secrets; a data directory from an older kuotad gets
// the rules added to its stored roles, as kube-apiserver reconciles them.
#include "auth/bootstrap_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "auth/rbac_rules.h"
#include "auth/request_info.h"
#include "store/sqlite_object_store.h"
#include "testing/temp_dir.h"

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

// A real store holding the roles an older kuotad wrote: `edit` without the
// ConfigMap and Secret rules (and with a rule the admin added), and `view`
// marked autoupdate "false" by the admin.
TEST(BootstrapPolicyTest, StoredRolesGetTheRulesANewerVersionAdds) {
  kuota::testing::TempDir dir("kuota-bootstrap");
  store::StoreOptions options;
  options.path = dir.File("kuota.db");
  auto opened = store::SqliteObjectStore::Open(options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<store::SqliteObjectStore> store = std::move(opened).value();
  const std::string kRoles = "clusterroles.rbac.authorization.k8s.io";
  const Json extra = {
      {"apiGroups", {"example.com"}}, {"resources", {"widgets"}}, {"verbs", {"get"}}};

  Json old_edit = RoleNamed("edit");
  Json kept_rules = Json::array({extra});
  for (const Json& rule : old_edit["rules"]) {
    if (!Allows(Json{{"rules", {rule}}}, "GET", "/api/v1/namespaces/a/configmaps/x") &&
        !Allows(Json{{"rules", {rule}}}, "GET", "/api/v1/namespaces/a/secrets/x")) {
      kept_rules.push_back(rule);
    }
  }
  old_edit["rules"] = kept_rules;
  ASSERT_FALSE(Allows(old_edit, "GET", "/api/v1/namespaces/a/configmaps/x"));
  Json old_view = RoleNamed("view");
  old_view["rules"] = Json::array({extra});
  old_view["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false";
  ASSERT_TRUE(store->Create(kRoles, old_edit).ok());
  ASSERT_TRUE(store->Create(kRoles, old_view).ok());

  Status st = EnsureObjects(*store, BootstrapPolicy({{"batch", "jobs"}}));
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto edit = store->Get(kRoles, "", "edit");
  ASSERT_TRUE(edit.ok());
  EXPECT_TRUE(Allows(*edit, "GET", "/api/v1/namespaces/a/configmaps/x"));
  EXPECT_TRUE(Allows(*edit, "POST", "/api/v1/namespaces/a/secrets"));
  EXPECT_NE(std::find((*edit)["rules"].begin(), (*edit)["rules"].end(), extra),
            (*edit)["rules"].end())
      << "the admin's own rule is kept";
  auto view = store->Get(kRoles, "", "view");
  ASSERT_TRUE(view.ok());
  EXPECT_EQ((*view)["rules"], Json::array({extra})) << "autoupdate \"false\" is left alone";
  // Missing roles are created; a second run changes nothing.
  EXPECT_TRUE(store->Get(kRoles, "", "admin").ok());
  const std::string version = (*edit)["metadata"]["resourceVersion"];
  ASSERT_TRUE(EnsureObjects(*store, BootstrapPolicy({{"batch", "jobs"}})).ok());
  EXPECT_EQ((*store->Get(kRoles, "", "edit"))["metadata"]["resourceVersion"], version);
}

}  // namespace
}  // namespace kuota::auth
