#include "auth/ca_store.h"

#include <openssl/bio.h>
#include <openssl/pem.h>

namespace kuota::auth {

CaStorePtr CaStoreFromPem(std::string_view pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio.get(), nullptr, nullptr, nullptr);
  if (infos == nullptr) return nullptr;
  CaStorePtr store(X509_STORE_new());
  int added = 0;
  for (int i = 0; i < sk_X509_INFO_num(infos); ++i) {
    X509_INFO* info = sk_X509_INFO_value(infos, i);
    if (info->x509 != nullptr && X509_STORE_add_cert(store.get(), info->x509) == 1) ++added;
  }
  sk_X509_INFO_pop_free(infos, X509_INFO_free);
  if (added == 0) return nullptr;
  return store;
}

}  // namespace kuota::auth
