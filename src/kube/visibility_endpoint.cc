#include "kube/visibility_endpoint.h"

#include <openssl/ssl.h>

#include <httplib.h>

#include "server/http_types.h"
#include "server/status_errors.h"

namespace kuota::kube {
namespace {

// Accepts any certificate during the handshake: whether it is the
// aggregator's is decided per request (a webhook caller sends none).
int AcceptAnyClientCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

}  // namespace

void VisibilityEndpoint::Register(httplib::Server& server) const {
  if (auto* tls = dynamic_cast<httplib::SSLServer*>(&server); tls != nullptr) {
    SSL_CTX_set_verify(tls->ssl_context(), SSL_VERIFY_PEER, &AcceptAnyClientCertificate);
  }
  server.Get(R"(/apis/visibility\.kueue\.x-k8s\.io(/.*)?)",
             [this](const httplib::Request& req, httplib::Response& res) {
               server::HttpReply reply;
               Result<auth::UserInfo> user =
                   authenticator_->Authenticate(req.ssl, [&req](const std::string& name) {
                     std::vector<std::string> values;
                     auto range = req.headers.equal_range(name);
                     for (auto it = range.first; it != range.second; ++it) {
                       values.push_back(it->second);
                     }
                     return values;
                   });
               if (!user.ok()) {
                 server::ApiError e;
                 e.code = 401;
                 e.reason = "Unauthorized";
                 e.message = "Unauthorized: " + user.status().message();
                 reply = e.ToReply();
               } else {
                 server::HttpRequest request;
                 request.method = req.method;
                 request.path = req.path;
                 for (const auto& [key, value] : req.params) request.query.emplace(key, value);
                 request.accept = req.get_header_value("Accept");
                 request.user = *user;
                 reply = api_.Serve(request);
               }
               res.status = reply.status;
               for (const auto& [name, value] : reply.headers) res.set_header(name.c_str(), value);
               res.set_content(reply.body, reply.content_type.c_str());
             });
}

}  // namespace kuota::kube
