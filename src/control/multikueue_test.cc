// MultiKueue's pure parts: the CRD rules and defaults of MultiKueueCluster
// and MultiKueueConfig, the copies put on workers, reading a manager
// Workload, the jobs' default managedBy and the Configuration's multiKueue
// block.
#include <gtest/gtest.h>

#include "api/codec/decode.h"
#include "control/multikueue_objects.h"
#include "control/multikueue_rules.h"
#include "jobs/managed_by.h"
#include "jobs/registry.h"
#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json Cluster(const char* source) {
  return Json::parse(
      std::string(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"MultiKueueCluster",
    "metadata":{"name":"w1"},"spec":{"clusterSource":)") +
      source + "}}");
}

std::string ClusterError(const char* source) {
  Json c = Cluster(source);
  DefaultMultiKueueObject("MultiKueueCluster", c);
  return ValidateMultiKueueObject("MultiKueueCluster", c).message();
}

std::string ConfigError(const char* spec) {
  const Json c =
      Json::parse(std::string(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"MultiKueueConfig",
    "metadata":{"name":"lab"},"spec":)") +
                  spec + "}");
  return ValidateMultiKueueObject("MultiKueueConfig", c).message();
}

TEST(MultiKueueRules, ClusterDefaultsLocationTypeToSecret) {
  Json c = Cluster(R"({"kubeConfig":{"location":"w1-secret"}})");
  DefaultMultiKueueObject("MultiKueueCluster", c);
  EXPECT_EQ(c["spec"]["clusterSource"]["kubeConfig"]["locationType"], "Secret");
  EXPECT_TRUE(ValidateMultiKueueObject("MultiKueueCluster", c).ok());
}

TEST(MultiKueueRules, ClusterRules) {
  EXPECT_EQ(ClusterError(R"({"kubeConfig":{"location":""}})"),
            "spec.clusterSource.kubeConfig.location: Invalid value: \"\": "
            "spec.clusterSource.kubeConfig.location in body should be at least 1 chars long");
  EXPECT_EQ(ClusterError(R"({"kubeConfig":{"locationType":"Path"}})"),
            "spec.clusterSource.kubeConfig.location: Required value");
  EXPECT_EQ(ClusterError(R"({"kubeConfig":{"location":"x","locationType":"File"}})"),
            "spec.clusterSource.kubeConfig.locationType: Unsupported value: \"File\": supported "
            "values: \"Secret\", \"Path\"");
  EXPECT_EQ(ClusterError(R"({"kubeConfig":{"location":"x"},"clusterProfileRef":{"name":"p"}})"),
            "spec.clusterSource: Invalid value: \"object\": exactly one of the fields in "
            "[kubeConfig clusterProfileRef] must be set");
  EXPECT_EQ(ClusterError("{}"),
            "spec.clusterSource: Invalid value: \"object\": exactly one of the fields in "
            "[kubeConfig clusterProfileRef] must be set");
  EXPECT_EQ(
      ClusterError(
          (std::string(R"({"kubeConfig":{"location":")") + std::string(257, 'a') + "\"}}").c_str()),
      "spec.clusterSource.kubeConfig.location: Too long: may not be more than 256 bytes");
  Json no_source = Cluster("null");
  EXPECT_EQ(ValidateMultiKueueObject("MultiKueueCluster", no_source).message(),
            "spec.clusterSource: Required value");
}

TEST(MultiKueueRules, ConfigRules) {
  EXPECT_TRUE(ValidateMultiKueueObject("MultiKueueConfig",
                                       Json::parse(R"({"spec":{"clusters":["a","b"]}})"))
                  .ok());
  EXPECT_EQ(ConfigError("{}"), "spec.clusters: Required value");
  EXPECT_EQ(ConfigError(R"({"clusters":[]})"),
            "spec.clusters: Invalid value: 0: spec.clusters in body should have at least 1 items");
  EXPECT_EQ(ConfigError(R"({"clusters":["a","b","a"]})"),
            "spec.clusters: Invalid value: \"array\": must be unique");
  Json many = Json::array();
  for (int i = 0; i < 21; ++i) many.push_back("c" + std::to_string(i));
  EXPECT_EQ(ConfigError((R"({"clusters":)" + many.dump() + "}").c_str()),
            "spec.clusters: Too many: 21: must have at most 20 items");
  EXPECT_EQ(ConfigError(R"({"clusters":["a"],"quotaManagement":"Auto"})"),
            "spec.quotaManagement: Unsupported value: \"Auto\": supported values: \"Manual\", "
            "\"Automated\"");
}

const Json kLocalWorkload = Json::parse(R"({
  "apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
  "metadata":{"name":"job-hello-1","namespace":"team-a","uid":"u-1","resourceVersion":"7",
    "labels":{"kueue.x-k8s.io/job-uid":"j-1"},
    "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"hello","uid":"j-1",
                        "controller":true}],
    "finalizers":["kueue.x-k8s.io/resource-in-use"]},
  "spec":{"queueName":"team-a-queue","podSets":[{"name":"main","count":1}]},
  "status":{"admission":{"clusterQueue":"lab-cq"},
    "conditions":[{"type":"QuotaReserved","status":"True"},{"type":"Admitted","status":"False"}],
    "admissionChecks":[{"name":"lab-check","state":"Pending"}]}})");

