// IsNonTasPod and NonTasPodProjection: which pods count against their node's
// capacity for topology-aware scheduling (Kueue's belongsToNonTASCache), and
// that what the engine reads of a real pod decodes.
#include "control/non_tas_pod.h"

#include <gtest/gtest.h>

#include "api/codec/decode.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json RunningPod() {
  return Json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "uid": "u1", "resourceVersion": "7",
                 "labels": {"app": "web"}, "annotations": {"note": "x"},
                 "managedFields": [{"manager": "kubectl"}]},
    "spec": {"nodeName": "node-1", "schedulerName": "default-scheduler",
             "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                             "resources": {"requests": {"cpu": "500m"}}}],
             "initContainers": [{"name": "sidecar", "restartPolicy": "Always",
                                 "resources": {"requests": {"cpu": "100m"}}}],
             "overhead": {"cpu": "10m"},
             "someFutureField": {"a": 1}},
    "status": {"phase": "Running", "podIP": "10.0.0.1", "someFutureStatus": true}})");
}

TEST(NonTasPodTest, BoundRunningPodCounts) {
  EXPECT_TRUE(IsNonTasPod(RunningPod()));
  Json pending = RunningPod();
  pending["status"]["phase"] = "Pending";
  EXPECT_TRUE(IsNonTasPod(pending));
  Json no_status = RunningPod();
  no_status.erase("status");
  EXPECT_TRUE(IsNonTasPod(no_status));
  // Managed by Kueue but not placed by TAS: its usage is the node's, as in Kueue.
  Json managed = RunningPod();
  managed["metadata"]["labels"]["kueue.x-k8s.io/managed"] = "true";
  EXPECT_TRUE(IsNonTasPod(managed));
}

TEST(NonTasPodTest, UnboundTerminatedAndTasPodsDoNot) {
  Json unbound = RunningPod();
  unbound["spec"].erase("nodeName");
  EXPECT_FALSE(IsNonTasPod(unbound));
  Json empty_node = RunningPod();
  empty_node["spec"]["nodeName"] = "";
  EXPECT_FALSE(IsNonTasPod(empty_node));
  for (const char* phase : {"Succeeded", "Failed"}) {
    Json done = RunningPod();
    done["status"]["phase"] = phase;
    EXPECT_FALSE(IsNonTasPod(done)) << phase;
  }
  for (const char* key :
       {"kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
        "kueue.x-k8s.io/podset-unconstrained-topology",
        "kueue.x-k8s.io/podset-slice-required-topology",
        "kueue.x-k8s.io/podset-slice-required-topology-constraints"}) {
    Json tas = RunningPod();
    tas["metadata"]["annotations"][key] = "cloud.com/rack";
    EXPECT_FALSE(IsNonTasPod(tas)) << key;
  }
  EXPECT_FALSE(IsNonTasPod(Json::array()));
  EXPECT_FALSE(IsNonTasPod(Json::object()));
}

TEST(NonTasPodTest, ProjectionDecodesAsThePod) {
  Result<api::Object> decoded = codec::DecodeJsonObject(NonTasPodProjection(RunningPod()));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto& pod = std::get<api::Pod>(decoded->value);
  EXPECT_EQ(pod.metadata.namespace_, "default");
  EXPECT_EQ(pod.metadata.name, "web");
  EXPECT_EQ(pod.metadata.labels.at("app"), "web");
  EXPECT_EQ(pod.node_name, "node-1");
  EXPECT_EQ(pod.phase, "Running");
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  EXPECT_EQ(pod.spec.containers[0].resources.requests.at("cpu").milli(), 500);
  ASSERT_EQ(pod.spec.init_containers.size(), 1u);
  EXPECT_EQ(pod.spec.init_containers[0].restart_policy, "Always");
  EXPECT_EQ(pod.spec.overhead.at("cpu").milli(), 10);
}

}  // namespace
}  // namespace kuota::control
