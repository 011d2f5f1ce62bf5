// CrdWebhookConversion against a real HTTPS webhook on loopback (httplib's
// SSLServer with a certificate from auth::GenerateTlsPem): which CRDs send
// objects to a webhook, what is sent, and that every kind of bad answer or
// untrusted server fails the conversion instead of being taken as converted.
#include "server/crd_webhook_conversion.h"

#include <fstream>
#include <functional>
#include <mutex>

#include "auth/base64.h"
#include "auth/tls_material.h"
#include "server/resource_info.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

using testing::Json;

constexpr const char* kCrds = "customresourcedefinitions.apiextensions.k8s.io";

// A conversion webhook whose answer each test chooses.
class FakeWebhook {
 public:
  // Serves with `pem`'s server certificate and key, read from files as
  // httplib reads them.
  explicit FakeWebhook(const auth::TlsPem& pem) {
    const std::string cert = pem_dir_.File("server.crt"), key = pem_dir_.File("server.key");
    std::ofstream(cert) << pem.server_cert;
    std::ofstream(key) << pem.server_key;
    server_ = std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str());
    server_->Post("/convert", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      reviews_.push_back(Json::parse(req.body));
      res.set_content(answer_(reviews_.back()).dump(), "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // stop() before the loop runs would be lost (and the join wait forever).
    while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeWebhook() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  void Answer(std::function<Json(const Json&)> answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(answer);
  }
  std::vector<Json> reviews() {
    std::lock_guard<std::mutex> lock(mu_);
    return reviews_;
  }

 private:
  kuota::testing::TempDir pem_dir_{"kuota-webhook-pem"};
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::function<Json(const Json&)> answer_;
  std::vector<Json> reviews_;
};

// A webhook that converts by relabelling apiVersion (and renaming cohort).
Json Converting(const Json& review) {
  Json out = Json::array();
  for (Json o : review["request"]["objects"]) {
    o["apiVersion"] = review["request"]["desiredAPIVersion"];
    if (o.contains("spec") && o["spec"].contains("cohort")) {
      o["spec"]["cohortName"] = o["spec"]["cohort"];
      o["spec"].erase("cohort");
    }
    out.push_back(o);
  }
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "ConversionReview"},
          {"response",
           {{"uid", review["request"]["uid"]},
            {"convertedObjects", out},
            {"result", {{"status", "Success"}}}}}};
}

class CrdWebhookConversionTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    Result<auth::TlsPem> pem = auth::GenerateTlsPem({"127.0.0.1", "hook.ns.svc"});
    ASSERT_TRUE(pem.ok());
    pem_ = *pem;
    webhook_ = std::make_unique<FakeWebhook>(pem_);
    webhook_->Answer(Converting);
    cq_v2_ = FindResource("kueue.x-k8s.io", "v1beta2", "clusterqueues");
    ASSERT_NE(cq_v2_, nullptr);
  }
  void TearDown() override {
    webhook_.reset();
    ServerTest::TearDown();
  }
  // Applies the ClusterQueue CRD with `conversion`.
  void ApplyCrd(const Json& conversion) {
    Json crd = {{"apiVersion", "apiextensions.k8s.io/v1"},
                {"kind", "CustomResourceDefinition"},
                {"metadata", {{"name", "clusterqueues.kueue.x-k8s.io"}}},
                {"spec", {{"group", "kueue.x-k8s.io"}, {"conversion", conversion}}}};
    (void)store_->Delete(kCrds, "", "clusterqueues.kueue.x-k8s.io");
    ASSERT_TRUE(store_->Create(kCrds, crd).ok());
  }
  Json UrlWebhook(const std::string& ca_pem) {
    return {{"strategy", "Webhook"},
            {"webhook",
             {{"conversionReviewVersions", {"v1"}},
              {"clientConfig",
               {{"url", "https://127.0.0.1:" + std::to_string(webhook_->port()) + "/convert"},
                {"caBundle", auth::Base64Encode(ca_pem)}}}}}};
  }
  static Json V1Queue(const std::string& name) {
    return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
            {"kind", "ClusterQueue"},
            {"metadata", {{"name", name}, {"uid", "uid-" + name}}},
            {"spec", {{"cohort", "all"}}}};
  }
  // Converts one v1beta1 queue to v1beta2; the status, and the object.
  std::pair<std::optional<Status>, Json> ConvertOne() {
    CrdWebhookConversion conversion(*store_, CrdWebhookOptions{});
    std::vector<Json> objects = {V1Queue("a")};
    std::optional<Status> st = conversion.Convert(*cq_v2_, objects, "v1beta2");
    return {st, objects[0]};
  }

  auth::TlsPem pem_;
  std::unique_ptr<FakeWebhook> webhook_;
  const ResourceInfo* cq_v2_ = nullptr;
};

TEST_F(CrdWebhookConversionTest, NoCrdOrNoWebhookKeepsTheBuiltInConversion) {
  auto [none, _] = ConvertOne();
  EXPECT_FALSE(none.has_value());
  ApplyCrd({{"strategy", "None"}});
  auto [strategy_none, obj] = ConvertOne();
  EXPECT_FALSE(strategy_none.has_value());
  EXPECT_EQ(obj, V1Queue("a"));  // untouched
  EXPECT_TRUE(webhook_->reviews().empty());
}

