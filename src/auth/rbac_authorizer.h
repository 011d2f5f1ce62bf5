// RbacAuthorizer: kube-apiserver's RBAC authorizer over the store's
// rbac.authorization.k8s.io/v1 Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings, which it keeps in memory from a list and a watch of
// each kind (so a binding kubectl just created applies within moments, as
// on a cluster). Members of system:masters are allowed everything.
// Thread-safe: Authorize runs on many request threads at once.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/request_info.h"
#include "auth/user_info.h"
#include "base/status.h"
#include "store/object_store.h"

namespace kuota::auth {

struct Decision {
  bool allowed = false;
  std::string reason;  // which binding allowed it; "" when denied
};

class RbacAuthorizer {
 public:
  explicit RbacAuthorizer(store::ObjectStore& store);
  ~RbacAuthorizer();
  RbacAuthorizer(const RbacAuthorizer&) = delete;
  RbacAuthorizer& operator=(const RbacAuthorizer&) = delete;

  // Lists the four kinds (so decisions are right from the first request)
  // and starts watching them.
  Status Start();
  void Stop();

  Decision Authorize(const UserInfo& user, const RequestInfo& request) const;
  // Every rule that applies to `user` in namespace `ns` (the cluster-wide
  // ones included), for SelfSubjectRulesReview.
  std::vector<nlohmann::json> RulesFor(const UserInfo& user, const std::string& ns) const;

 private:
  enum Kind { kRole, kClusterRole, kRoleBinding, kClusterRoleBinding, kKinds };
  Status Load(Kind kind, int64_t* resource_version);
  void WatchLoop(Kind kind, int64_t resource_version);
  // The rules a binding's roleRef names; empty when it names nothing there is.
  const nlohmann::json* RoleRules(const nlohmann::json& binding, const std::string& ns) const;
  template <typename Visit>
  void ForEachBinding(const UserInfo& user, const std::string& ns, Visit visit) const;

  store::ObjectStore& store_;
  mutable std::shared_mutex mu_;
  std::map<std::string, nlohmann::json> objects_[kKinds];  // "ns/name" -> object
  std::atomic<bool> stopping_{false};
  std::mutex watchers_mu_;
  std::shared_ptr<store::Watcher> watchers_[kKinds];
  std::vector<std::thread> threads_;
};

// The store key of each RBAC kind ("rolebindings.rbac.authorization.k8s.io").
inline constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

}  // namespace kuota::auth
