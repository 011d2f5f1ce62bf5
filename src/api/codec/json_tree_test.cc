// DecodeJsonObject: an object that is already JSON decodes as its text does
// through DecodeObject (the same values, the same errors, word for word),
// without yaml-cpp, and from several threads at once.
#include "api/codec/json_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/decode.h"

namespace kuota::codec {
namespace {

using Json = nlohmann::json;

Json ClusterQueue() {
  return Json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
    "metadata": {"name": "team-a", "labels": {"team": "a"}, "generation": 3},
    "spec": {"cohort": "all", "queueingStrategy": "StrictFIFO",
      "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [{"name": "on-demand",
        "resources": [{"name": "cpu", "nominalQuota": 10, "borrowingLimit": "500m", "lendingLimit": 0.5},
                      {"name": "memory", "nominalQuota": "10Gi"}]}]}]}})");
}

Json Workload() {
  return Json::parse(R"({
    "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "wl", "namespace": "ns", "resourceVersion": "7"},
    "spec": {"queueName": "lq", "priority": 100, "active": true,
      "podSets": [{"name": "main", "count": 3, "template": {"spec": {"containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1500m"}}}]}}}]},
    "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 3}]},
      "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
      "message": "ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})");
}

TEST(DecodeJsonObjectTest, ReadsWhatTheTextReads) {
  Result<api::Object> cq = DecodeJsonObject(ClusterQueue());
  ASSERT_TRUE(cq.ok()) << cq.status().ToString();
  const auto& spec = std::get<api::ClusterQueue>(cq->value).spec;
  EXPECT_EQ(std::get<api::ClusterQueue>(cq->value).metadata.name, "team-a");
  EXPECT_EQ(spec.cohort, "all");
  ASSERT_EQ(spec.resource_groups.size(), 1u);
  const auto& resources = spec.resource_groups[0].flavors[0].resources;
  ASSERT_EQ(resources.size(), 2u);
  EXPECT_EQ(resources[0].nominal_quota.milli(), 10000);
  EXPECT_EQ(resources[0].borrowing_limit->milli(), 500);
  EXPECT_EQ(resources[0].lending_limit->milli(), 500);
  EXPECT_EQ(resources[1].nominal_quota.milli(), int64_t{10} * 1024 * 1024 * 1024 * 1000);

  Result<api::Object> wl = DecodeJsonObject(Workload());
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  const auto& w = std::get<api::Workload>(wl->value);
  EXPECT_EQ(w.metadata.namespace_, "ns");
  EXPECT_EQ(w.spec.priority.value_or(0), 100);
  ASSERT_EQ(w.spec.pod_sets.size(), 1u);
  EXPECT_EQ(w.spec.pod_sets[0].count, 3);
  ASSERT_EQ(w.status.conditions.size(), 1u);
  EXPECT_EQ(w.status.conditions[0].type, "QuotaReserved");
}

TEST(DecodeJsonObjectTest, ErrorsAreTheTextPathsWordForWord) {
  struct Case {
    const char* name;
    Json object;
  };
  std::vector<Case> cases;
  Json unknown = ClusterQueue();
  unknown["spec"]["colour"] = "red";
  cases.push_back({"unknown field", unknown});
  Json bad_quantity = ClusterQueue();
  bad_quantity["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "10x";
  cases.push_back({"bad quantity", bad_quantity});
  Json wrong_type = Workload();
  wrong_type["spec"]["podSets"][0]["count"] = "three";
  cases.push_back({"string for a number", wrong_type});
  Json no_kind = Workload();
  no_kind.erase("kind");
  cases.push_back({"no kind", no_kind});
  cases.push_back({"not an object", Json::array({1, 2})});
  cases.push_back({"null", Json()});
  Json unsupported = Workload();
  unsupported["apiVersion"] = "example.com/v1";
  cases.push_back({"unsupported kind", unsupported});
  for (const Case& c : cases) {
    Result<api::Object> from_json = DecodeJsonObject(c.object);
    Result<api::Object> from_text = DecodeObject(c.object.dump());
    ASSERT_FALSE(from_text.ok()) << c.name;
    ASSERT_FALSE(from_json.ok()) << c.name;
    EXPECT_EQ(from_json.status().code(), from_text.status().code()) << c.name;
    EXPECT_EQ(from_json.status().message(), from_text.status().message()) << c.name;
  }
}

TEST(DecodeJsonObjectTest, SizeAndDepthAreBounded) {
  DecodeOptions small;
  small.max_bytes = 100;
  Result<api::Object> big = DecodeJsonObject(Workload(), small);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kTooLarge);

  Json deep = Json::array();
  for (int i = 0; i < 600; ++i) deep = Json::array({deep});
  Result<std::unique_ptr<JsonTree>> tree = JsonToTree(deep);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("deeper than 512"), std::string::npos);
}

TEST(DecodeJsonObjectTest, ManyThreadsAtOnce) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Json wl = Workload();
        wl["metadata"]["name"] = "wl-" + std::to_string(t) + "-" + std::to_string(i);
        Result<api::Object> r = DecodeJsonObject(wl);
        if (!r.ok() || std::get<api::Workload>(r->value).metadata.name !=
                           wl["metadata"]["name"].get<std::string>()) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace kuota::codec
