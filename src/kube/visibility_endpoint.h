// VisibilityEndpoint: Kueue's visibility API (visibility.kueue.x-k8s.io
// v1beta2 and v1beta1, server::VisibilityApi, the same code as kuotad's) on
// the driver's HTTPS webhook server, for kube-apiserver's aggregator to proxy
// to (the APIServices in deploy/). The server asks each client for a
// certificate without requiring one (the conversion webhook's callers send
// none); a visibility request is answered only when its connection's
// certificate verifies as the aggregator's (RequestHeaderAuthenticator), and
// 401 otherwise. Authorization is the aggregator's: kube-apiserver authorizes
// a request before it proxies it. Thread-safe: httplib's threads serve
// requests; Register is called once, before the server listens.
#pragma once

#include <memory>

#include "kube/leader_pending_workloads.h"
#include "kube/request_header_auth.h"
#include "server/visibility.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace kuota::kube {

class VisibilityEndpoint {
 public:
  // `source` must outlive this endpoint and the server it registers on.
  VisibilityEndpoint(std::unique_ptr<RequestHeaderAuthenticator> authenticator,
                     server::PendingWorkloadsSource& source)
      : authenticator_(std::move(authenticator)), api_(&source) {}

  // Adds GET /apis/visibility.kueue.x-k8s.io[/...] to `server` (an
  // httplib::SSLServer: it is also made to ask for client certificates).
  void Register(httplib::Server& server) const;

 private:
  const std::unique_ptr<RequestHeaderAuthenticator> authenticator_;
  const server::VisibilityApi api_;
};

}  // namespace kuota::kube
