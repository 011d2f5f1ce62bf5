// `kuota describe workload` and `kuota why` of a Workload dispatched by
// MultiKueue: where it runs and why that worker, which workers it waits on,
// and a check in Retry.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/time.h"
#include "cli/describe_command.h"
#include "cli/multikueue_placement.h"
#include "cli/resource_kinds.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

// A Workload of ClusterQueue cq with checks `checks` and `status` merged in.
Json DispatchedWorkload(const Json& status) {
  Json wl = Json::parse(R"({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns"},
    "spec": {"queueName": "lq", "podSets": [
      {"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}]}})");
  wl["status"] = status;
  return wl;
}

std::string DescribeWl(const Json& wl, const MultiKueueChecks& checks) {
  const KindInfo* kind = FindKind("workload");
  EXPECT_NE(kind, nullptr);
  return DescribeObject(*kind, wl, Json::object(), Time{}, checks);
}

const MultiKueueChecks kChecks = {{"mk", {"w1", "w2", "w3"}}};

TEST(DescribeMultiKueueTest, AdmittedOnAWorker) {
  Json wl = DispatchedWorkload(Json::parse(R"({"clusterName": "w1",
    "admissionChecks": [{"name": "other", "state": "Ready", "message": ""},
      {"name": "mk", "state": "Ready", "message": "The workload was admitted on \"w1\""}]})"));
  std::string text = DescribeWl(wl, kChecks);
  EXPECT_NE(text.find("MultiKueue:\n"
                      "  Runs on:        w1 (the first of its workers w1, w2, w3 to admit it)\n"
                      "  Check:          mk (Ready): The workload was admitted on \"w1\"\n"),
            std::string::npos)
      << text;
  // While the nomination is still there, it is named.
  wl["status"]["nominatedClusterNames"] = {"w1", "w2"};
  text = DescribeWl(wl, kChecks);
  EXPECT_NE(text.find("Runs on:        w1 (the first of its nominated workers w1, w2 to admit "
                      "it)\n"),
            std::string::npos)
      << text;
  // Without the AdmissionChecks (not readable), the check's message names it.
  text = DescribeWl(wl, {});
  EXPECT_NE(text.find("Check:          mk (Ready)"), std::string::npos) << text;
}

TEST(DescribeMultiKueueTest, WaitingForAWorker) {
  Json wl = DispatchedWorkload(Json::parse(R"({"nominatedClusterNames": ["w1", "w2"],
    "admissionChecks": [{"name": "mk", "state": "Pending", "message": ""}]})"));
  std::string text = DescribeWl(wl, kChecks);
  EXPECT_NE(text.find("  Dispatched to:  w1, w2 (waiting for one of them to admit it)\n"
                      "  Check:          mk (Pending)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("Runs on"), std::string::npos) << text;
  std::optional<MultiKueuePlacement> p = FindMultiKueuePlacement(wl, kChecks);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(MultiKueueWaitReason(*p),
            "waiting for a worker cluster to admit it: dispatched to w1, w2 (MultiKueue check mk)");
  // Not yet dispatched: its quota is not reserved, or no worker is active.
  p = FindMultiKueuePlacement(DispatchedWorkload(Json::parse(
                                  R"({"admissionChecks": [{"name": "mk", "state": "Pending"}]})")),
                              kChecks);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(MultiKueueWaitReason(*p),
            "waiting for a worker cluster to admit it: not yet dispatched to any of w1, w2, w3 "
            "(MultiKueue check mk)");
}

TEST(DescribeMultiKueueTest, WorkerLost) {
  Json wl = DispatchedWorkload(Json::parse(R"({"clusterName": "w2",
    "admissionChecks": [{"name": "mk", "state": "Retry", "message": "Admitting remote lost"}]})"));
  std::string text = DescribeWl(wl, kChecks);
  EXPECT_NE(text.find("  Check:          mk (Retry): Admitting remote lost\n"
                      "  Retry:          Admitting remote lost (it is evicted and dispatched "
                      "again)\n"),
            std::string::npos)
      << text;
  std::optional<MultiKueuePlacement> p = FindMultiKueuePlacement(wl, kChecks);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(MultiKueueWaitReason(*p),
            "its MultiKueue check mk is Retry: Admitting remote lost; it is evicted and "
            "dispatched again");
}

TEST(DescribeMultiKueueTest, NotDispatched) {
  Json wl = DispatchedWorkload(Json::parse(
      R"({"admissionChecks": [{"name": "prov", "state": "Pending", "message": "waiting"}]})"));
  EXPECT_FALSE(FindMultiKueuePlacement(wl, kChecks).has_value());
  EXPECT_FALSE(FindMultiKueuePlacement(wl, {}).has_value());
  EXPECT_EQ(DescribeWl(wl, kChecks).find("MultiKueue:"), std::string::npos);
}

}  // namespace
}  // namespace kuota::cli
