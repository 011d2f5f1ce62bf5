#include "api/conversion/kueue_conversion.h"

#include <gtest/gtest.h>

namespace kuota::conversion {
namespace {

using Json = nlohmann::json;

Json Parse(const char* text) { return Json::parse(text); }

// `in` converted to `version`; null (and a failure) when it does not convert.
Json Converted(const Json& in, std::string_view version) {
  Result<Json> r = Convert(in, version);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Json();
}

// Converts `v1beta1` up and expects `v1beta2`, then down and expects `back`.
void ExpectRoundTrip(const Json& v1beta1, const Json& v1beta2, const Json& back) {
  Result<Json> up = Convert(v1beta1, kV1beta2);
  ASSERT_TRUE(up.ok()) << up.status().message();
  EXPECT_EQ(*up, v1beta2);
  Result<Json> down = Convert(*up, kV1beta1);
  ASSERT_TRUE(down.ok()) << down.status().message();
  EXPECT_EQ(*down, back);
}

TEST(KueueConversion, ClusterQueueCohortAndAdmissionChecks) {
  Json v1 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",
    "metadata":{"name":"cq"},
    "spec":{"cohort":"all","admissionChecks":["prov"],"queueingStrategy":"StrictFIFO",
            "flavorFungibility":{"whenCanBorrow":"Borrow","whenCanPreempt":"Preempt"}},
    "status":{"pendingWorkloads":1,"pendingWorkloadsStatus":{"clusterQueuePendingWorkload":[]}}})");
  Json v2 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",
    "metadata":{"name":"cq"},
    "spec":{"cohortName":"all","admissionChecksStrategy":{"admissionChecks":[{"name":"prov"}]},
            "queueingStrategy":"StrictFIFO",
            "flavorFungibility":{"whenCanBorrow":"MayStopSearch","whenCanPreempt":"MayStopSearch"}},
    "status":{"pendingWorkloads":1}})");
  // Back down, v1beta2's form is kept but for the cohort's name.
  Json back = v2;
  back["apiVersion"] = "kueue.x-k8s.io/v1beta1";
  back["spec"].erase("cohortName");
  back["spec"]["cohort"] = "all";
  ExpectRoundTrip(v1, v2, back);
}

TEST(KueueConversion, ClusterQueueV1beta2ToV1beta1) {
  Json v2 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",
    "metadata":{"name":"cq"},"spec":{"cohortName":"team","resourceGroups":[]}})");
  Result<Json> v1 = Convert(v2, kV1beta1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["apiVersion"], "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ((*v1)["spec"]["cohort"], "team");
  EXPECT_FALSE((*v1)["spec"].contains("cohortName"));
  Result<Json> again = Convert(*v1, kV1beta2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, v2);
}

TEST(KueueConversion, LocalQueueFlavorsUsage) {
  Json v1 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"LocalQueue",
    "metadata":{"name":"lq","namespace":"ns"},"spec":{"clusterQueue":"cq"},
    "status":{"flavorUsage":[{"name":"f","resources":[]}],"flavors":[{"name":"f"}],
              "flavorsReservation":[]}})");
  Json v2 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue",
    "metadata":{"name":"lq","namespace":"ns"},"spec":{"clusterQueue":"cq"},
    "status":{"flavorsUsage":[{"name":"f","resources":[]}],"flavorsReservation":[]}})");
  Json back = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"LocalQueue",
    "metadata":{"name":"lq","namespace":"ns"},"spec":{"clusterQueue":"cq"},
    "status":{"flavorUsage":[{"name":"f","resources":[]}],"flavorsReservation":[]}})");
  ExpectRoundTrip(v1, v2, back);
}

