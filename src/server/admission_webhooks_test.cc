// AdmissionWebhooks through the API server, against real HTTPS webhooks on
// loopback (httplib's SSLServer with a certificate from
// auth::GenerateTlsPem): what an AdmissionReview carries, mutating patches
// and reinvocation, denials and their wrapped messages, failurePolicy on a
// webhook that is down, untrusted or slow, dryRun and sideEffects, rules,
// selectors and matchPolicy, and that webhook configurations are validated
// and never sent to webhooks.
#include "server/admission_webhooks.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>

#include "auth/base64.h"
#include "auth/tls_material.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

using testing::Json;

constexpr const char* kMutating =
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
constexpr const char* kValidating =
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

// Admission webhooks on one HTTPS port, each path answered as a test says.
class FakeAdmissionWebhooks {
 public:
  using Answer =
      std::function<Json(const Json& request)>;  // the AdmissionReview's request -> response

  explicit FakeAdmissionWebhooks(const auth::TlsPem& pem) {
    const std::string cert = dir_.File("server.crt"), key = dir_.File("server.key");
    std::ofstream(cert) << pem.server_cert;
    std::ofstream(key) << pem.server_key;
    server_ = std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str());
    server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      Answer answer;
      Json review = Json::parse(req.body);
      {
        std::lock_guard<std::mutex> lock(mu_);
        calls_[req.path].push_back(review);
        answer = answers_[req.path];
      }
      Json response = answer ? answer(review["request"]) : Json{{"allowed", true}};
      response["uid"] = review["request"]["uid"];
      Json out = {{"apiVersion", "admission.k8s.io/v1"},
                  {"kind", "AdmissionReview"},
                  {"response", response}};
      res.set_content(out.dump(), "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeAdmissionWebhooks() {
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  void On(const std::string& path, Answer answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answers_[path] = std::move(answer);
  }
  // The AdmissionReviews POSTed to `path`.
  std::vector<Json> Calls(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[path];
  }

 private:
  kuota::testing::TempDir dir_{"kuota-admission-pem"};
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::map<std::string, Answer> answers_;
  std::map<std::string, std::vector<Json>> calls_;
};

// A JSONPatch answer that adds label `key`=`value`.
Json AddLabel(const Json& request, const std::string& key, const std::string& value) {
  Json ops = Json::array();
  if (!request["object"]["metadata"].contains("labels")) {
    ops.push_back({{"op", "add"}, {"path", "/metadata/labels"}, {"value", Json::object()}});
  }
  ops.push_back({{"op", "add"}, {"path", "/metadata/labels/" + key}, {"value", value}});
  return {{"allowed", true}, {"patchType", "JSONPatch"}, {"patch", auth::Base64Encode(ops.dump())}};
}

Json ConfigMap(const std::string& name, Json labels = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"data", {{"k", "v"}}}};
}

class AdmissionWebhooksTest : public testing::ServerTest {
 protected:
  void Configure(store::StoreOptions& /*store*/, ServerOptions& server) override {
    server.admission_webhooks = WebhookCallOptions{};
  }
  void SetUp() override {
    Result<auth::TlsPem> pem = auth::GenerateTlsPem({"127.0.0.1", "hook.webhooks.svc"});
    ASSERT_TRUE(pem.ok());
    pem_ = *pem;
    hooks_ = std::make_unique<FakeAdmissionWebhooks>(pem_);
    ServerTest::SetUp();
  }
  void TearDown() override {
    ServerTest::TearDown();
    hooks_.reset();
  }
  // A webhook on `path` of the fake server, for `resources` of core v1.
  Json WebhookSpec(const std::string& name, const std::string& path,
                   Json resources = {"configmaps"}, Json operations = {"CREATE", "UPDATE"}) {
    return {{"name", name},
            {"admissionReviewVersions", {"v1"}},
            {"sideEffects", "None"},
            {"clientConfig",
             {{"url", "https://127.0.0.1:" + std::to_string(hooks_->port()) + path},
              {"caBundle", auth::Base64Encode(pem_.ca_cert)}}},
            {"rules",
             {{{"operations", std::move(operations)},
               {"apiGroups", {""}},
               {"apiVersions", {"v1"}},
               {"resources", std::move(resources)}}}}};
  }
  // Registers `hooks` in a configuration named `name` of `collection`.
  void Register(const char* collection, const std::string& name, std::vector<Json> hooks) {
    const bool mutating = std::string(collection) == kMutating;
    Json config = {
        {"apiVersion", "admissionregistration.k8s.io/v1"},
        {"kind", mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"},
        {"metadata", {{"name", name}}},
        {"webhooks", Json(std::move(hooks))}};
    testing::Reply r = Post(collection, config);
    ASSERT_EQ(r.status, 201) << r.raw;
  }

  auth::TlsPem pem_;
  std::unique_ptr<FakeAdmissionWebhooks> hooks_;
};

TEST_F(AdmissionWebhooksTest, MutatingPatchIsStoredAndTheReviewDescribesTheRequest) {
  hooks_->On("/label", [](const Json& req) { return AddLabel(req, "stamped", "yes"); });
  Register(kMutating, "m", {WebhookSpec("label.example.com", "/label")});
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"));
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["metadata"]["labels"]["stamped"], "yes");
  Result<Json> stored = store_->Get("configmaps", "default", "a");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((*stored)["metadata"]["labels"]["stamped"], "yes");

