// VisibilityEndpoint: Kueue's visibility API (visibility.kueue.x-k8s.io
// v1beta2 and v1beta1, server::VisibilityApi, the same code as kuotad's) on
// the driver's HTTPS webhook server, for kube-apiserver's aggregator to proxy
// to (the APIServices in deploy/). The server asks each client for a
// certificate without requiring one (the conversion webhook's callers send
// none); a visibility request is answered only when its connection's
// certificate verifies as the aggregator's (RequestHeaderAuthenticator), and
// 401 otherwise. The user is then authorized again as Kueue's server does,
// by asking the cluster (a SubjectAccessReview through `authorize`): 403 when
// the answer is no (kube-apiserver has already authorized the request before
// proxying it). Thread-safe: httplib's threads serve
// requests; Register is called once, before the server listens.
#pragma once

#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "kube/leader_pending_workloads.h"
#include "kube/request_header_auth.h"
#include "server/visibility.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace kuota::kube {

class VisibilityEndpoint {
 public:
  // Whether a user may do what a SubjectAccessReview's resourceAttributes
  // say (SubjectAccessReviewer::Allowed); an error answers 500.
  using Authorize =
      std::function<Result<bool>(const auth::UserInfo&, const nlohmann::json& attributes)>;

  // `source` must outlive this endpoint and the server it registers on.
  // `authorize` null: no second authorization (tests).
  VisibilityEndpoint(std::unique_ptr<RequestHeaderAuthenticator> authenticator,
                     server::PendingWorkloadsSource& source, Authorize authorize = nullptr)
      : authenticator_(std::move(authenticator)), api_(&source), authorize_(std::move(authorize)) {}

  // Adds GET /apis/visibility.kueue.x-k8s.io[/...] to `server` (an
  // httplib::SSLServer: it is also made to ask for client certificates).
  void Register(httplib::Server& server) const;

 private:
  const std::unique_ptr<RequestHeaderAuthenticator> authenticator_;
  const server::VisibilityApi api_;
  const Authorize authorize_;
};

}  // namespace kuota::kube
