#include "auth/bootstrap_policy.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace kuota::auth {
namespace {

constexpr char kAutoUpdateAnnotation[] = "rbac.authorization.kubernetes.io/autoupdate";

using Json = nlohmann::json;

const Json kRead = {"get", "list", "watch"};
const Json kWrite = {"get",    "list",  "watch",  "create",
                     "update", "patch", "delete", "deletecollection"};

Json Rule(Json groups, Json resources, Json verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", std::move(verbs)}};
}

Json Meta(const std::string& name) {
  return {{"name", name},
          {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
          {"annotations", {{kAutoUpdateAnnotation, "true"}}}};
}

Json ClusterRole(const std::string& name, Json rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", Meta(name)},
          {"rules", std::move(rules)}};
}

Json Binding(const std::string& name, const std::string& role, Json subjects) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", Meta(name)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
          {"subjects", std::move(subjects)}};
}

Json Group(const std::string& name) {
  return {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", name}};
}

// Every job kind's resources, grouped by API group: {group: [plural, plural/status]}.
std::map<std::string, Json> JobResources(
    const std::vector<std::pair<std::string, std::string>>& jobs) {
  std::map<std::string, Json> by_group;
  for (const auto& [group, plural] : jobs) {
    Json& list = by_group[group];
    if (list.is_null()) list = Json::array();
    list.push_back(plural);
    list.push_back(plural + "/status");
  }
  return by_group;
}

}  // namespace

std::vector<Json> BootstrapPolicy(const std::vector<std::pair<std::string, std::string>>& jobs) {
  const std::string kueue = "kueue.x-k8s.io";
  const std::string visibility = "visibility.kueue.x-k8s.io";
  const Json queues = {"clusterqueues",           "localqueues",     "cohorts",   "resourceflavors",
                       "workloadpriorityclasses", "admissionchecks", "topologies"};
  const Json queue_status = {"clusterqueues/status", "localqueues/status", "cohorts/status"};

  // A namespace user's batch rights, as Kueue's kueue-batch-user-role: every
  // job kind, read access to the Workloads and LocalQueues of the namespace.
  Json batch_user = Json::array();
  for (auto& [group, resources] : JobResources(jobs)) {
    batch_user.push_back(Rule({group}, resources, kWrite));
  }
  batch_user.push_back(
      Rule({kueue}, {"workloads", "workloads/status", "localqueues", "localqueues/status"}, kRead));
  batch_user.push_back(Rule({visibility}, {"localqueues/pendingworkloads"}, {"get"}));

  // edit: the batch user's rights plus the namespace's pods (and their logs),
  // ConfigMaps and Secrets, and events; view: read-only, and no Secrets (as
  // Kubernetes' view); admin: edit plus the namespace's LocalQueues and RBAC.
  Json edit = batch_user;
  edit.push_back(Rule({""}, {"pods", "pods/log", "pods/status"}, kWrite));
  edit.push_back(Rule({""}, {"configmaps"}, kWrite));
  edit.push_back(Rule({""}, {"events"}, kRead));
  edit.push_back(Rule({""}, {"namespaces"}, {"get"}));
  Json view = Json::array();
  for (const Json& r : edit) view.push_back(Rule(r["apiGroups"], r["resources"], kRead));
  edit.push_back(Rule({""}, {"secrets"}, kWrite));
  Json admin = edit;
  admin.push_back(Rule({kueue}, {"localqueues"}, kWrite));
  admin.push_back(Rule({"rbac.authorization.k8s.io"}, {"roles", "rolebindings"}, kWrite));

  Json queue_reader = Json::array({
      Rule({kueue}, queues, kRead),
      Rule({kueue}, queue_status, kRead),
      Rule({"scheduling.k8s.io"}, {"priorityclasses"}, kRead),
      Rule({"scheduling.volcano.sh"}, {"queues", "queues/status"}, kRead),
      Rule({visibility},
           {"clusterqueues", "clusterqueues/pendingworkloads", "localqueues",
            "localqueues/pendingworkloads"},
           {"get", "list"}),
  });

  Json batch_admin = Json::array({
      Rule({kueue, visibility, "scheduling.k8s.io", "scheduling.volcano.sh"}, {"*"}, kWrite),
  });
  for (const Json& r : batch_user) batch_admin.push_back(r);

  const Json discovery_urls = {"/api",     "/api/*",     "/apis",    "/apis/*",
                               "/openapi", "/openapi/*", "/version", "/version/"};
  const Json public_urls = {"/healthz", "/healthz/*", "/livez",   "/livez/*",
                            "/readyz",  "/readyz/*",  "/version", "/version/"};
  const Json self_reviews = Json::array({
      Rule({"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"},
           {"create"}),
      Rule({"authentication.k8s.io"}, {"selfsubjectreviews"}, {"create"}),
  });

  std::vector<Json> out = {
      ClusterRole("cluster-admin", Json::array({Rule({"*"}, {"*"}, {"*"}),
                                                {{"nonResourceURLs", {"*"}}, {"verbs", {"*"}}}})),
      Binding("cluster-admin", "cluster-admin", Json::array({Group(kGroupMasters)})),
      ClusterRole("system:discovery",
                  Json::array({{{"nonResourceURLs", discovery_urls}, {"verbs", {"get"}}}})),
      Binding("system:discovery", "system:discovery", Json::array({Group(kGroupAuthenticated)})),
      ClusterRole("system:public-info-viewer",
                  Json::array({{{"nonResourceURLs", public_urls}, {"verbs", {"get"}}}})),
      Binding("system:public-info-viewer", "system:public-info-viewer",
              Json::array({Group(kGroupAuthenticated), Group(kGroupUnauthenticated)})),
      ClusterRole("system:basic-user", self_reviews),
      Binding("system:basic-user", "system:basic-user", Json::array({Group(kGroupAuthenticated)})),
      ClusterRole("kuota:queue-reader", queue_reader),
      Binding("kuota:queue-reader", "kuota:queue-reader",
              Json::array({Group(kGroupAuthenticated)})),
      ClusterRole("kueue-batch-admin-role", batch_admin),
      ClusterRole("kueue-batch-user-role", batch_user),
      ClusterRole("admin", admin),
      ClusterRole("edit", edit),
      ClusterRole("view", view),
  };
  return out;
}