TEST_F(CrdWebhookConversionTest, SendsOnlyObjectsNotYetInTheDesiredVersion) {
  ApplyCrd(UrlWebhook(pem_.ca_cert));
  CrdWebhookConversion conversion(*store_, CrdWebhookOptions{});
  Json already = V1Queue("b");
  already["apiVersion"] = "kueue.x-k8s.io/v1beta2";
  std::vector<Json> objects = {V1Queue("a"), already, V1Queue("c")};
  std::optional<Status> st = conversion.Convert(*cq_v2_, objects, "v1beta2");
  ASSERT_TRUE(st.has_value());
  ASSERT_TRUE(st->ok()) << st->message();
  ASSERT_EQ(webhook_->reviews().size(), 1u);
  const Json review = webhook_->reviews()[0];
  EXPECT_EQ(review["apiVersion"], "apiextensions.k8s.io/v1");
  EXPECT_EQ(review["kind"], "ConversionReview");
  EXPECT_EQ(review["request"]["desiredAPIVersion"], "kueue.x-k8s.io/v1beta2");
  EXPECT_FALSE(review["request"]["uid"].get<std::string>().empty());
  ASSERT_EQ(review["request"]["objects"].size(), 2u);
  EXPECT_EQ(review["request"]["objects"][1]["metadata"]["name"], "c");
  EXPECT_EQ(objects[0]["spec"]["cohortName"], "all");
  EXPECT_EQ(objects[1], already);
  EXPECT_EQ(objects[2]["apiVersion"], "kueue.x-k8s.io/v1beta2");
  // Nothing to convert: no call at all.
  std::vector<Json> done = {already};
  ASSERT_TRUE(conversion.Convert(*cq_v2_, done, "v1beta2")->ok());
  EXPECT_EQ(webhook_->reviews().size(), 1u);
}

TEST_F(CrdWebhookConversionTest, ServiceIsReachedAtTheGivenAddressAndVerifiedByItsName) {
  Json conversion = {{"strategy", "Webhook"},
                     {"webhook",
                      {{"clientConfig",
                        {{"service",
                          {{"namespace", "ns"},
                           {"name", "hook"},
                           {"path", "/convert"},
                           {"port", webhook_->port()}}},
                         {"caBundle", auth::Base64Encode(pem_.ca_cert)}}}}}};
  ApplyCrd(conversion);
  auto [st, obj] = ConvertOne();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(st->ok()) << st->message();
  EXPECT_EQ(obj["spec"]["cohortName"], "all");
  // Named as another Service, the same certificate does not verify.
  conversion["webhook"]["clientConfig"]["service"]["name"] = "other";
  ApplyCrd(conversion);
  auto [wrong_name, unchanged] = ConvertOne();
  ASSERT_TRUE(wrong_name.has_value());
  EXPECT_NE(wrong_name->message().find("certificate"), std::string::npos) << wrong_name->message();
  EXPECT_EQ(unchanged, V1Queue("a"));
}

TEST_F(CrdWebhookConversionTest, BadAnswersAndUntrustedServersFail) {
  Result<auth::TlsPem> other = auth::GenerateTlsPem({"127.0.0.1"});
  ASSERT_TRUE(other.ok());
  struct Case {
    const char* name;
    std::string ca;
    std::function<Json(const Json&)> answer;
    const char* needle;
  } cases[] = {
      {"another CA", other->ca_cert, Converting, "certificate signed by unknown authority"},
      {"Failure result", pem_.ca_cert,
       [](const Json& r) {
         Json a = Converting(r);
         a["response"]["result"] = {{"status", "Failure"}, {"message", "no form in v1beta2"}};
         return a;
       },
       "no form in v1beta2"},
      {"wrong uid", pem_.ca_cert,
       [](const Json& r) {
         Json a = Converting(r);
         a["response"]["uid"] = "someone-else";
         return a;
       },
       "got someone-else"},
      {"too few objects", pem_.ca_cert,
       [](const Json& r) {
         Json a = Converting(r);
         a["response"]["convertedObjects"] = Json::array();
         return a;
       },
       "expected 1 converted objects, got 0"},
      {"not converted", pem_.ca_cert,
       [](const Json& r) {
         Json a = Converting(r);
         a["response"]["convertedObjects"][0]["apiVersion"] = "kueue.x-k8s.io/v1beta1";
         return a;
       },
       "expected kueue.x-k8s.io/v1beta2, Kind=ClusterQueue"},
      {"renamed", pem_.ca_cert,
       [](const Json& r) {
         Json a = Converting(r);
         a["response"]["convertedObjects"][0]["metadata"]["name"] = "b";
         return a;
       },
       "metadata.name changed"},
      {"not a review", pem_.ca_cert, [](const Json&) { return Json("hello"); },
       "not a ConversionReview"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ApplyCrd(UrlWebhook(c.ca));
    webhook_->Answer(c.answer);
    auto [st, obj] = ConvertOne();
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(st->code(), StatusCode::kInternal);
    EXPECT_NE(st->message().find("conversion webhook for kueue.x-k8s.io/v1beta1, "
                                 "Kind=ClusterQueue failed: "),
              std::string::npos)
        << st->message();
    EXPECT_NE(st->message().find(c.needle), std::string::npos) << st->message();
    EXPECT_EQ(obj, V1Queue("a"));
  }
}

TEST_F(CrdWebhookConversionTest, UnreachableWebhookSaysConnectionRefused) {
  Json conversion = UrlWebhook(pem_.ca_cert);
  const int port = webhook_->port();
  webhook_.reset();  // nothing listens there now
  conversion["webhook"]["clientConfig"]["url"] =
      "https://127.0.0.1:" + std::to_string(port) + "/convert";
  ApplyCrd(conversion);
  auto [st, obj] = ConvertOne();
  ASSERT_TRUE(st.has_value());
  EXPECT_NE(st->message().find("connect: connection refused"), std::string::npos) << st->message();
  webhook_ = std::make_unique<FakeWebhook>(pem_);  // for TearDown
}

}  // namespace
}  // namespace kuota::server
