#include "kube/visibility_endpoint.h"

#include <openssl/ssl.h>

#include <string>
#include <vector>

#include <httplib.h>

#include "server/http_types.h"
#include "server/status_errors.h"

namespace kuota::kube {
namespace {

// Accepts any certificate during the handshake: whether it is the
// aggregator's is decided per request (a webhook caller sends none).
int AcceptAnyClientCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

// What a request under the group asks, as a SubjectAccessReview's
// resourceAttributes; null for the discovery documents (every authenticated
// user may read them: the system:discovery role).
nlohmann::json VisibilityAttributes(const std::string& path) {
  std::vector<std::string> p;
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) p.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  if (p.size() < 4) return nullptr;
  nlohmann::json a = {{"group", server::kVisibilityGroup}, {"version", p[2]}, {"verb", "get"}};
  if (p.size() >= 6 && p[3] == "clusterqueues") {
    a["resource"] = "clusterqueues";
    a["name"] = p[4];
    a["subresource"] = p[5];
  } else if (p.size() >= 8 && p[3] == "namespaces" && p[5] == "localqueues") {
    a["namespace"] = p[4];
    a["resource"] = "localqueues";
    a["name"] = p[6];
    a["subresource"] = p[7];
  } else {
    a["resource"] = p[3];
  }
  return a;
}

// kube-apiserver's Forbidden wording for a request it refused.
std::string ForbiddenMessage(const auth::UserInfo& user, const nlohmann::json& a) {
  const std::string resource = a.value("resource", "");
  const std::string sub = a.value("subresource", "");
  std::string m = resource + "." + server::kVisibilityGroup + " \"" + a.value("name", "") +
                  "\" is forbidden: User \"" + user.name + "\" cannot get resource \"" + resource +
                  (sub.empty() ? "" : "/" + sub) + "\" in API group \"" + server::kVisibilityGroup +
                  "\"";
  return m + (a.contains("namespace") ? " in the namespace \"" + a.value("namespace", "") + "\""
                                      : std::string(" at the cluster scope"));
}

}  // namespace

void VisibilityEndpoint::Register(httplib::Server& server) const {
  if (auto* tls = dynamic_cast<httplib::SSLServer*>(&server); tls != nullptr) {
    SSL_CTX_set_verify(tls->ssl_context(), SSL_VERIFY_PEER, &AcceptAnyClientCertificate);
  }
  server.Get(R"(/apis/visibility\.kueue\.x-k8s\.io(/.*)?)", [this](const httplib::Request& req,
                                                                   httplib::Response& res) {
    server::HttpReply reply;
    Result<bool> authorized = false;
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
    } else if (nlohmann::json attributes = VisibilityAttributes(req.path);
               authorize_ && !attributes.is_null() &&
               !(authorized = authorize_(*user, attributes)).ok()) {
      reply = server::InternalError("authorizing the request: " + authorized.status().message())
                  .ToReply();
    } else if (authorize_ && !attributes.is_null() && !*authorized) {
      server::ApiError e;
      e.code = 403;
      e.reason = "Forbidden";
      e.message = ForbiddenMessage(*user, attributes);
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
