#include "auth/tls_material.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "base/private_file.h"

namespace kuota::auth {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;

constexpr long kDay = 24 * 60 * 60;

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Key NewKey() { return Key(EVP_EC_gen("P-256")); }

std::string KeyPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string CertPem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Key KeyFromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

Cert CertFromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

Result<Key> ParseKey(const std::string& path) {
  KUOTA_ASSIGN_OR_RETURN(std::string pem, ReadFile(path));
  Key key = KeyFromPem(pem);
  if (!key)
    return Status::Invalid(path + " holds no PEM private key; remove it to generate a new one");
  return key;
}

Result<Cert> ParseCert(const std::string& path) {
  KUOTA_ASSIGN_OR_RETURN(std::string pem, ReadFile(path));
  Cert cert = CertFromPem(pem);
  if (!cert)
    return Status::Invalid(path + " holds no PEM certificate; remove it to generate a new one");
  return cert;
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

// A certificate for `subject_key` named `cn`, signed by `issuer_key` (itself
// when `issuer` is null: the CA).
Result<Cert> MakeCert(EVP_PKEY* subject_key, const std::string& cn, X509* issuer,
                      EVP_PKEY* issuer_key, long days, const std::string& san,
                      const char* usage = "serverAuth") {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof(serial));
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kDay);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * kDay);
  X509_set_pubkey(cert.get(), subject_key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("kuota"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (issuer == nullptr) {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    ok &= AddExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok &= AddExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    ok &= AddExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    ok &= AddExtension(cert.get(), signer, NID_ext_key_usage, usage);
    if (!san.empty()) ok &= AddExtension(cert.get(), signer, NID_subject_alt_name, san);
  }
  if (!ok) return Status::Internal("cannot build the " + cn + " certificate's extensions");
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return Status::Internal("cannot sign the " + cn + " certificate");
  }
  return cert;
}

bool IsIp(const std::string& host) {
  return host.find(':') != std::string::npos ||
         host.find_first_not_of("0123456789.") == std::string::npos;
}

// The subjectAltName value for `hosts`; with `local`, also localhost,
// 127.0.0.1, ::1 and this host's name.
std::string SubjectAltNames(const std::vector<std::string>& hosts, bool local = true) {
  std::string san;
  if (local) {
    san = "DNS:localhost,IP:127.0.0.1,IP:::1";
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
      san += ",DNS:" + std::string(name);
    }
  }
  for (const std::string& h : hosts) {
    if (h.empty() || h == "0.0.0.0" || h == "::" || h.find(',') != std::string::npos) continue;
    san += (san.empty() ? "" : ",") + std::string(IsIp(h) ? "IP:" : "DNS:") + h;
  }
  return san;
}

// Whether `cert` covers every one of `hosts`.
bool Covers(X509* cert, const std::vector<std::string>& hosts) {
  bool covers = true;
  for (const std::string& h : hosts) {
    if (h.empty() || h == "0.0.0.0" || h == "::") continue;
    covers &= IsIp(h) ? X509_check_ip_asc(cert, h.c_str(), 0) == 1
                      : X509_check_host(cert, h.c_str(), h.size(), 0, nullptr) == 1;
  }
  return covers;
}

// Whether `cert` is valid now and for 30 days or more.
bool LastsAMonth(X509* cert) {
  if (X509_cmp_time(X509_get0_notAfter(cert), nullptr) <= 0) return false;
  time_t soon = ::time(nullptr) + 30 * kDay;
  return X509_cmp_time(X509_get0_notAfter(cert), &soon) > 0;
}

}  // namespace

