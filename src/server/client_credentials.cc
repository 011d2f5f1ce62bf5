#include "server/client_credentials.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace kuota::server {

namespace {

// Never exists: a CA directory lookup that finds nothing.
constexpr const char* kNoCaDirectory = "/nonexistent/kuota-trusts-only-the-kubeconfig-ca";

}  // namespace

Status UseCredentials(httplib::Client& client, const std::string& ca_pem,
                      const std::string& token) {
  if (!ca_pem.empty()) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())), &BIO_free);
    std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(),
                                                                  &X509_STORE_free);
    if (!bio || !store) return Status::Internal("out of memory reading the CA certificate");
    int added = 0;
    while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      if (X509_STORE_add_cert(store.get(), cert) == 1) ++added;
      X509_free(cert);
    }
    if (added == 0) {
      return Status::Invalid("the certificate authority data holds no PEM certificate");
    }
    client.set_ca_cert_store(store.release());  // the client's SSL context owns it
    // Only this CA, as kubectl trusts only its kubeconfig's: with no CA path
    // set, httplib adds the system's default CA bundle to the store on the
    // first connection (which also cost ~30 ms of PEM decoding per client).
    // A directory lookup is lazy, and there is nothing under this one.
    client.set_ca_cert_path(std::string(), kNoCaDirectory);
  }
  if (!token.empty()) client.set_bearer_token_auth(token);
  return Status::Ok();
}

}  // namespace kuota::server
