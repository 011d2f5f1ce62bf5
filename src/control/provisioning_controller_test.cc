// The provisioning check controller over a real SQLite store: a workload
// holding quota gets its ProvisioningRequest and PodTemplate, its check
// follows the request's conditions, failed requests are retried under a new
// name, and requests of finished workloads are deleted.
#include "control/provisioning_controller.h"

#include <gtest/gtest.h>

#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;
constexpr char kWl[] = "workloads.kueue.x-k8s.io";
constexpr char kPr[] = "provisioningrequests.autoscaling.x-k8s.io";
constexpr char kPt[] = "podtemplates";
constexpr char kAc[] = "admissionchecks.kueue.x-k8s.io";

class ProvisioningControllerTest : public testing::SqliteStoreTest {
 protected:
  void SetUp() override {
    SqliteStoreTest::SetUp();
    if (HasFatalFailure()) return;
    Must("admissionchecks.kueue.x-k8s.io",
         {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
          {"kind", "AdmissionCheck"},
          {"metadata", {{"name", "prov"}}},
          {"spec",
           {{"controllerName", kProvisioningRequestControllerName},
            {"parameters",
             {{"apiGroup", "kueue.x-k8s.io"},
              {"kind", "ProvisioningRequestConfig"},
              {"name", "prc"}}}}}});
    Must("clusterqueues.kueue.x-k8s.io", {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                          {"kind", "ClusterQueue"},
                                          {"metadata", {{"name", "cq"}}},
                                          {"spec", {{"admissionChecks", {"prov"}}}}});
    Must("resourceflavors.kueue.x-k8s.io", {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                            {"kind", "ResourceFlavor"},
                                            {"metadata", {{"name", "gpus"}}},
                                            {"spec", {{"nodeLabels", {{"pool", "a100"}}}}}});
    Json wl = {
        {"apiVersion", "kueue.x-k8s.io/v1beta2"},
        {"kind", "Workload"},
        {"metadata", {{"name", "wl"}, {"namespace", "ns"}}},
        {"spec",
         {{"queueName", "lq"},
          {"podSets",
           Json::array(
               {{{"name", "main"},
                 {"count", 2},
                 {"template",
                  {{"spec",
                    {{"containers",
                      Json::array({{{"name", "c"},
                                    {"resources", {{"limits", {{"cpu", "1"}}}}}}})}}}}}}})}}}};
    Json created = Must(kWl, wl);
    created["status"] = {
        {"admission",
         {{"clusterQueue", "cq"},
          {"podSetAssignments",
           Json::array({{{"name", "main"}, {"flavors", {{"cpu", "gpus"}}}, {"count", 2}}})}}},
        {"conditions",
         Json::array(
             {{{"type", "QuotaReserved"}, {"status", "True"}, {"reason", "QuotaReserved"}}})}};
    ASSERT_TRUE(store_->Update(kWl, created, {.status_only = true}).ok());
  }

  Json Must(const std::string& resource, Json object) {
    auto r = store_->Create(resource, std::move(object));
    EXPECT_TRUE(r.ok()) << resource << ": " << r.status().ToString();
    return r.ok() ? *r : Json();
  }

  Json Get(const char* resource, const std::string& ns, const std::string& name) {
    auto r = store_->Get(resource, ns, name);
    return r.ok() ? *r : Json();
  }

  Json Check() {
    Json wl = Get(kWl, "ns", "wl");
    for (const Json& c : wl["status"].value("admissionChecks", Json::array())) {
      if (c["name"] == "prov") return c;
    }
    return Json();
  }

  void SetRequestCondition(const std::string& name, const std::string& type) {
    Json pr = Get(kPr, "ns", name);
    ASSERT_FALSE(pr.is_null()) << name;
    pr["status"]["conditions"] = Json::array(
        {{{"type", type}, {"status", "True"}, {"reason", type}, {"message", type + " says so"}}});
    ASSERT_TRUE(store_->Update(kPr, pr, {.status_only = true}).ok());
  }

