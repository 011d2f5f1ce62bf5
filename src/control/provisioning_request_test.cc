// Kueue's provisioning check, the pure part: names, attempts, backoff, which
// pod sets need capacity, and the check state a request's conditions lead to.
#include "control/provisioning_request.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json PodSet(const std::string& name, int count, Json requests) {
  return {{"name", name},
          {"count", count},
          {"template",
           {{"spec",
             {{"containers",
               Json::array({{{"name", "c"}, {"resources", {{"requests", requests}}}}})}}}}}};
}

Json Workload(Json pod_sets) {
  Json psas = Json::array();
  for (const Json& ps : pod_sets) {
    psas.push_back(
        {{"name", ps["name"]}, {"flavors", {{"cpu", "default"}}}, {"count", ps["count"]}});
  }
  return {{"metadata", {{"name", "wl"}, {"namespace", "ns"}}},
          {"spec", {{"podSets", pod_sets}}},
          {"status", {{"admission", {{"clusterQueue", "cq"}, {"podSetAssignments", psas}}}}}};
}

Json Request(const std::string& name, std::vector<std::pair<std::string, std::string>> conds) {
  Json c = Json::array();
  for (const auto& [type, message] : conds) {
    c.push_back({{"type", type}, {"status", "True"}, {"message", message}});
  }
  return {
      {"metadata", {{"name", name}}},
      {"spec",
       {{"provisioningClassName", "queued-provisioning.gke.io"},
        {"podSets",
         Json::array({{{"podTemplateRef", {{"name", "ppt-" + name + "-main"}}}, {"count", 2}}})}}},
      {"status", {{"conditions", c}, {"provisioningClassDetails", {{"zone", "us-a"}}}}}};
}

ProvisioningConfig Config() {
  ProvisioningConfig c;
  c.class_name = "queued-provisioning.gke.io";
  c.backoff_limit_count = 2;
  c.backoff_base_seconds = 10;
  c.backoff_max_seconds = 30;
  return c;
}

TEST(ProvisioningNames, AsKueueNamesThem) {
  EXPECT_EQ(ProvisioningRequestName("wl", "prov", 1), "wl-prov-1");
  EXPECT_EQ(ProvisioningPodTemplateName("wl-prov-1", "main"), "ppt-wl-prov-1-main");
  EXPECT_EQ(ProvisioningAttempt("wl-prov-12", "wl", "prov"), 12);
  EXPECT_EQ(ProvisioningAttempt("wl-prov-x", "wl", "prov"), std::nullopt);
  EXPECT_EQ(ProvisioningAttempt("other-prov-1", "wl", "prov"), std::nullopt);
  const std::string long_name(300, 'a');
  const std::string limited = LimitProvisioningObjectName(long_name);
  EXPECT_EQ(limited.size(), 253u);
  EXPECT_EQ(limited.substr(0, 247), std::string(247, 'a'));
  EXPECT_EQ(limited[247], '-');
}

TEST(ProvisioningBackoff, DoublesUpToTheMaximum) {
  EXPECT_EQ(ProvisioningBackoffSeconds(60, 1800, 0), 60);
  EXPECT_EQ(ProvisioningBackoffSeconds(60, 1800, 1), 120);
  EXPECT_EQ(ProvisioningBackoffSeconds(60, 1800, 2), 240);
  EXPECT_EQ(ProvisioningBackoffSeconds(60, 1800, 10), 1800);
  EXPECT_EQ(ProvisioningBackoffSeconds(1, 0, 3), 8);
}

TEST(ProvisioningConfigRead, DefaultsAndFields) {
  Json prc = {
      {"spec",
       {{"provisioningClassName", "check-capacity.autoscaling.x-k8s.io"},
        {"parameters", {{"a", "b"}}},
        {"managedResources", {"nvidia.com/gpu"}},
        {"podSetUpdates",
         {{"nodeSelector", {{{"key", "zone"}, {"valueFromProvisioningClassDetail", "z"}}}}}}}}};
  auto c = ReadProvisioningConfig(prc);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->backoff_limit_count, 3);
  EXPECT_EQ(c->backoff_base_seconds, 60);
  EXPECT_EQ(c->backoff_max_seconds, 1800);
  EXPECT_EQ(c->parameters.at("a"), "b");
  ASSERT_EQ(c->node_selector_from_details.size(), 1u);
  EXPECT_FALSE(ReadProvisioningConfig(Json{{"spec", Json::object()}}).ok());
}

