// SubjectAccessReviewer: delegated authorization, as k8s.io/apiserver's
// DelegatingAuthorizer does it for an extension API server (Kueue's
// visibility server): asks the cluster with an authorization.k8s.io/v1
// SubjectAccessReview whether a user may do what a request does. Members of
// system:masters always may, as with the delegating authorizer's
// AlwaysAllowGroups. Answers are kept 10 s (its default TTLs). Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "auth/user_info.h"
#include "base/result.h"
#include "kube/kube_client.h"

namespace kuota::kube {

class SubjectAccessReviewer {
 public:
  // `client` must outlive the reviewer.
  explicit SubjectAccessReviewer(KubeClient& client) : client_(client) {}

  // Whether `user` may do what `resource_attributes` (a SubjectAccessReview's
  // spec.resourceAttributes) say. An error when the review cannot be made.
  Result<bool> Allowed(const auth::UserInfo& user, const nlohmann::json& resource_attributes);

 private:
  struct Entry {
    bool allowed = false;
    std::chrono::steady_clock::time_point until;
  };
  KubeClient& client_;
  std::mutex mu_;
  std::map<std::string, Entry> cache_;  // guarded by mu_; key: the review's spec
};

}  // namespace kuota::kube
