// The API aggregation layer over real HTTPS: an APIService's group proxied to
// a TLS backend found through a Service and its Endpoints, verified with the
// caBundle, with the user in X-Remote-User / X-Remote-Group and the proxy's
// client certificate; discovery; kube-apiserver's validation and its
// 503s when the Service cannot be resolved or trusted.
#include "server/aggregator.h"

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <mutex>
#include <string>
#include <thread>

#include "auth/base64.h"
#include "auth/tls_material.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

using ::kuota::server::testing::ExpectStatus;
using ::kuota::server::testing::Reply;
using ::kuota::server::testing::ServerTest;

constexpr char kBackendHost[] = "backend.ns.svc";
constexpr char kApiServices[] = "/apis/apiregistration.k8s.io/v1/apiservices";

int AcceptAnyAggregatorClient(int, X509_STORE_CTX*) { return 1; }

// An HTTPS server standing in for an extension API server: records what the
// last request carried and answers a fixed APIResourceList or a JSON echo.
class Backend {
 public:
  explicit Backend(const auth::TlsPem& pem) {
    std::unique_ptr<BIO, decltype(&BIO_free)> cb(
        BIO_new_mem_buf(pem.server_cert.data(), static_cast<int>(pem.server_cert.size())),
        &BIO_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> kb(
        BIO_new_mem_buf(pem.server_key.data(), static_cast<int>(pem.server_key.size())), &BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> cert(
        PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr), &X509_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
    server_ = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
    SSL_CTX_set_verify(server_->ssl_context(), SSL_VERIFY_PEER, &AcceptAnyAggregatorClient);
    server_->Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mu_);
      user_ = req.get_header_value("X-Remote-User");
      groups_.clear();
      auto range = req.headers.equal_range("X-Remote-Group");
      for (auto it = range.first; it != range.second; ++it) groups_ += it->second + ";";
      x_ = req.get_param_value("x");
      client_cn_.clear();
      if (X509* peer = req.ssl != nullptr ? SSL_get0_peer_certificate(req.ssl) : nullptr) {
        char cn[256] = {0};
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
        client_cn_ = cn;
      }
      if (req.path == "/apis/example.test/v1") {
        res.set_content(R"({"kind":"APIResourceList","apiVersion":"v1",
          "groupVersion":"example.test/v1","resources":[
          {"name":"things","singularName":"thing","namespaced":false,"kind":"Thing","verbs":["get"]},
          {"name":"things/status","singularName":"","namespaced":false,"kind":"Thing","verbs":["get"]}]})",
                        "application/json");
        return;
      }
      res.status = 201;
      res.set_content(R"({"path":")" + req.path + R"("})", "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~Backend() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string Seen() {
    std::lock_guard lock(mu_);
    return user_ + "|" + groups_ + "|" + x_ + "|" + client_cn_;
  }

 private:
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::string user_, groups_, x_, client_cn_;
};

class AggregatorTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    AggregatorOptions options;
    // Off unless a test wants it: its discovery calls would race what the
    // backend records.
    options.availability_interval_ms = availability_interval_ms_;
    server.aggregation = options;
  }
  void SetUp() override {
    ServerTest::SetUp();
    Result<auth::TlsPem> pem = auth::GenerateTlsPem({kBackendHost});
    ASSERT_TRUE(pem.ok()) << pem.status().ToString();
    pem_ = *pem;
    backend_ = std::make_unique<Backend>(pem_);
    ASSERT_EQ(Post("/api/v1/namespaces", testing::Namespace("ns")).status, 201);
    Reply svc = Post("/api/v1/namespaces/ns/services",
                     {{"apiVersion", "v1"},
                      {"kind", "Service"},
                      {"metadata", {{"name", "backend"}}},
                      {"spec", {{"ports", {{{"name", "https"}, {"port", 443}}}}}}});
    ASSERT_EQ(svc.status, 201) << svc.raw;
    Reply eps = Post("/api/v1/namespaces/ns/endpoints",
                     {{"apiVersion", "v1"},
                      {"kind", "Endpoints"},
                      {"metadata", {{"name", "backend"}}},
                      {"subsets",
                       {{{"addresses", {{{"ip", "127.0.0.1"}}}},
                         {"ports", {{{"name", "https"}, {"port", backend_->port()}}}}}}}});
    ASSERT_EQ(eps.status, 201) << eps.raw;
  }
  void TearDown() override {
    ServerTest::TearDown();
    backend_.reset();
  }
  Json ApiService(const std::string& ca_pem) const {
    return {{"apiVersion", "apiregistration.k8s.io/v1"},
            {"kind", "APIService"},
            {"metadata", {{"name", "v1.example.test"}}},
            {"spec",
             {{"group", "example.test"},
              {"version", "v1"},
              {"groupPriorityMinimum", 100},
              {"versionPriority", 10},
              {"caBundle", auth::Base64Encode(ca_pem)},
              {"service", {{"name", "backend"}, {"namespace", "ns"}}}}}};
  }

  // The Available condition of v1.example.test: "STATUS REASON", once it is `want`.
  std::string AvailableOnce(const std::string& want) {
    std::string got;
    for (int i = 0; i < 100; ++i) {
      Reply r = Get(std::string(kApiServices) + "/v1.example.test");
      got.clear();
      const Json status = r.body.is_object() ? r.body.value("status", Json::object()) : Json();
      for (const Json& c :
           status.is_object() ? status.value("conditions", Json::array()) : Json::array()) {
        if (c["type"] == "Available")
          got = c["status"].get<std::string>() + " " + c["reason"].get<std::string>();
      }
      if (got == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return got;
  }

  int availability_interval_ms_ = 0;
  auth::TlsPem pem_;
  std::unique_ptr<Backend> backend_;
};

class AggregatorAvailabilityTest : public AggregatorTest {
 protected:
  AggregatorAvailabilityTest() { availability_interval_ms_ = 50; }
};

TEST_F(AggregatorAvailabilityTest, TheAvailableConditionFollowsTheService) {
  ASSERT_EQ(Post(kApiServices, ApiService(pem_.ca_cert)).status, 201);
  EXPECT_EQ(AvailableOnce("True Passed"), "True Passed");
  EXPECT_EQ(backend_->Seen(), "system:kube-aggregator|system:masters;||front-proxy-client")
      << "the discovery check runs as the aggregator";
  ASSERT_EQ(Delete("/api/v1/namespaces/ns/endpoints/backend").status, 200);
  EXPECT_EQ(AvailableOnce("False MissingEndpoints"), "False MissingEndpoints");
  ASSERT_EQ(Delete("/api/v1/namespaces/ns/services/backend").status, 200);
  EXPECT_EQ(AvailableOnce("False ServiceNotFound"), "False ServiceNotFound");
  // kubectl get apiservice: SERVICE and AVAILABLE columns, as kube-apiserver prints them.
  Reply table = Get(std::string(kApiServices) + "/v1.example.test",
                    "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200) << table.raw;
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "ns/backend");
  EXPECT_EQ(table.body["rows"][0]["cells"][2], "False (ServiceNotFound)");
}

TEST_F(AggregatorTest, ProxiesToTheServiceWithTheUserAndTheProxyCertificate) {
  Reply created = Post(kApiServices, ApiService(pem_.ca_cert));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["spec"]["service"]["port"], 443);  // defaulted

  Reply r = Get("/apis/example.test/v1/things/a?x=1%262");
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["path"], "/apis/example.test/v1/things/a");
  EXPECT_EQ(backend_->Seen(),
            "kuota-admin|system:masters;system:authenticated;|1&2|front-proxy-client");

  Reply group = Get("/apis/example.test");
  ASSERT_EQ(group.status, 200) << group.raw;
  EXPECT_EQ(group.body["kind"], "APIGroup");
  EXPECT_EQ(group.body["preferredVersion"]["groupVersion"], "example.test/v1");

  Reply apis = Get("/apis");
  bool listed = false, visibility = false;
  for (const Json& g : apis.body["groups"]) {
    listed |= g["name"] == "example.test";
    visibility |= g["name"] == "visibility.kueue.x-k8s.io";
  }
  EXPECT_TRUE(listed) << apis.raw;
  EXPECT_FALSE(visibility) << "only an APIService registers the visibility group here";
  Reply aggregated =
      Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  ASSERT_EQ(aggregated.status, 200);
  const Json& last = aggregated.body["items"].back();
  EXPECT_EQ(last["metadata"]["name"], "example.test");
  EXPECT_EQ(last["versions"][0]["freshness"], "Current");
  EXPECT_EQ(last["versions"][0]["resources"][0]["resource"], "things");
  EXPECT_EQ(last["versions"][0]["resources"][0]["subresources"][0]["subresource"], "status");

  // The proxy's client CA is published where extension API servers read it.
  Reply cm = Get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
  ASSERT_EQ(cm.status, 200) << cm.raw;
  EXPECT_NE(cm.raw.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_EQ(cm.body["data"]["requestheader-allowed-names"], R"(["front-proxy-client"])");
  EXPECT_EQ(cm.body["data"]["requestheader-username-headers"], R"(["X-Remote-User"])");
}