  std::vector<Json> calls = hooks_->Calls("/label");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(calls[0]["kind"], "AdmissionReview");
  const Json& req = calls[0]["request"];
  EXPECT_EQ(req["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(req["kind"], (Json{{"group", ""}, {"version", "v1"}, {"kind", "ConfigMap"}}));
  EXPECT_EQ(req["resource"], (Json{{"group", ""}, {"version", "v1"}, {"resource", "configmaps"}}));
  EXPECT_EQ(req["requestKind"], req["kind"]);
  EXPECT_EQ(req["operation"], "CREATE");
  EXPECT_EQ(req["name"], "a");
  EXPECT_EQ(req["namespace"], "default");
  EXPECT_EQ(req["object"]["data"]["k"], "v");
  EXPECT_TRUE(req["oldObject"].is_null());
  EXPECT_EQ(req["dryRun"], false);
  EXPECT_EQ(req["options"]["kind"], "CreateOptions");
  EXPECT_TRUE(req["userInfo"]["username"].is_string());
  EXPECT_FALSE(req.contains("subResource"));

  // An update sends the old object; the webhook's label is patched again.
  Json update = (*stored);
  update["data"]["k"] = "w";
  update["metadata"]["labels"].erase("stamped");
  r = Put(std::string(kConfigMaps) + "/a", update);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["metadata"]["labels"]["stamped"], "yes");
  calls = hooks_->Calls("/label");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]["request"]["operation"], "UPDATE");
  EXPECT_EQ(calls[1]["request"]["oldObject"]["data"]["k"], "v");
  EXPECT_EQ(calls[1]["request"]["object"]["data"]["k"], "w");
  EXPECT_EQ(calls[1]["request"]["options"]["kind"], "UpdateOptions");
}

TEST_F(AdmissionWebhooksTest, WarningsReachTheClientAsWarningHeaders) {
  hooks_->On("/warn", [](const Json&) {
    return Json{{"allowed", true}, {"warnings", {"mind the gap"}}};
  });
  hooks_->On("/warn2", [](const Json&) {
    return Json{{"allowed", true}, {"warnings", {"second thoughts"}}};
  });
  Register(kMutating, "m", {WebhookSpec("warn.example.com", "/warn")});
  Register(kValidating, "v", {WebhookSpec("warn2.example.com", "/warn2")});
  httplib::Result res = client_->Post(kConfigMaps, ConfigMap("a").dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  std::vector<std::string> got;
  for (const auto& [key, value] : res->headers) {
    if (key == "Warning") got.push_back(value);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"299 - \"mind the gap\"", "299 - \"second thoughts\""}));
}

TEST_F(AdmissionWebhooksTest, DenialIsWrappedWithTheWebhooksCode) {
  hooks_->On("/deny", [](const Json&) {
    return Json{{"allowed", false},
                {"status", {{"code", 403}, {"reason", "Forbidden"}, {"message", "no thanks"}}}};
  });
  Register(kValidating, "v", {WebhookSpec("deny.example.com", "/deny")});
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"));
  ExpectStatus(r, 403, "Forbidden");
  EXPECT_EQ(r.body["message"],
            "admission webhook \"deny.example.com\" denied the request: no thanks");
  EXPECT_FALSE(store_->Get("configmaps", "default", "a").ok());
  // No code, no message: 400 and "without explanation".
  hooks_->On("/deny", [](const Json&) { return Json{{"allowed", false}}; });
  r = Post(kConfigMaps, ConfigMap("b"));
  EXPECT_EQ(r.status, 400) << r.raw;
  EXPECT_EQ(r.body["message"],
            "admission webhook \"deny.example.com\" denied the request without explanation");
}

