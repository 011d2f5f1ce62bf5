#include "kube/request_header_auth.h"

#include "auth/ca_store.h"

#include <openssl/x509v3.h>

#include <algorithm>

#include "server/json_fields.h"

namespace kuota::kube {
namespace {

using Json = nlohmann::json;

constexpr const char* kAuthConfigMapPath =
    "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";

// A key holding a JSON list of strings (kube-apiserver writes them so).
Result<std::vector<std::string>> StringList(const Json& data, const std::string& key,
                                            std::vector<std::string> fallback) {
  auto it = data.find(key);
  if (it == data.end() || !it->is_string()) return fallback;
  Json parsed = Json::parse(it->get<std::string>(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) {
    return Status::Invalid("data." + key + " of kube-system/extension-apiserver-authentication " +
                           "is not a JSON list of strings");
  }
  std::vector<std::string> out;
  for (const Json& v : parsed) {
    if (!v.is_string()) {
      return Status::Invalid("data." + key + " of kube-system/extension-apiserver-authentication " +
                             "is not a JSON list of strings");
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

Result<RequestHeaderConfig> ReadRequestHeaderConfig(KubeClient& client) {
  KUOTA_ASSIGN_OR_RETURN(Json cm, client.Request("GET", kAuthConfigMapPath, nullptr));
  const Json data = cm.value("data", Json::object());
  RequestHeaderConfig config;
  config.client_ca_pem = server::StringField(data, {"requestheader-client-ca-file"});
  if (config.client_ca_pem.empty()) {
    return Status::NotFound(
        "kube-system/extension-apiserver-authentication has no requestheader-client-ca-file "
        "(kube-apiserver runs without --requestheader-client-ca-file: no aggregated APIs)");
  }
  KUOTA_ASSIGN_OR_RETURN(config.allowed_names, StringList(data, "requestheader-allowed-names", {}));
  KUOTA_ASSIGN_OR_RETURN(config.username_headers,
                         StringList(data, "requestheader-username-headers", {"X-Remote-User"}));
  KUOTA_ASSIGN_OR_RETURN(config.group_headers,
                         StringList(data, "requestheader-group-headers", {"X-Remote-Group"}));
  return config;
}

Result<std::unique_ptr<RequestHeaderAuthenticator>> RequestHeaderAuthenticator::Create(
    RequestHeaderConfig config) {
  auth::CaStorePtr store = auth::CaStoreFromPem(config.client_ca_pem);
  if (store == nullptr) {
    return Status::Invalid("requestheader-client-ca-file holds no PEM certificate");
  }
  return std::unique_ptr<RequestHeaderAuthenticator>(
      new RequestHeaderAuthenticator(std::move(config), std::move(store)));
}

Result<auth::UserInfo> RequestHeaderAuthenticator::Authenticate(const SSL* ssl,
                                                                const HeaderValues& headers) const {
  if (ssl == nullptr) return Status::Forbidden("not a TLS connection");
  X509* peer = SSL_get0_peer_certificate(ssl);
  if (peer == nullptr) return Status::Forbidden("no client certificate");
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(),
                                                                      &X509_STORE_CTX_free);
  // The server side's chain leaves the peer's own certificate out.
  if (!ctx || X509_STORE_CTX_init(ctx.get(), ca_.get(), peer, SSL_get_peer_cert_chain(ssl)) != 1) {
    return Status::Internal("cannot check the client certificate");
  }
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  if (X509_verify_cert(ctx.get()) != 1) {
    return Status::Forbidden(
        std::string("the client certificate does not verify against the requestheader CA: ") +
        X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get())));
  }
  char cn[256] = {0};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn) < 0) {
    cn[0] = '\0';
  }
  if (!config_.allowed_names.empty() &&
      std::find(config_.allowed_names.begin(), config_.allowed_names.end(), cn) ==
          config_.allowed_names.end()) {
    return Status::Forbidden(std::string("the client certificate's common name \"") + cn +
                             "\" is not among requestheader-allowed-names");
  }
  auth::UserInfo user;
  for (const std::string& h : config_.username_headers) {
    std::vector<std::string> v = headers(h);
    if (!v.empty() && !v[0].empty()) {
      user.name = v[0];
      break;
    }
  }
  if (user.name.empty()) return Status::Forbidden("no user named in the request headers");
  for (const std::string& h : config_.group_headers) {
    for (std::string& g : headers(h)) user.groups.push_back(std::move(g));
  }
  user.authenticated = true;
  return user;
}

}  // namespace kuota::kube