  void Sync(ProvisioningController& c) {
    Status st = c.SyncOnce();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  void SetConfig(int backoff_limit) {
    Must("provisioningrequestconfigs.kueue.x-k8s.io",
         {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
          {"kind", "ProvisioningRequestConfig"},
          {"metadata", {{"name", "prc"}}},
          {"spec",
           {{"provisioningClassName", "queued-provisioning.gke.io"},
            {"parameters", {{"maxRunDurationSeconds", "3600"}}},
            {"retryStrategy",
             {{"backoffLimitCount", backoff_limit},
              {"backoffBaseSeconds", 1},
              {"backoffMaxSeconds", 10}}}}}});
  }

  ManualClock clock_{Time::FromSeconds(1000)};
};

TEST_F(ProvisioningControllerTest, WithoutItsConfigTheCheckIsInactive) {
  ProvisioningController c(*store_, clock_);
  Sync(c);
  EXPECT_EQ(Check()["state"], "Pending");
  EXPECT_EQ(Check()["message"], kCheckInactiveMessage);
  Json ac = Get(kAc, "", "prov");
  EXPECT_EQ(ac["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(ac["status"]["conditions"][0]["reason"], "BadParametersRef");
  EXPECT_EQ(ac["status"]["conditions"][0]["message"],
            "provisioningrequestconfigs.kueue.x-k8s.io \"prc\" not found");
  EXPECT_TRUE(Get(kPr, "ns", "wl-prov-1").is_null());
}

TEST_F(ProvisioningControllerTest, ProvisionedMakesTheCheckReady) {
  SetConfig(3);
  ProvisioningController c(*store_, clock_);
  Sync(c);
  EXPECT_EQ(Get(kAc, "", "prov")["status"]["conditions"][0]["status"], "True");
  Json pr = Get(kPr, "ns", "wl-prov-1");
  ASSERT_FALSE(pr.is_null());
  EXPECT_EQ(pr["spec"]["provisioningClassName"], "queued-provisioning.gke.io");
  EXPECT_EQ(pr["spec"]["parameters"]["maxRunDurationSeconds"], "3600");
  EXPECT_EQ(pr["spec"]["podSets"][0]["podTemplateRef"]["name"], "ppt-wl-prov-1-main");
  EXPECT_EQ(pr["spec"]["podSets"][0]["count"], 2);
  EXPECT_EQ(pr["metadata"]["ownerReferences"][0]["kind"], "Workload");
  Json pt = Get(kPt, "ns", "ppt-wl-prov-1-main");
  ASSERT_FALSE(pt.is_null());
  EXPECT_EQ(pt["template"]["spec"]["nodeSelector"]["pool"], "a100");
  EXPECT_EQ(pt["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
  EXPECT_EQ(pt["metadata"]["ownerReferences"][0]["kind"], "ProvisioningRequest");
  EXPECT_EQ(Check()["state"], "Pending");

  SetRequestCondition("wl-prov-1", "Provisioned");
  Sync(c);
  Json check = Check();
  EXPECT_EQ(check["state"], "Ready");
  EXPECT_EQ(
      check["podSetUpdates"][0]["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"],
      "wl-prov-1");
}

TEST_F(ProvisioningControllerTest, FailedRetriesThenRejects) {
  SetConfig(1);
  ProvisioningController c(*store_, clock_);
  Sync(c);
  SetRequestCondition("wl-prov-1", "Failed");
  Sync(c);
  Json check = Check();
  EXPECT_EQ(check["state"], "Retry");
  EXPECT_EQ(check["requeueAfterSeconds"], 1);
  // The engine's eviction resets the check to Pending with a retry counted
  // (engine_test covers it); here, as it writes it.
  Json wl = Get(kWl, "ns", "wl");
  wl["status"]["admissionChecks"][0]["state"] = "Pending";
  wl["status"]["admissionChecks"][0]["retryCount"] = 1;
  ASSERT_TRUE(store_->Update(kWl, wl, {.status_only = true}).ok());
  Sync(c);
  EXPECT_FALSE(Get(kPr, "ns", "wl-prov-2").is_null());
  Sync(c);  // the next pass finds the second attempt the active one
  EXPECT_TRUE(Get(kPr, "ns", "wl-prov-1").is_null()) << "the failed attempt is deleted";
  EXPECT_TRUE(Get(kPt, "ns", "ppt-wl-prov-1-main").is_null());
  SetRequestCondition("wl-prov-2", "Failed");
  Sync(c);
  EXPECT_EQ(Check()["state"], "Rejected");
  EXPECT_EQ(Check()["message"], "Failed says so");
}

TEST_F(ProvisioningControllerTest, RequestsOfDeletedWorkloadsGo) {
  SetConfig(3);
  ProvisioningController c(*store_, clock_);
  Sync(c);
  ASSERT_FALSE(Get(kPr, "ns", "wl-prov-1").is_null());
  ASSERT_TRUE(store_->Delete(kWl, "ns", "wl").ok());
  Sync(c);
  EXPECT_TRUE(Get(kPr, "ns", "wl-prov-1").is_null());
  EXPECT_TRUE(Get(kPt, "ns", "ppt-wl-prov-1-main").is_null());
}

}  // namespace
}  // namespace kuota::control