TEST_F(AdmissionWebhooksTest, ValidatingWebhooksSeeTheMutatedObject) {
  hooks_->On("/label", [](const Json& req) { return AddLabel(req, "stamped", "yes"); });
  hooks_->On("/check", [](const Json& req) {
    bool ok = req["object"]["metadata"]["labels"].value("stamped", "") == "yes";
    return Json{{"allowed", ok}, {"status", {{"message", "not stamped"}}}};
  });
  Register(kValidating, "v", {WebhookSpec("check.example.com", "/check")});
  EXPECT_EQ(Post(kConfigMaps, ConfigMap("a")).status, 400);
  Register(kMutating, "m", {WebhookSpec("label.example.com", "/label")});
  testing::Reply r = Post(kConfigMaps, ConfigMap("b"));
  EXPECT_EQ(r.status, 201) << r.raw;
}

TEST_F(AdmissionWebhooksTest, FailurePolicyDecidesWhenTheWebhookIsDownOrUntrusted) {
  Json down = WebhookSpec("down.example.com", "/x");
  down["clientConfig"]["url"] = "https://127.0.0.1:1/x";  // nothing listens on port 1
  Register(kValidating, "down", {down});
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"));
  ExpectStatus(r, 500, "InternalError");
  const std::string msg = r.body["message"];
  EXPECT_EQ(msg.rfind("Internal error occurred: failed calling webhook \"down.example.com\": "
                      "failed to call webhook: Post \"https://127.0.0.1:1/x?timeout=10s\": ",
                      0),
            0u)
      << msg;
  ASSERT_EQ(Delete(std::string(kValidating) + "/down").status, 200);
  down["failurePolicy"] = "Ignore";
  Register(kValidating, "down", {down});
  EXPECT_EQ(Post(kConfigMaps, ConfigMap("b")).status, 201);

  // A caBundle of another CA: the certificate is not trusted.
  Result<auth::TlsPem> other = auth::GenerateTlsPem({"127.0.0.1"});
  ASSERT_TRUE(other.ok());
  Json untrusted = WebhookSpec("untrusted.example.com", "/ok");
  untrusted["clientConfig"]["caBundle"] = auth::Base64Encode(other->ca_cert);
  Register(kValidating, "untrusted", {untrusted});
  r = Post(kConfigMaps, ConfigMap("c"));
  EXPECT_EQ(r.status, 500) << r.raw;
  EXPECT_NE(r.raw.find("certificate"), std::string::npos) << r.raw;
  EXPECT_TRUE(hooks_->Calls("/ok").empty());
}

TEST_F(AdmissionWebhooksTest, ServiceWebhooksAreRoutedToTheServicesEndpoints) {
  Json hook = WebhookSpec("svc.example.com", "/svc");
  hook["clientConfig"] = {
      {"service", {{"namespace", "webhooks"}, {"name", "hook"}, {"port", 443}, {"path", "/svc"}}},
      {"caBundle", auth::Base64Encode(pem_.ca_cert)}};
  Register(kValidating, "svc", {hook});
  // Not stored here: the Service is reached at the configured address (127.0.0.1:443, where
  // nothing listens).
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"));
  EXPECT_EQ(r.status, 500) << r.raw;
  EXPECT_NE(r.raw.find("Post \\\"https://hook.webhooks.svc:443/svc?timeout=10s\\\""),
            std::string::npos)
      << r.raw;
  // A Service whose port 443 is named "https", and Endpoints with that port at the webhook.
  Json service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", {{"name", "hook"}, {"namespace", "webhooks"}}},
      {"spec", {{"ports", {{{"name", "https"}, {"port", 443}, {"targetPort", 9443}}}}}}};
  ASSERT_TRUE(store_->Create("services", service).ok());
  Json endpoints = {{"apiVersion", "v1"},
                    {"kind", "Endpoints"},
                    {"metadata", {{"name", "hook"}, {"namespace", "webhooks"}}},
                    {"subsets", Json::array()}};
  ASSERT_TRUE(store_->Create("endpoints", endpoints).ok());
  r = Post(kConfigMaps, ConfigMap("b"));
  EXPECT_EQ(r.status, 500) << r.raw;
  EXPECT_NE(r.raw.find("no endpoints available for service \\\"hook\\\""), std::string::npos)
      << r.raw;
  EXPECT_TRUE(hooks_->Calls("/svc").empty());
  Result<Json> stored = store_->Get("endpoints", "webhooks", "hook");
  ASSERT_TRUE(stored.ok());
  (*stored)["subsets"] = {{{"addresses", {{{"ip", "127.0.0.1"}}}},
                           {"ports", {{{"name", "https"}, {"port", hooks_->port()}}}}}};
  ASSERT_TRUE(store_->Update("endpoints", *stored).ok());
  r = Post(kConfigMaps, ConfigMap("c"));
  EXPECT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(hooks_->Calls("/svc").size(), 1u);
}

