// CaStoreFromPem: the CA certificates of a PEM bundle (a caBundle, a client
// CA file) as an OpenSSL certificate store, to verify a peer against. Pure
// function; thread-safe.
#pragma once

#include <openssl/x509.h>

#include <memory>
#include <string_view>

namespace kuota::auth {

struct X509StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
using CaStorePtr = std::unique_ptr<X509_STORE, X509StoreFree>;

// Null when the bundle holds no certificate.
CaStorePtr CaStoreFromPem(std::string_view pem);

}  // namespace kuota::auth