TEST(KueueConversion, WorkloadPriorityClassRef) {
  for (auto [source, group, kind] :
       {std::tuple{"kueue.x-k8s.io/workloadpriorityclass", "kueue.x-k8s.io",
                   "WorkloadPriorityClass"},
        std::tuple{"scheduling.k8s.io/priorityclass", "scheduling.k8s.io", "PriorityClass"}}) {
    Json v1 = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
               {"kind", "Workload"},
               {"metadata", {{"name", "w"}, {"namespace", "ns"}}},
               {"spec",
                {{"queueName", "lq"},
                 {"priority", 100},
                 {"priorityClassName", "high"},
                 {"priorityClassSource", source}}},
               {"status", {{"accumulatedPastExexcutionTimeSeconds", 7}}}};
    // The name and source become one reference; the status field's
    // misspelling is fixed.
    Json v2 = v1;
    v2["apiVersion"] = "kueue.x-k8s.io/v1beta2";
    v2["spec"].erase("priorityClassName");
    v2["spec"].erase("priorityClassSource");
    v2["spec"]["priorityClassRef"] = {{"group", group}, {"kind", kind}, {"name", "high"}};
    v2["status"] = {{"accumulatedPastExecutionTimeSeconds", 7}};
    ExpectRoundTrip(v1, v2, v1);
  }
}

TEST(KueueConversion, WorkloadNameWithoutSourceHasNoV1beta2Form) {
  Json v1 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload",
    "metadata":{"name":"w"},"spec":{"priorityClassName":"x"}})");
  EXPECT_EQ(Converted(v1, kV1beta2)["spec"], Json::object());
}

TEST(KueueConversion, WorkloadBadPriorityClassRefNamesTheField) {
  Json bad_kind = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"w"},
    "spec":{"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"PriorityClass","name":"x"}}})");
  Result<Json> r = Convert(bad_kind, kV1beta1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("spec.priorityClassRef.kind"), std::string::npos);

  Json bad_group = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"w"},
    "spec":{"priorityClassRef":{"group":"example.com","kind":"PriorityClass","name":"x"}}})");
  r = Convert(bad_group, kV1beta1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.priorityClassRef.group"), std::string::npos);

  Json no_name = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"w"},
    "spec":{"priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass"}}})");
  r = Convert(no_name, kV1beta1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.priorityClassRef.name"), std::string::npos);
}

TEST(KueueConversion, AdmissionCheckDropsRetryDelayMinutes) {
  Json v1 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"AdmissionCheck",
    "metadata":{"name":"ac"},"spec":{"controllerName":"c","retryDelayMinutes":15}})");
  Json v2 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"AdmissionCheck",
    "metadata":{"name":"ac"},"spec":{"controllerName":"c"}})");
  Json back = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"AdmissionCheck",
    "metadata":{"name":"ac"},"spec":{"controllerName":"c"}})");
  ExpectRoundTrip(v1, v2, back);
}

TEST(KueueConversion, UnchangedKindsOnlyChangeApiVersion) {
  for (const char* kind : {"ResourceFlavor", "Cohort", "WorkloadPriorityClass", "Topology"}) {
    Json v1 = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
               {"kind", kind},
               {"metadata", {{"name", "x"}}},
               {"spec", {{"parentName", "p"}, {"nodeLabels", {{"a", "b"}}}}},
               {"value", 3}};
    Json v2 = v1;
    v2["apiVersion"] = "kueue.x-k8s.io/v1beta2";
    ExpectRoundTrip(v1, v2, v1);
  }
}

TEST(KueueConversion, SameVersionIsUnchanged) {
  Json v1 = Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",
    "metadata":{"name":"cq"},"spec":{"cohort":"all"}})");
  EXPECT_EQ(Converted(v1, kV1beta1), v1);
}

TEST(KueueConversion, RefusesWhatItCannotConvert) {
  EXPECT_FALSE(Convert(Json::array(), kV1beta2).ok());
  EXPECT_FALSE(Convert(Parse(R"({"kind":"ClusterQueue"})"), kV1beta2).ok());
  EXPECT_FALSE(
      Convert(Parse(R"({"apiVersion":"kueue.x-k8s.io/v1alpha1","kind":"Cohort"})"), kV1beta2).ok());
  EXPECT_FALSE(
      Convert(Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"NoSuchKind"})"),
              kV1beta2)
          .ok());
  EXPECT_FALSE(Convert(Parse(R"({"apiVersion":"batch/v1","kind":"Job"})"), kV1beta2).ok());
  EXPECT_FALSE(
      Convert(Parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Cohort"})"), "v2").ok());
  EXPECT_TRUE(IsConvertibleKind("Workload"));
  EXPECT_FALSE(IsConvertibleKind("Job"));
}