TEST_F(AdmissionWebhooksTest, TimeoutSecondsIsHonoured) {
  hooks_->On("/slow", [](const Json&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    return Json{{"allowed", true}};
  });
  Json slow = WebhookSpec("slow.example.com", "/slow");
  slow["timeoutSeconds"] = 1;
  Register(kValidating, "slow", {slow});
  auto start = std::chrono::steady_clock::now();
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"));
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 500) << r.raw;
  EXPECT_NE(r.raw.find("timeout=1s"), std::string::npos) << r.raw;
  EXPECT_LT(took, std::chrono::milliseconds(2400));
  ASSERT_EQ(Delete(std::string(kValidating) + "/slow").status, 200);
  slow["failurePolicy"] = "Ignore";
  Register(kValidating, "slow", {slow});
  EXPECT_EQ(Post(kConfigMaps, ConfigMap("b")).status, 201);
}

TEST_F(AdmissionWebhooksTest, DryRunIsSentAndRefusedByWebhooksWithSideEffects) {
  Register(kValidating, "v", {WebhookSpec("pure.example.com", "/pure")});
  testing::Reply r = Post(kConfigMaps, ConfigMap("a"), "?dryRun=All");
  EXPECT_EQ(r.status, 201) << r.raw;
  std::vector<Json> calls = hooks_->Calls("/pure");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["request"]["dryRun"], true);
  EXPECT_EQ(calls[0]["request"]["options"]["dryRun"], Json::array({"All"}));
  // A webhook with side effects (stored as older APIs allowed) refuses dry runs
  // without being called.
  Json effects = {{"apiVersion", "admissionregistration.k8s.io/v1"},
                  {"kind", "ValidatingWebhookConfiguration"},
                  {"metadata", {{"name", "effects"}}},
                  {"webhooks", Json::array({WebhookSpec("effects.example.com", "/effects")})}};
  effects["webhooks"][0]["sideEffects"] = "Some";
  ASSERT_TRUE(
      store_->Create("validatingwebhookconfigurations.admissionregistration.k8s.io", effects).ok());
  r = Post(kConfigMaps, ConfigMap("b"), "?dryRun=All");
  ExpectStatus(r, 400, "BadRequest");
  EXPECT_EQ(r.body["message"],
            "admission webhook \"effects.example.com\" does not support dry run");
  EXPECT_TRUE(hooks_->Calls("/effects").empty());
  EXPECT_EQ(Post(kConfigMaps, ConfigMap("b")).status, 201);  // not a dry run: called
  EXPECT_EQ(hooks_->Calls("/effects").size(), 1u);
}