Status EnsureObjects(store::ObjectStore& store, const std::vector<Json>& objects) {
  for (const Json& object : objects) {
    const std::string kind = object.value("kind", "");
    std::string resource = kind == "ClusterRole"          ? "clusterroles"
                           : kind == "ClusterRoleBinding" ? "clusterrolebindings"
                           : kind == "Role"               ? "roles"
                           : kind == "RoleBinding"        ? "rolebindings"
                                                          : "";
    if (resource.empty()) return Status::Internal("bootstrap policy holds a " + kind);
    resource += ".rbac.authorization.k8s.io";
    const Json& meta = object["metadata"];
    auto got = store.Get(resource, meta.value("namespace", ""), meta.value("name", ""));
    if (got.ok()) {
      // As kube-apiserver reconciles its bootstrap roles at start: a stored
      // ClusterRole still marked autoupdate gets the rules this version adds
      // (its own extra rules kept); one marked "false" is left as it is.
      if (kind != "ClusterRole") continue;
      Json stored = std::move(got).value();
      const Json annotations = stored["metadata"].value("annotations", Json::object());
      if (annotations.value(kAutoUpdateAnnotation, Json()) == "false") continue;
      Json& rules = stored["rules"];
      if (!rules.is_array()) rules = Json::array();
      bool added = false;
      for (const Json& rule : object["rules"]) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) {
          rules.push_back(rule);
          added = true;
        }
      }
      if (!added) continue;
      auto updated = store.Update(resource, std::move(stored));
      if (!updated.ok() && updated.status().code() != StatusCode::kConflict) {
        return updated.status().WithContext("updating ClusterRole " +
                                            meta.value("name", std::string()));
      }
      continue;
    }
    if (got.status().code() != StatusCode::kNotFound) return got.status();
    auto created = store.Create(resource, object);
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating " + kind + " " +
                                          meta.value("name", std::string()));
    }
  }
  return Status::Ok();
}

std::string UserNamespace(const std::string& user_name) {
  std::string ns;
  for (char c : user_name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ns.push_back((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') ? l : '-');
  }
  while (!ns.empty() && ns.front() == '-') ns.erase(ns.begin());
  while (!ns.empty() && ns.back() == '-') ns.pop_back();
  if (ns.size() > 63) ns.resize(63);
  while (!ns.empty() && ns.back() == '-') ns.pop_back();
  return ns;
}

Result<std::string> EnsureUserNamespace(store::ObjectStore& store, const UserInfo& user) {
  std::string ns = UserNamespace(user.name);
  if (ns.empty()) return ns;
  auto got = store.Get("namespaces", "", ns);
  if (!got.ok()) {
    if (got.status().code() != StatusCode::kNotFound) return got.status();
    Json object = {{"apiVersion", "v1"},
                   {"kind", "Namespace"},
                   {"metadata",
                    {{"name", ns},
                     {"labels", {{"kubernetes.io/metadata.name", ns}, {"kuota.dev/owner", ns}}}}},
                   {"spec", Json::object()},
                   {"status", {{"phase", "Active"}}}};
    auto created = store.Create("namespaces", object);
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating namespace " + ns);
    }
  }
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "kuota-owner"}, {"namespace", ns}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "edit"}}},
      {"subjects",
       Json::array(
           {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user.name}}})}};
  KUOTA_RETURN_IF_ERROR(EnsureObjects(store, {binding}));
  return ns;
}

}  // namespace kuota::auth
