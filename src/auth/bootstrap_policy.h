// The RBAC policy kuotad starts with on a shared machine, kept in the store
// like any other RBAC object (create-if-missing at every start, so an admin
// may edit or add to it): cluster-admin for system:masters; discovery,
// health and self-reviews for every authenticated user; read access to the
// queues (ClusterQueues, LocalQueues, Cohorts, ResourceFlavors, priority
// classes) for every authenticated user; Kueue's kueue-batch-admin-role and
// kueue-batch-user-role; Kubernetes' admin/edit/view extended to Kueue's and
// every job kind's resources. Also the per-user namespace each local user
// gets (edit rights there). Thread-safe as the store.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/user_info.h"
#include "base/result.h"
#include "store/object_store.h"

namespace kuota::auth {

// The default ClusterRoles and ClusterRoleBindings (JSON objects with kind).
// `job_resources` are (group, plural) of every job kind served.
std::vector<nlohmann::json> BootstrapPolicy(
    const std::vector<std::pair<std::string, std::string>>& job_resources);

// Creates each of `objects` that is missing (ClusterRole/ClusterRoleBinding),
// and adds to a stored ClusterRole the rules it lacks unless its
// rbac.authorization.kubernetes.io/autoupdate annotation is "false" (as
// kube-apiserver reconciles its bootstrap roles), so a data directory from an
// older kuotad gets the rights a newer one grants.
Status EnsureObjects(store::ObjectStore& store, const std::vector<nlohmann::json>& objects);

// The namespace a local user owns: their login name when it is a valid
// namespace name (DNS-1123 label), else the name lowercased with every other
// character turned into '-'; "" when nothing valid remains.
std::string UserNamespace(const std::string& user_name);

// Creates the user's namespace (labelled kuota.dev/owner=<user>) and the
// RoleBinding "kuota-owner" there giving the user ClusterRole edit, when
// missing. Returns the namespace's name ("" when the user has none).
Result<std::string> EnsureUserNamespace(store::ObjectStore& store, const UserInfo& user);

}  // namespace kuota::auth
