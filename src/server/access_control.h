// AccessControl: who may do what through the API, ahead of routing.
// Authenticates each request (a bearer token, or the peer uid of a
// Unix-socket connection; none: 401 Unauthorized, except for health and
// version checks), authorizes it with RBAC (403 Forbidden naming the verb,
// resource and namespace refused), gives each new local user their
// namespace, and serves the endpoints about the caller itself:
// SelfSubjectAccessReview and SelfSubjectRulesReview (`kubectl auth
// can-i`), SelfSubjectReview (`kubectl auth whoami`) and, on the Unix socket
// only, POST /kuota/v1/login (a token and the CA for a kubeconfig); and, for
// callers RBAC lets create them, SubjectAccessReviews about any user (the
// delegated authorization of servers behind the aggregator).
// Without an authenticator every request is served as an admin (kuotad
// --insecure-http). Thread-safe.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "auth/authenticator.h"
#include "auth/rbac_authorizer.h"
#include "base/result.h"
#include "server/http_types.h"

namespace kuota::server {

struct AccessOptions {
  // Both null: no authentication (every request is an admin's).
  const auth::Authenticator* authenticator = nullptr;
  const auth::RbacAuthorizer* authorizer = nullptr;
  // Called once per process for each non-admin user on their first request:
  // makes their namespace; returns its name. May be empty.
  std::function<Result<std::string>(const auth::UserInfo&)> provision_user;
  // What a login reply carries for the kubeconfig: the CA certificate (PEM)
  // and the server's https URL.
  std::string ca_pem;
  std::string server_url;
};

class AccessControl {
 public:
  explicit AccessControl(AccessOptions options) : options_(std::move(options)) {}

  bool enabled() const { return options_.authenticator != nullptr; }
  void set_server_url(std::string url) { options_.server_url = std::move(url); }

  // Sets request.user from its credential (request.authorization,
  // request.peer_uid); returns the reply when the request is refused (401,
  // 403) or answered here (the self reviews, login); nullopt: route it.
  std::optional<HttpReply> Check(HttpRequest& request);

 private:
  std::optional<HttpReply> ServeSelf(const HttpRequest& request);
  HttpReply Login(const HttpRequest& request);
  void Provision(const auth::UserInfo& user);

  AccessOptions options_;
  std::mutex mu_;
  std::set<int64_t> provisioned_;  // uids whose namespace exists
};

}  // namespace kuota::server