Result<TlsFiles> EnsureTlsMaterial(const std::string& dir, const std::vector<std::string>& hosts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Unavailable("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  TlsFiles files{dir + "/ca.crt", dir + "/server.crt", dir + "/server.key", ""};
  const std::string ca_key_path = dir + "/ca.key";

  Key ca_key;
  Cert ca;
  if (std::filesystem::exists(files.ca_cert) || std::filesystem::exists(ca_key_path)) {
    KUOTA_ASSIGN_OR_RETURN(ca_key, ParseKey(ca_key_path));
    KUOTA_ASSIGN_OR_RETURN(ca, ParseCert(files.ca_cert));
    if (X509_check_private_key(ca.get(), ca_key.get()) != 1) {
      return Status::Invalid(ca_key_path + " is not the key of " + files.ca_cert);
    }
  } else {
    ca_key = NewKey();
    if (!ca_key) return Status::Internal("cannot generate the CA key");
    KUOTA_ASSIGN_OR_RETURN(ca, MakeCert(ca_key.get(), "kuota-ca", nullptr, ca_key.get(), 3650, ""));
    KUOTA_RETURN_IF_ERROR(WriteFileAtomically(ca_key_path, KeyPem(ca_key.get()), 0600));
    KUOTA_RETURN_IF_ERROR(WriteFileAtomically(files.ca_cert, CertPem(ca.get()), 0644));
  }
  files.ca_pem = CertPem(ca.get());

  const std::string san = SubjectAltNames(hosts);
  bool fresh = false;
  if (std::filesystem::exists(files.server_cert) && std::filesystem::exists(files.server_key)) {
    KUOTA_ASSIGN_OR_RETURN(Key key, ParseKey(files.server_key));
    KUOTA_ASSIGN_OR_RETURN(Cert cert, ParseCert(files.server_cert));
    // Still good: signed by this CA, for this key, 30 days or more left, and
    // for every name asked for now.
    fresh = Covers(cert.get(), hosts) && X509_verify(cert.get(), ca_key.get()) == 1 &&
            X509_check_private_key(cert.get(), key.get()) == 1 && LastsAMonth(cert.get());
  }
  if (!fresh) {
    Key key = NewKey();
    if (!key) return Status::Internal("cannot generate the server key");
    KUOTA_ASSIGN_OR_RETURN(Cert cert,
                           MakeCert(key.get(), "kuotad", ca.get(), ca_key.get(), 365, san));
    KUOTA_RETURN_IF_ERROR(WriteFileAtomically(files.server_key, KeyPem(key.get()), 0600));
    KUOTA_RETURN_IF_ERROR(WriteFileAtomically(files.server_cert, CertPem(cert.get()), 0644));
  }
  return files;
}

Result<TlsPem> GenerateTlsPem(const std::vector<std::string>& hosts) {
  const std::string san = SubjectAltNames(hosts, /*local=*/false);
  if (san.empty()) return Status::Invalid("a server certificate needs at least one host name");
  Key ca_key = NewKey();
  Key key = NewKey();
  if (!ca_key || !key) return Status::Internal("cannot generate an ECDSA P-256 key");
  KUOTA_ASSIGN_OR_RETURN(Cert ca,
                         MakeCert(ca_key.get(), "kuota-ca", nullptr, ca_key.get(), 3650, ""));
  KUOTA_ASSIGN_OR_RETURN(Cert cert,
                         MakeCert(key.get(), "kuotad", ca.get(), ca_key.get(), 365, san));
  return TlsPem{CertPem(ca.get()), KeyPem(ca_key.get()), CertPem(cert.get()), KeyPem(key.get())};
}

Result<ClientPem> GenerateClientPem(const std::string& ca_name, const std::string& cn) {
  if (cn.empty()) return Status::Invalid("a client certificate needs a common name");
  Key ca_key = NewKey();
  Key key = NewKey();
  if (!ca_key || !key) return Status::Internal("cannot generate an ECDSA P-256 key");
  KUOTA_ASSIGN_OR_RETURN(Cert ca, MakeCert(ca_key.get(), ca_name, nullptr, ca_key.get(), 3650, ""));
  KUOTA_ASSIGN_OR_RETURN(Cert cert,
                         MakeCert(key.get(), cn, ca.get(), ca_key.get(), 365, "", "clientAuth"));
  return ClientPem{CertPem(ca.get()), CertPem(cert.get()), KeyPem(key.get())};
}

Status CheckTlsPem(const TlsPem& pem, const std::vector<std::string>& hosts) {
  Cert ca = CertFromPem(pem.ca_cert);
  Key ca_key = KeyFromPem(pem.ca_key);
  Cert cert = CertFromPem(pem.server_cert);
  Key key = KeyFromPem(pem.server_key);
  if (!ca || !ca_key || !cert || !key) {
    return Status::Invalid("ca.crt, ca.key, tls.crt and tls.key are not all PEM");
  }
  if (X509_check_private_key(ca.get(), ca_key.get()) != 1) {
    return Status::Invalid("ca.key is not the key of ca.crt");
  }
  if (X509_verify(cert.get(), ca_key.get()) != 1) {
    return Status::Invalid("tls.crt is not signed by ca.crt");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return Status::Invalid("tls.key is not the key of tls.crt");
  }
  if (!Covers(cert.get(), hosts)) return Status::Invalid("tls.crt does not cover every host name");
  if (!LastsAMonth(cert.get()) || !LastsAMonth(ca.get())) {
    return Status::Invalid("tls.crt or ca.crt expires within 30 days");
  }
  return Status::Ok();
}

}  // namespace kuota::auth