TEST(MultiKueueObjects, RemoteWorkloadIsTheSpecWithTheOrigin) {
  const Json remote = RemoteWorkloadFor(kLocalWorkload, "lab");
  EXPECT_EQ(remote["metadata"]["name"], "job-hello-1");
  EXPECT_EQ(remote["metadata"]["namespace"], "team-a");
  EXPECT_EQ(remote["metadata"]["labels"][kMultiKueueOriginLabel], "lab");
  EXPECT_EQ(remote["metadata"]["labels"]["kueue.x-k8s.io/job-uid"], "j-1");
  EXPECT_EQ(remote["metadata"]["annotations"][kMultiKueueOriginUidAnnotation], "u-1");
  EXPECT_EQ(remote["spec"], kLocalWorkload["spec"]);
  // Nothing of the manager's own bookkeeping goes along.
  for (const char* f : {"ownerReferences", "finalizers", "uid", "resourceVersion"}) {
    EXPECT_FALSE(remote["metadata"].contains(f)) << f;
  }
  EXPECT_FALSE(remote.contains("status"));
}

TEST(MultiKueueObjects, RemoteJobDropsManagedByForEveryKindThatHasIt) {
  int kinds_with_managed_by = 0;
  for (const auto& k : jobs::JobKinds()) {
    std::optional<Json::json_pointer> p = jobs::ManagedByPointer(*k);
    if (!p) continue;
    ++kinds_with_managed_by;
    Json local = {{"apiVersion", k->ApiVersion()},
                  {"kind", k->Kind()},
                  {"metadata", {{"name", "j"}, {"namespace", "team-a"}, {"uid", "j-1"}}},
                  {"spec", {{"suspend", true}}},
                  {"status", {{"active", 1}}}};
    local[*p] = jobs::kMultiKueueControllerName;
    ASSERT_TRUE(jobs::ManagedByMultiKueue(*k, local)) << k->Kind();
    const Json remote = RemoteJobFor(*k, local, "job-j-1", "lab");
    EXPECT_FALSE(remote.contains(*p)) << k->Kind();
    EXPECT_EQ(remote["metadata"]["labels"][kPrebuiltWorkloadLabel], "job-j-1");
    EXPECT_EQ(remote["metadata"]["labels"][kMultiKueueOriginLabel], "lab");
    EXPECT_EQ(remote["spec"]["suspend"], true) << k->Kind();
    EXPECT_FALSE(remote.contains("status"));
  }
  // batch/v1 Job, JobSet, the Kubeflow jobs, RayJob and RayCluster.
  EXPECT_GE(kinds_with_managed_by, 7);
  const jobs::JobKind* pytorch = jobs::FindJobKind("pytorchjobs.kubeflow.org");
  ASSERT_NE(pytorch, nullptr);
  EXPECT_EQ(jobs::ManagedByPointer(*pytorch)->to_string(), "/spec/runPolicy/managedBy");
}

TEST(MultiKueueObjects, ReadsTheOwnerJobAndTheCheck) {
  std::optional<OwnerJob> owner = OwnerJobOf(kLocalWorkload);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind->Resource(), "jobs.batch");
  EXPECT_EQ(owner->name, "hello");
  EXPECT_EQ(server::FieldValue(kLocalWorkload, {"status", "admission", "clusterQueue"}), "lab-cq");
  EXPECT_TRUE(server::FieldValue(kLocalWorkload, {"status", "clusterName"}).is_null());
  ASSERT_NE(CheckEntry(kLocalWorkload, "lab-check"), nullptr);
  EXPECT_EQ(CheckEntry(kLocalWorkload, "lab-check")->value("state", ""), "Pending");
  EXPECT_EQ(CheckEntry(kLocalWorkload, "other"), nullptr);
  Json handmade = kLocalWorkload;
  handmade["metadata"].erase("ownerReferences");
  EXPECT_FALSE(OwnerJobOf(handmade).has_value());
}

TEST(MultiKueueSettings, ConfigurationBlock) {
  auto decoded = codec::DecodeObject(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: lab-system
multiKueue:
  gcInterval: 30s
  origin: lab
  workerLostTimeout: 5m
  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental
)");
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  const auto& c = std::get<api::Configuration>(decoded->value);
  EXPECT_EQ(c.namespace_, "lab-system");
  EXPECT_EQ(c.multi_kueue.gc_interval.ms, 30'000);
  EXPECT_EQ(c.multi_kueue.origin, "lab");
  EXPECT_EQ(c.multi_kueue.worker_lost_timeout.ms, 300'000);
  EXPECT_EQ(c.multi_kueue.dispatcher_name, "kueue.x-k8s.io/multikueue-dispatcher-incremental");
  auto bad = codec::DecodeObject(R"(apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
multiKueue:
  dispatcherName: round-robin
)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("multiKueue.dispatcherName: Unsupported value: "
                                        "\"round-robin\""),
            std::string::npos)
      << bad.status().message();
  api::Configuration defaults;
  EXPECT_EQ(defaults.multi_kueue.gc_interval.ms, 60'000);
  EXPECT_EQ(defaults.multi_kueue.worker_lost_timeout.ms, 900'000);
  EXPECT_EQ(defaults.multi_kueue.origin, "multikueue");
  EXPECT_FALSE(defaults.namespace_.has_value());
}

}  // namespace
}  // namespace kuota::control
