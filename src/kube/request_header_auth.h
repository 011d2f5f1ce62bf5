// RequestHeaderAuthenticator: how an extension API server behind
// kube-apiserver's aggregator knows who a proxied request is for (Kueue's
// visibility server does it through k8s.io/apiserver's requestheader
// authenticator). The aggregator connects with a client certificate signed
// by the requestheader client CA and with a common name among the allowed
// names, and names the user in X-Remote-User and the groups in
// X-Remote-Group; all of these are published in the ConfigMap
// kube-system/extension-apiserver-authentication. Only a connection whose
// certificate verifies is believed; anything else is refused.
// Thread-safe after construction (Authenticate only reads).
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "auth/ca_store.h"
#include "auth/user_info.h"
#include "base/result.h"
#include "kube/kube_client.h"

namespace kuota::kube {

// The requestheader-* keys of kube-system/extension-apiserver-authentication.
struct RequestHeaderConfig {
  std::string client_ca_pem;               // requestheader-client-ca-file
  std::vector<std::string> allowed_names;  // empty: any certificate the CA signed
  std::vector<std::string> username_headers = {"X-Remote-User"};
  std::vector<std::string> group_headers = {"X-Remote-Group"};
};

// Reads the ConfigMap through `client`. NotFound when it or its
// requestheader-client-ca-file is missing; Invalid naming the key that does
// not parse.
Result<RequestHeaderConfig> ReadRequestHeaderConfig(KubeClient& client);

class RequestHeaderAuthenticator {
 public:
  // Invalid when `config.client_ca_pem` holds no certificate.
  static Result<std::unique_ptr<RequestHeaderAuthenticator>> Create(RequestHeaderConfig config);

  // Header values by name (every value a repeated header carries).
  using HeaderValues = std::function<std::vector<std::string>(const std::string& name)>;

  // The user a request on `ssl` (the server side of its TLS connection) is
  // for. Forbidden (with the reason; answered 401) when the peer sent no
  // certificate, its certificate does not verify against the CA for client
  // use, its common name is not allowed, or no username header is set.
  Result<auth::UserInfo> Authenticate(const SSL* ssl, const HeaderValues& headers) const;

 private:
  RequestHeaderAuthenticator(RequestHeaderConfig config, auth::CaStorePtr ca)
      : config_(std::move(config)), ca_(std::move(ca)) {}

  const RequestHeaderConfig config_;
  const auth::CaStorePtr ca_;
};

}  // namespace kuota::kube
