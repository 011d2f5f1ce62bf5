// `kuota describe workload` shows a pod set's topologyRequest and, once
// admitted, where its pods go (the topologyAssignment's domains).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/time.h"
#include "cli/describe_command.h"
#include "cli/resource_kinds.h"

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

TEST(DescribeTopologyTest, WorkloadRequestAndAssignment) {
  Json wl = Json::parse(R"({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns"},
    "spec": {"queueName": "lq", "podSets": [
      {"name": "workers", "count": 3, "template": {"spec": {"containers": [{"name": "c"}]}},
       "topologyRequest": {"required": "cloud.com/rack",
                           "podSetSliceRequiredTopology": "kubernetes.io/hostname",
                           "podSetSliceSize": 1}},
      {"name": "launcher", "count": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}]},
    "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
      {"name": "workers", "flavors": {"cpu": "tas"}, "resourceUsage": {"cpu": "3"},
       "topologyAssignment": {"levels": ["cloud.com/rack", "kubernetes.io/hostname"],
         "domains": [{"values": ["r1", "node-1"], "count": 2},
                     {"values": ["r1", "node-2"], "count": 1}]}},
      {"name": "launcher", "flavors": {"cpu": "tas"}, "resourceUsage": {"cpu": "1"}}]}}})");
  const KindInfo* kind = FindKind("workload");
  ASSERT_NE(kind, nullptr);
  std::string text = DescribeObject(*kind, wl, Json::object(), Time{});
  EXPECT_NE(text.find("Topology request: workers: required cloud.com/rack, slices of 1 within "
                      "kubernetes.io/hostname\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    Topology:     cloud.com/rack, kubernetes.io/hostname: (r1, node-1) x2, "
                      "(r1, node-2) x1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("Topology request: launcher"), std::string::npos) << text;
}

}  // namespace
}  // namespace kuota::cli
