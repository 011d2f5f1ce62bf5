// EnsureTlsMaterial: a CA and a server certificate generated once (keys
// 0600), reused afterwards, the server certificate signed by the CA and
// naming localhost; a damaged file is refused, never overwritten.
#include "auth/tls_material.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>

namespace kuota::auth {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

X509Ptr Load(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
}

TEST(TlsMaterialTest, GeneratesOnceAndVerifies) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "kuota-tls-test";
  std::filesystem::remove_all(dir);
  Result<TlsFiles> files = EnsureTlsMaterial(dir.string(), {"gpu-box.example", "10.1.2.3"});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  for (const char* key : {"ca.key", "server.key"}) {
    struct stat st {};
    ASSERT_EQ(stat((dir / key).c_str(), &st), 0) << key;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << key;
  }
  X509Ptr ca = Load(Read(files->ca_cert));
  X509Ptr server = Load(Read(files->server_cert));
  ASSERT_TRUE(ca && server);
  EXPECT_EQ(files->ca_pem, Read(files->ca_cert));
  // Signed by the CA, for the names a client dials.
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> ca_key(X509_get_pubkey(ca.get()),
                                                             &EVP_PKEY_free);
  EXPECT_EQ(X509_verify(server.get(), ca_key.get()), 1);
  EXPECT_EQ(X509_check_host(server.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(server.get(), "gpu-box.example", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(server.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(server.get(), "10.1.2.3", 0), 1);
  EXPECT_NE(X509_check_host(server.get(), "elsewhere.example", 0, 0, nullptr), 1);

  // A second start reuses what is there.
  std::string server_pem = Read(files->server_cert);
  Result<TlsFiles> again = EnsureTlsMaterial(dir.string(), {"gpu-box.example", "10.1.2.3"});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Read(again->server_cert), server_pem);

  // A damaged CA is refused by name and left alone.
  { std::ofstream((dir / "ca.crt").string(), std::ios::trunc) << "garbage"; }
  Result<TlsFiles> broken = EnsureTlsMaterial(dir.string(), {});
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().ToString().find("ca.crt"), std::string::npos)
      << broken.status().ToString();
  EXPECT_EQ(Read((dir / "ca.crt").string()), "garbage");
  std::filesystem::remove_all(dir);
}

TEST(TlsMaterialTest, InMemoryMaterialForServiceNames) {
  const std::vector<std::string> names = {"kuota-webhook-service.kuota-system.svc",
                                          "kuota-webhook-service.kuota-system.svc.cluster.local"};
  Result<TlsPem> pem = GenerateTlsPem(names);
  ASSERT_TRUE(pem.ok()) << pem.status().message();
  EXPECT_TRUE(CheckTlsPem(*pem, names).ok());
  X509Ptr cert = Load(pem->server_cert);
  ASSERT_TRUE(cert);
  EXPECT_EQ(X509_check_host(cert.get(), names[0].c_str(), names[0].size(), 0, nullptr), 1);
  // Only the names asked for: not localhost.
  EXPECT_NE(X509_check_host(cert.get(), "localhost", 9, 0, nullptr), 1);

  Status other_name = CheckTlsPem(*pem, {"other.kuota-system.svc"});
  EXPECT_NE(other_name.message().find("does not cover"), std::string::npos);
  Result<TlsPem> second = GenerateTlsPem(names);
  ASSERT_TRUE(second.ok());
  TlsPem mixed = *pem;
  mixed.server_cert = second->server_cert;  // another CA's certificate
  EXPECT_NE(CheckTlsPem(mixed, names).message().find("not signed by ca.crt"), std::string::npos);
  mixed = *pem;
  mixed.server_key = second->server_key;
  EXPECT_NE(CheckTlsPem(mixed, names).message().find("tls.key is not the key"), std::string::npos);
  mixed = *pem;
  mixed.ca_key = "";
  EXPECT_NE(CheckTlsPem(mixed, names).message().find("not all PEM"), std::string::npos);
  EXPECT_FALSE(GenerateTlsPem({}).ok());
}

}  // namespace
}  // namespace kuota::auth