TEST_F(AggregatorTest, AnUntrustedOrUnresolvableServiceIs503) {
  Result<auth::TlsPem> other = auth::GenerateTlsPem({kBackendHost});
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(Post(kApiServices, ApiService(other->ca_cert)).status, 201);
  Reply r = Get("/apis/example.test/v1/things");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.raw.find("failed to verify certificate"), std::string::npos) << r.raw;
  EXPECT_EQ(backend_->Seen(), "|||") << "the untrusted backend got no request";

  ASSERT_EQ(Delete("/api/v1/namespaces/ns/endpoints/backend").status, 200);
  r = Get("/apis/example.test/v1/things");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.raw, "service unavailable\n");
  // No APIService for a version: 404 as for any unknown path.
  ExpectStatus(Get("/apis/example.test/v2/things"), 404, "NotFound");
  ExpectStatus(Get("/apis/nothing.test"), 404, "NotFound");
}

TEST_F(AggregatorTest, ApiServicesAreValidatedAsKubeApiserverDoes) {
  Json bad = ApiService(pem_.ca_cert);
  bad["metadata"]["name"] = "v2.example.test";
  bad["spec"]["versionPriority"] = 0;
  bad["spec"]["insecureSkipTLSVerify"] = true;
  bad["spec"]["service"].erase("namespace");
  Reply r = Post(kApiServices, bad);
  ExpectStatus(r, 422, "Invalid");
  const std::string m = r.body["message"];
  EXPECT_NE(
      m.find(
          R"(metadata.name: Invalid value: "v2.example.test": must be `spec.version+"."+spec.group`: "v1.example.test")"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("spec.versionPriority: Invalid value: 0: must be positive and less than 1000"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("spec.service.namespace: Required value"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle "
                   "is present"),
            std::string::npos)
      << m;

  Json local = ApiService("");
  local["spec"].erase("service");
  local["spec"]["caBundle"] = auth::Base64Encode("x");
  r = Post(kApiServices, local);
  ExpectStatus(r, 422, "Invalid");
  EXPECT_NE(r.raw.find("local APIServices may not have a caBundle"), std::string::npos) << r.raw;

  Json version = ApiService(pem_.ca_cert);
  version["metadata"]["name"] = "1.example.test";
  version["spec"]["version"] = "1";
  r = Post(kApiServices, version);
  ExpectStatus(r, 422, "Invalid");
  EXPECT_NE(r.raw.find(R"(spec.version: Invalid value: \"1\": a DNS-1035 label)"),
            std::string::npos)
      << r.raw;

  Reply svc = Post("/api/v1/namespaces/ns/services", {{"apiVersion", "v1"},
                                                      {"kind", "Service"},
                                                      {"metadata", {{"name", "s"}}},
                                                      {"spec", {{"ports", {{{"port", 70000}}}}}}});
  ExpectStatus(svc, 422, "Invalid");
  EXPECT_NE(svc.raw.find("spec.ports[0].port: Invalid value: 70000"), std::string::npos) << svc.raw;
}

}  // namespace
}  // namespace kuota::server