TEST_F(AdmissionWebhooksTest, RulesSelectorsAndSubresourcesChooseTheWebhooks) {
  Json deletes = WebhookSpec("deletes.example.com", "/deletes", {"configmaps"}, {"DELETE"});
  Json labelled = WebhookSpec("labelled.example.com", "/labelled");
  labelled["objectSelector"] = {{"matchLabels", {{"watch", "me"}}}};
  Json team = WebhookSpec("team.example.com", "/team");
  team["namespaceSelector"] = {
      {"matchExpressions", {{{"key", "team"}, {"operator", "In"}, {"values", {"a"}}}}}};
  Json status = WebhookSpec("status.example.com", "/status", {"pods/status"}, {"UPDATE"});
  Register(kValidating, "v", {deletes, labelled, team, status});

  ASSERT_EQ(Post(kConfigMaps, ConfigMap("plain")).status, 201);
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("watched", {{"watch", "me"}})).status, 201);
  EXPECT_TRUE(hooks_->Calls("/deletes").empty());
  ASSERT_EQ(hooks_->Calls("/labelled").size(), 1u);
  EXPECT_EQ(hooks_->Calls("/labelled")[0]["request"]["name"], "watched");
  EXPECT_TRUE(hooks_->Calls("/team").empty());  // "default" has no team label

  ASSERT_EQ(
      Post("/api/v1/namespaces", Json{{"apiVersion", "v1"},
                                      {"kind", "Namespace"},
                                      {"metadata", {{"name", "t"}, {"labels", {{"team", "a"}}}}}})
          .status,
      201);
  ASSERT_EQ(Post("/api/v1/namespaces/t/configmaps", ConfigMap("x")).status, 201);
  ASSERT_EQ(hooks_->Calls("/team").size(), 1u);
  EXPECT_EQ(hooks_->Calls("/team")[0]["request"]["namespace"], "t");

  ASSERT_EQ(Delete(std::string(kConfigMaps) + "/plain").status, 200);
  std::vector<Json> del = hooks_->Calls("/deletes");
  ASSERT_EQ(del.size(), 1u);
  EXPECT_EQ(del[0]["request"]["operation"], "DELETE");
  EXPECT_TRUE(del[0]["request"]["object"].is_null());
  EXPECT_EQ(del[0]["request"]["oldObject"]["metadata"]["name"], "plain");
  EXPECT_EQ(del[0]["request"]["options"]["kind"], "DeleteOptions");

  // pods/status: called for the status subresource, not for the pod itself.
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_EQ(Post("/api/v1/namespaces/default/pods", pod).status, 201);
  testing::Reply r =
      MergePatch("/api/v1/namespaces/default/pods/p", R"({"metadata":{"labels":{"a":"b"}}})");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_TRUE(hooks_->Calls("/status").empty());
  r = MergePatch("/api/v1/namespaces/default/pods/p/status", R"({"status":{"phase":"Running"}})");
  ASSERT_EQ(r.status, 200) << r.raw;
  std::vector<Json> st = hooks_->Calls("/status");
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0]["request"]["subResource"], "status");
  EXPECT_EQ(st[0]["request"]["resource"]["resource"], "pods");
}

TEST_F(AdmissionWebhooksTest, NamespacesCarryTheirNameLabelForNamespaceSelectors) {
  Json hook = WebhookSpec("outside.example.com", "/outside");
  hook["namespaceSelector"] = {
      {"matchExpressions",
       {{{"key", "kubernetes.io/metadata.name"}, {"operator", "NotIn"}, {"values", {"quiet"}}}}}};
  Register(kValidating, "v", {hook});
  testing::Reply r = Post("/api/v1/namespaces", testing::Namespace("quiet"));
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["metadata"]["labels"]["kubernetes.io/metadata.name"], "quiet");
  // Taken off by an update, it is set again.
  Json ns = r.body;
  ns["metadata"]["labels"] = {{"team", "q"}};
  r = Put("/api/v1/namespaces/quiet", ns);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["metadata"]["labels"],
            (Json{{"kubernetes.io/metadata.name", "quiet"}, {"team", "q"}}));
  ASSERT_EQ(Post("/api/v1/namespaces/quiet/configmaps", ConfigMap("a")).status, 201);
  EXPECT_TRUE(hooks_->Calls("/outside").empty());
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("b")).status, 201);
  EXPECT_EQ(hooks_->Calls("/outside").size(), 1u);
}

TEST_F(AdmissionWebhooksTest, IfNeededWebhooksAreCalledAgainAfterLaterChanges) {
  hooks_->On("/first", [](const Json& req) { return AddLabel(req, "first", "1"); });
  hooks_->On("/second", [](const Json& req) { return AddLabel(req, "second", "2"); });
  Json first = WebhookSpec("first.example.com", "/first");
  first["reinvocationPolicy"] = "IfNeeded";
  Json second = WebhookSpec("second.example.com", "/second");
  // Configurations run in name order: "a" before "b".
  Register(kMutating, "b", {second});
  Register(kMutating, "a", {first});
  testing::Reply r = Post(kConfigMaps, ConfigMap("x"));
  ASSERT_EQ(r.status, 201) << r.raw;
  EXPECT_EQ(r.body["metadata"]["labels"], (Json{{"first", "1"}, {"second", "2"}}));
  std::vector<Json> calls = hooks_->Calls("/first");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]["request"]["object"]["metadata"]["labels"]["second"], "2");
  EXPECT_EQ(hooks_->Calls("/second").size(), 1u);
  // Never: called once even when a later webhook changes the object.
  ASSERT_EQ(Delete(std::string(kMutating) + "/a").status, 200);
  first["reinvocationPolicy"] = "Never";
  Register(kMutating, "a", {first});
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("y")).status, 201);
  EXPECT_EQ(hooks_->Calls("/first").size(), 3u);
}

