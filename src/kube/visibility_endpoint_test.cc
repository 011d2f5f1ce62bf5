// The driver's visibility API over real HTTPS on the webhook server: answered
// only for a client certificate of the requestheader CA with an allowed
// common name and a user header (401 otherwise), from the leader's source
// (503 while this replica does not lead); /convert still needs no
// certificate.
#include "kube/visibility_endpoint.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>

#include <string>

#include <httplib.h>

#include "auth/tls_material.h"
#include "kube/conversion_webhook.h"

namespace kuota::kube {
namespace {

using Json = nlohmann::json;

constexpr char kVisibilityHost[] = "kuota-webhook-service.kuota-system.svc";

class OneQueueSource : public server::PendingWorkloadsSource {
 public:
  Result<std::vector<server::PendingWorkloadInfo>> ForClusterQueue(const std::string& cq) override {
    if (cq != "cq") return Status::NotFound("clusterqueue " + cq);
    return std::vector<server::PendingWorkloadInfo>{
        {"team-a", "wl-1", "lq", "2026-01-01T00:00:00Z", 5, 0, 0},
        {"team-b", "wl-2", "lq", "2026-01-01T00:00:01Z", 1, 1, 0}};
  }
  Result<std::vector<server::PendingWorkloadInfo>> ForLocalQueue(const std::string&,
                                                                 const std::string&) override {
    return Status::NotFound("localqueue");
  }
};

// PEM text into what httplib's SSLClient takes; frees both at the end.
struct VisibilityClientIdentity {
  std::unique_ptr<X509, decltype(&X509_free)> cert{nullptr, &X509_free};
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, &EVP_PKEY_free};
};
VisibilityClientIdentity VisibilityIdentity(const auth::ClientPem& pem) {
  VisibilityClientIdentity id;
  std::unique_ptr<BIO, decltype(&BIO_free)> cb(
      BIO_new_mem_buf(pem.cert.data(), static_cast<int>(pem.cert.size())), &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> kb(
      BIO_new_mem_buf(pem.key.data(), static_cast<int>(pem.key.size())), &BIO_free);
  id.cert.reset(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
  id.key.reset(PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
  return id;
}

class VisibilityEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<auth::TlsPem> pem = auth::GenerateTlsPem({kVisibilityHost});
    ASSERT_TRUE(pem.ok()) << pem.status().ToString();
    serving_ = *pem;
    Result<auth::ClientPem> proxy = auth::GenerateClientPem("front-proxy-ca", "front-proxy-client");
    ASSERT_TRUE(proxy.ok());
    proxy_ = *proxy;
    RequestHeaderConfig config;
    config.client_ca_pem = proxy_.ca_cert;
    config.allowed_names = {"front-proxy-client"};
    Result<std::unique_ptr<RequestHeaderAuthenticator>> auth =
        RequestHeaderAuthenticator::Create(config);
    ASSERT_TRUE(auth.ok()) << auth.status().ToString();
    endpoint_ = std::make_unique<VisibilityEndpoint>(std::move(*auth), leader_);
    ASSERT_TRUE(
        webhook_
            .Start("127.0.0.1", 0, serving_, [this](httplib::Server& s) { endpoint_->Register(s); })
            .ok());
  }
  void TearDown() override { webhook_.Stop(); }

  // GET `path` as `who` (null: no client certificate) with `user` in X-Remote-User.
  httplib::Result Get(const std::string& path, const auth::ClientPem* who,
                      const std::string& user = "alice") {
    VisibilityClientIdentity id;
    if (who != nullptr) id = VisibilityIdentity(*who);
    httplib::SSLClient client(kVisibilityHost, webhook_.port(), id.cert.get(), id.key.get());
    client.set_hostname_addr_map({{kVisibilityHost, "127.0.0.1"}});
    X509_STORE* store = X509_STORE_new();
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(serving_.ca_cert.data(), static_cast<int>(serving_.ca_cert.size())),
        &BIO_free);
    X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    X509_STORE_add_cert(store, ca);
    X509_free(ca);
    client.set_ca_cert_store(store);
    client.enable_server_certificate_verification(true);
    httplib::Headers headers;
    if (!user.empty()) headers.emplace("X-Remote-User", user);
    return client.Get(path.c_str(), headers);
  }

  auth::TlsPem serving_;
  auth::ClientPem proxy_;
  OneQueueSource source_;
  LeaderPendingWorkloads leader_;
  std::unique_ptr<VisibilityEndpoint> endpoint_;
  ConversionWebhook webhook_;
};

constexpr char kVisibilityCqPath[] =
    "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads?limit=1&offset=1";

TEST_F(VisibilityEndpointTest, TheAggregatorsCertificateIsAnsweredFromTheLeader) {
  httplib::Result r = Get(kVisibilityCqPath, &proxy_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503) << "no leader attached yet: " << r->body;
  EXPECT_NE(r->body.find("does not lead"), std::string::npos) << r->body;

  leader_.Attach(source_);
  r = Get(kVisibilityCqPath, &proxy_);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  Json body = Json::parse(r->body);
  EXPECT_EQ(body["apiVersion"], "visibility.kueue.x-k8s.io/v1beta2");
  ASSERT_EQ(body["items"].size(), 1u);
  EXPECT_EQ(body["items"][0]["metadata"]["name"], "wl-2");
  EXPECT_EQ(body["items"][0]["positionInClusterQueue"], 1);
  r = Get("/apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/nope/pendingworkloads", &proxy_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  leader_.Detach();
  r = Get(kVisibilityCqPath, &proxy_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
}

TEST_F(VisibilityEndpointTest, AnyOtherCallerIsRefused) {
  leader_.Attach(source_);
  auto status_of = [](const httplib::Result& r) { return r ? r->status : -1; };
  EXPECT_EQ(status_of(Get(kVisibilityCqPath, nullptr)), 401) << "no client certificate";
  Result<auth::ClientPem> other_ca = auth::GenerateClientPem("other-ca", "front-proxy-client");
  ASSERT_TRUE(other_ca.ok());
  EXPECT_EQ(status_of(Get(kVisibilityCqPath, &*other_ca)), 401) << "another CA, the allowed name";
  EXPECT_EQ(status_of(Get(kVisibilityCqPath, &proxy_, "")), 401) << "no X-Remote-User";
  httplib::Result r = Get(kVisibilityCqPath, nullptr);
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("no client certificate"), std::string::npos) << r->body;

  // A certificate of the right CA whose name is not allowed.
  RequestHeaderConfig config;
  config.client_ca_pem = proxy_.ca_cert;
  config.allowed_names = {"someone-else"};
  Result<std::unique_ptr<RequestHeaderAuthenticator>> strict =
      RequestHeaderAuthenticator::Create(config);
  ASSERT_TRUE(strict.ok());
  webhook_.Stop();
  endpoint_ = std::make_unique<VisibilityEndpoint>(std::move(*strict), leader_);
  ASSERT_TRUE(
      webhook_
          .Start("127.0.0.1", 0, serving_, [this](httplib::Server& s) { endpoint_->Register(s); })
          .ok());
  r = Get(kVisibilityCqPath, &proxy_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(r->body.find("not among requestheader-allowed-names"), std::string::npos) << r->body;
}

TEST_F(VisibilityEndpointTest, TheUserIsAuthorizedAgainAsKueuesServerDoes) {
  leader_.Attach(source_);
  RequestHeaderConfig config;
  config.client_ca_pem = proxy_.ca_cert;
  Result<std::unique_ptr<RequestHeaderAuthenticator>> auth =
      RequestHeaderAuthenticator::Create(config);
  ASSERT_TRUE(auth.ok());
  std::vector<std::string> asked;
  webhook_.Stop();
  endpoint_ = std::make_unique<VisibilityEndpoint>(
      std::move(*auth), leader_,
      [&asked](const auth::UserInfo& user, const Json& a) -> Result<bool> {
        asked.push_back(user.name + " " + a.dump());
        if (user.name == "broken") return Status::Unavailable("no cluster");
        return user.name == "alice";
      });
  ASSERT_TRUE(
      webhook_
          .Start("127.0.0.1", 0, serving_, [this](httplib::Server& s) { endpoint_->Register(s); })
          .ok());
  httplib::Result r = Get(kVisibilityCqPath, &proxy_, "alice");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = Get(kVisibilityCqPath, &proxy_, "eve");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403) << r->body;
  EXPECT_NE(r->body.find("clusterqueues.visibility.kueue.x-k8s.io \\\"cq\\\" is forbidden: User "
                         "\\\"eve\\\" cannot get resource \\\"clusterqueues/pendingworkloads\\\""),
            std::string::npos)
      << r->body;
  r = Get("/apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/ns/localqueues/lq/pendingworkloads",
          &proxy_, "eve");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("in the namespace \\\"ns\\\""), std::string::npos) << r->body;
  r = Get(kVisibilityCqPath, &proxy_, "broken");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  // Discovery needs no review.
  r = Get("/apis/visibility.kueue.x-k8s.io/v1beta2", &proxy_, "eve");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  ASSERT_EQ(asked.size(), 4u);
  EXPECT_EQ(asked[0],
            R"(alice {"group":"visibility.kueue.x-k8s.io","name":"cq","resource":"clusterqueues",)"
            R"("subresource":"pendingworkloads","verb":"get","version":"v1beta2"})");
  EXPECT_EQ(asked[2], R"(eve {"group":"visibility.kueue.x-k8s.io","name":"lq","namespace":"ns",)"
                      R"("resource":"localqueues","subresource":"pendingworkloads","verb":"get",)"
                      R"("version":"v1beta1"})");
}

TEST_F(VisibilityEndpointTest, ConversionNeedsNoClientCertificate) {
  httplib::SSLClient client(kVisibilityHost, webhook_.port());
  client.set_hostname_addr_map({{kVisibilityHost, "127.0.0.1"}});
  client.enable_server_certificate_verification(false);
  httplib::Result r = client.Post(
      "/convert",
      R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u",
          "desiredAPIVersion":"kueue.x-k8s.io/v1beta2","objects":[]}})",
      "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("\"Success\""), std::string::npos) << r->body;
}

TEST(RequestHeaderAuthenticatorTest, ACaThatDoesNotParseIsInvalid) {
  RequestHeaderConfig config;
  config.client_ca_pem = "not a certificate";
  Result<std::unique_ptr<RequestHeaderAuthenticator>> auth =
      RequestHeaderAuthenticator::Create(config);
  ASSERT_FALSE(auth.ok());
  EXPECT_EQ(auth.status().code(), StatusCode::kInvalid);
  EXPECT_NE(auth.status().message().find("requestheader-client-ca-file"), std::string::npos);
}

}  // namespace
}  // namespace kuota::kube