TEST(ProvisioningPodSetsTest, ManagedResourcesSelectPodSets) {
  Json wl = Workload(Json::array({PodSet("driver", 1, {{"cpu", "1"}}),
                                  PodSet("workers", 4, {{"nvidia.com/gpu", "1"}}),
                                  PodSet("idle", 0, {{"nvidia.com/gpu", "1"}})}));
  EXPECT_EQ(ProvisioningPodSets(wl, {}), (std::vector<std::string>{"driver", "workers"}));
  EXPECT_EQ(ProvisioningPodSets(wl, {"nvidia.com/gpu"}), (std::vector<std::string>{"workers"}));
  EXPECT_TRUE(ProvisioningPodSets(wl, {"example.com/fpga"}).empty());
  ProvisioningConfig c = Config();
  c.managed_resources = {"nvidia.com/gpu"};
  auto sets = ProvisioningRequestPodSets(wl, c);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].name, "workers");
  EXPECT_EQ(sets[0].count, 4);
}

TEST(ProvisioningPodSetsTest, MergePolicyMergesIdenticalTemplates) {
  Json wl = Workload(Json::array({PodSet("a", 1, {{"cpu", "1"}}), PodSet("b", 2, {{"cpu", "1"}})}));
  ProvisioningConfig c = Config();
  EXPECT_EQ(ProvisioningRequestPodSets(wl, c).size(), 2u);
  c.pod_set_merge_policy = "IdenticalPodTemplates";
  auto merged = ProvisioningRequestPodSets(wl, c);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].count, 3);
}

struct CheckCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> conditions;
  std::string request = "wl-prov-1";
  Json check = {{"name", "prov"}, {"state", "Pending"}, {"message", ""}};
  bool admitted = false;
  bool active = true;
  bool finished = false;
  std::string want_state;
  std::string want_message;
  std::optional<int> want_requeue_after;
};

class SyncCheckTest : public ::testing::TestWithParam<CheckCase> {};