TEST_F(AdmissionWebhooksTest, ObjectSelectorsSeeEarlierMutations) {
  hooks_->On("/label", [](const Json& req) { return AddLabel(req, "tier", "gold"); });
  Json gold = WebhookSpec("gold.example.com", "/gold");
  gold["objectSelector"] = {{"matchLabels", {{"tier", "gold"}}}};
  Register(kMutating, "a", {WebhookSpec("label.example.com", "/label")});
  Register(kMutating, "b", {gold});
  ASSERT_EQ(Post(kConfigMaps, ConfigMap("x")).status, 201);
  // Labelled by the first webhook, the object is selected by the second.
  EXPECT_EQ(hooks_->Calls("/gold").size(), 1u);
}

TEST_F(AdmissionWebhooksTest, MatchPolicyEquivalentReachesOtherVersions) {
  Json hook = WebhookSpec("cq.example.com", "/cq");
  hook["rules"][0]["apiGroups"] = {"kueue.x-k8s.io"};
  hook["rules"][0]["apiVersions"] = {"v1beta1"};
  hook["rules"][0]["resources"] = {"clusterqueues"};
  Register(kValidating, "v", {hook});
  Json cq = {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
             {"kind", "ClusterQueue"},
             {"metadata", {{"name", "q"}}},
             {"spec", Json::object()}};
  testing::Reply r = Post("/apis/kueue.x-k8s.io/v1beta2/clusterqueues", cq);
  ASSERT_EQ(r.status, 201) << r.raw;
  std::vector<Json> calls = hooks_->Calls("/cq");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["request"]["kind"]["version"], "v1beta1");
  EXPECT_EQ(calls[0]["request"]["requestKind"]["version"], "v1beta2");
  EXPECT_EQ(calls[0]["request"]["object"]["apiVersion"], "kueue.x-k8s.io/v1beta1");
  // Exact: a v1beta2 request no longer matches a v1beta1 rule.
  ASSERT_EQ(Delete(std::string(kValidating) + "/v").status, 200);
  hook["matchPolicy"] = "Exact";
  Register(kValidating, "v", {hook});
  cq["metadata"]["name"] = "q2";
  ASSERT_EQ(Post("/apis/kueue.x-k8s.io/v1beta2/clusterqueues", cq).status, 201);
  EXPECT_EQ(hooks_->Calls("/cq").size(), 1u);
}

TEST_F(AdmissionWebhooksTest, ConfigurationsAreValidatedAndNeverSentToWebhooks) {
  hooks_->On("/deny", [](const Json&) { return Json{{"allowed", false}}; });
  Json all = WebhookSpec("all.example.com", "/deny", {"*"}, {"*"});
  all["rules"][0]["apiGroups"] = {"*"};
  all["rules"][0]["apiVersions"] = {"*"};
  Register(kValidating, "all", {all});
  EXPECT_EQ(Post(kConfigMaps, ConfigMap("a")).status, 400);  // everything else is denied
  Register(kMutating, "m", {WebhookSpec("ok.example.com", "/ok")});
  EXPECT_EQ(Delete(std::string(kValidating) + "/all").status, 200);
  EXPECT_TRUE(hooks_->Calls("/ok").empty());
  EXPECT_EQ(hooks_->Calls("/deny").size(), 1u);

  Json bad = WebhookSpec("bad.example.com", "/x");
  bad.erase("sideEffects");
  testing::Reply r = Post(kValidating, Json{{"apiVersion", "admissionregistration.k8s.io/v1"},
                                            {"kind", "ValidatingWebhookConfiguration"},
                                            {"metadata", {{"name", "bad"}}},
                                            {"webhooks", Json::array({bad})}});
  ExpectStatus(r, 422, "Invalid");
  EXPECT_EQ(r.body["message"],
            "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"bad\" is invalid: "
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun");
  // Stored with kube-apiserver's defaults, listed as a Table with its webhook count.
  r = Get(std::string(kMutating) + "/m");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body["webhooks"][0]["failurePolicy"], "Fail");
  EXPECT_EQ(r.body["webhooks"][0]["timeoutSeconds"], 10);
  r = Get(kMutating, "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["columnDefinitions"][1]["name"], "Webhooks");
  EXPECT_EQ(r.body["rows"][0]["cells"][1], 1);
}

}  // namespace
}  // namespace kuota::server