TEST(ConfigurationConversion, EnableFlagsBecomePresence) {
  Json v1 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "fairSharing":{"enable":true,"preemptionStrategies":["LessThanInitialShare"]},
    "waitForPodsReady":{"enable":true,"timeout":"5m"},
    "queueVisibility":{"updateIntervalSeconds":5},
    "integrations":{"frameworks":["batch/job"],"podOptions":{}}})");
  Json v2 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta2","kind":"Configuration",
    "fairSharing":{"preemptionStrategies":["LessThanInitialShare"]},
    "waitForPodsReady":{"timeout":"5m","blockAdmission":true},
    "integrations":{"frameworks":["batch/job"]}})");
  Json back = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "fairSharing":{"enable":true,"preemptionStrategies":["LessThanInitialShare"]},
    "waitForPodsReady":{"enable":true,"timeout":"5m","blockAdmission":true},
    "integrations":{"frameworks":["batch/job"]}})");
  ExpectRoundTrip(v1, v2, back);
}

TEST(ConfigurationConversion, DisabledSectionsAreDropped) {
  Json v1 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "fairSharing":{"enable":false},"waitForPodsReady":{"timeout":"5m"}})");
  Result<Json> v2 = Convert(v1, kV1beta2);
  ASSERT_TRUE(v2.ok());
  EXPECT_FALSE(v2->contains("fairSharing"));
  EXPECT_FALSE(v2->contains("waitForPodsReady"));
  // v1beta2 runs waitForPodsReady unless the feature gate turns it off.
  EXPECT_EQ((*v2)["featureGates"], Parse(R"({"DisableWaitForPodsReady":true})"));
}

TEST(ConfigurationConversion, AbsentWaitForPodsReadyStaysOff) {
  Json v1 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "featureGates":{"PartialAdmission":true}})");
  Json v2 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta2","kind":"Configuration",
    "featureGates":{"PartialAdmission":true,"DisableWaitForPodsReady":true}})");
  // Back in v1beta1 the gate stays, and keeps it off there too.
  Json back = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "featureGates":{"PartialAdmission":true,"DisableWaitForPodsReady":true}})");
  ExpectRoundTrip(v1, v2, back);
}

TEST(ConfigurationConversion, EnabledWithoutTimeoutKeepsV1beta1Default) {
  Json v1 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta1","kind":"Configuration",
    "waitForPodsReady":{"enable":true}})");
  Result<Json> v2 = Convert(v1, kV1beta2);
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ((*v2)["waitForPodsReady"], Parse(R"({"timeout":"5m","blockAdmission":true})"));
  EXPECT_FALSE(v2->contains("featureGates"));
}

TEST(ConfigurationConversion, V1beta2WaitForPodsReadyDefaults) {
  // Present without blockAdmission: off (Kueue's v1beta2 default).
  Json v2 = Parse(R"({"apiVersion":"config.kueue.x-k8s.io/v1beta2","kind":"Configuration",
    "waitForPodsReady":{"timeout":"1m"}})");
  Result<Json> v1 = Convert(v2, kV1beta1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["waitForPodsReady"],
            Parse(R"({"enable":true,"timeout":"1m","blockAdmission":false})"));
  // Absent: on, with v1beta2's 30m timeout made explicit for v1beta1.
  v2.erase("waitForPodsReady");
  v1 = Convert(v2, kV1beta1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["waitForPodsReady"],
            Parse(R"({"enable":true,"timeout":"30m","blockAdmission":false})"));
  // Absent with the gate: off, nothing added.
  v2["featureGates"] = Parse(R"({"DisableWaitForPodsReady":true})");
  v1 = Convert(v2, kV1beta1);
  ASSERT_TRUE(v1.ok());
  EXPECT_FALSE(v1->contains("waitForPodsReady"));
}

}  // namespace
}  // namespace kuota::conversion