TEST_P(SyncCheckTest, State) {
  const CheckCase& c = GetParam();
  Json check = c.check;
  ProvisioningWorkloadFacts facts;
  facts.name = "wl";
  facts.admitted = c.admitted;
  facts.active = c.active;
  facts.finished = c.finished;
  Json wl = Workload(Json::array({PodSet("main", 2, {{"cpu", "1"}})}));
  SyncProvisioningCheck(check, Request(c.request, c.conditions), Config(), wl, facts,
                        Time::FromSeconds(1000));
  EXPECT_EQ(check["state"], c.want_state);
  EXPECT_EQ(check["message"], c.want_message);
  if (c.want_requeue_after) {
    EXPECT_EQ(check.value("requeueAfterSeconds", -1), *c.want_requeue_after);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Conditions, SyncCheckTest,
    ::testing::Values(
        CheckCase{.name = "NoConditionsPending", .want_state = "Pending", .want_message = ""},
        CheckCase{.name = "AcceptedTakesProvisionedMessage",
                  .conditions = {{"Accepted", "ok"}},
                  .want_state = "Pending",
                  .want_message = ""},
        CheckCase{.name = "ProvisionedReady",
                  .conditions = {{"Provisioned", "capacity is here"}},
                  .want_state = "Ready",
                  .want_message = "capacity is here"},
        CheckCase{.name = "FailedRetries",
                  .conditions = {{"Failed", "no capacity"}},
                  .want_state = "Retry",
                  .want_message = "Retrying after failure: no capacity",
                  .want_requeue_after = 10},
        CheckCase{.name = "FailedSecondAttemptBacksOffLonger",
                  .conditions = {{"Failed", "no capacity"}},
                  .request = "wl-prov-2",
                  .check = {{"name", "prov"}, {"state", "Pending"}, {"retryCount", 1}},
                  .want_state = "Retry",
                  .want_message = "Retrying after failure: no capacity",
                  .want_requeue_after = 20},
        CheckCase{.name = "FailedPastTheLimitRejected",
                  .conditions = {{"Failed", "no capacity"}},
                  .request = "wl-prov-3",
                  .check = {{"name", "prov"}, {"state", "Pending"}, {"retryCount", 2}},
                  .want_state = "Rejected",
                  .want_message = "no capacity"},
        CheckCase{.name = "CapacityRevokedRejected",
                  .conditions = {{"Provisioned", "ok"}, {"CapacityRevoked", "nodes gone"}},
                  .check = {{"name", "prov"}, {"state", "Ready"}, {"message", "ok"}},
                  .admitted = true,
                  .want_state = "Rejected",
                  .want_message = "nodes gone"},
        // Kueue v0.20 (syncCheckStates; its integration tests "... when workloads is not
        // Admitted/Finished ... CapacityRevoked"): Rejected before admission too, and
        // nothing on a deactivated or finished workload.
        CheckCase{.name = "CapacityRevokedBeforeAdmissionRejected",
                  .conditions = {{"CapacityRevoked", "nodes gone"}},
                  .want_state = "Rejected",
                  .want_message = "nodes gone"},
        CheckCase{.name = "CapacityRevokedInactiveIgnored",
                  .conditions = {{"Provisioned", "ok"}, {"CapacityRevoked", "nodes gone"}},
                  .check = {{"name", "prov"}, {"state", "Ready"}, {"message", "ok"}},
                  .active = false,
                  .want_state = "Ready",
                  .want_message = "ok"},
        CheckCase{.name = "CapacityRevokedFinishedIgnored",
                  .conditions = {{"Provisioned", "ok"}, {"CapacityRevoked", "nodes gone"}},
                  .check = {{"name", "prov"}, {"state", "Ready"}, {"message", "ok"}},
                  .admitted = true,
                  .finished = true,
                  .want_state = "Ready",
                  .want_message = "ok"},
        CheckCase{.name = "FailedBeforeCapacityRevoked",
                  .conditions = {{"Failed", "no capacity"}, {"CapacityRevoked", "nodes gone"}},
                  .want_state = "Retry",
                  .want_message = "Retrying after failure: no capacity"},
        CheckCase{.name = "BookingExpiredBeforeAdmissionRetries",
                  .conditions = {{"Provisioned", "ok"}, {"BookingExpired", "too late"}},
                  .want_state = "Retry",
                  .want_message = "Retrying after booking expired: too late"},
        CheckCase{.name = "BookingExpiredPastTheLimitRejected",
                  .conditions = {{"BookingExpired", "too late"}},
                  .request = "wl-prov-3",
                  .check = {{"name", "prov"}, {"state", "Pending"}, {"retryCount", 2}},
                  .want_state = "Rejected",
                  .want_message = "too late"},
        CheckCase{.name = "BookingExpiredAfterAdmissionIgnored",
                  .conditions = {{"Provisioned", "ok"}, {"BookingExpired", "too late"}},
                  .check = {{"name", "prov"}, {"state", "Ready"}, {"message", "ok"}},
                  .admitted = true,
                  .want_state = "Ready",
                  .want_message = "ok"}),
    [](const ::testing::TestParamInfo<CheckCase>& i) { return i.param.name; });

TEST(SyncCheck, ProvisionedSetsPodSetUpdates) {
  Json check = {{"name", "prov"}, {"state", "Pending"}};
  ProvisioningConfig c = Config();
  c.node_selector_from_details = {{"cloud.example.com/zone", "zone"}};
  ProvisioningWorkloadFacts facts;
  facts.name = "wl";
  Json wl = Workload(Json::array({PodSet("main", 2, {{"cpu", "1"}})}));
  ASSERT_TRUE(SyncProvisioningCheck(check, Request("wl-prov-1", {{"Provisioned", "yes"}}), c, wl,
                                    facts, Time::FromSeconds(5)));
  ASSERT_EQ(check["podSetUpdates"].size(), 1u);
  const Json& u = check["podSetUpdates"][0];
  EXPECT_EQ(u["name"], "main");
  EXPECT_EQ(u["annotations"][kConsumeProvisioningRequestAnnotation], "wl-prov-1");
  EXPECT_EQ(u["annotations"][kProvisioningClassAnnotation], "queued-provisioning.gke.io");
  EXPECT_EQ(u["nodeSelector"]["cloud.example.com/zone"], "us-a");
  EXPECT_EQ(check["lastTransitionTime"], FormatRfc3339(Time::FromSeconds(5)));
}

}  // namespace
}  // namespace kuota::control
