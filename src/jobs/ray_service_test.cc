#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/jobs_test_util.h"
#include "jobs/ray_common.h"
#include "jobs/ray_service.h"

namespace kuota::jobs {
namespace {

// KubeRay's ray-service.sample.yaml, cut down, queued in team B.
Json RaySvcSample() {
  return Json::parse(R"({
    "apiVersion": "ray.io/v1", "kind": "RayService",
    "metadata": {"name": "rayservice-sample", "namespace": "team-b", "uid": "5e6f-7a8b",
                 "creationTimestamp": "2024-05-01T10:00:00Z",
                 "labels": {"kueue.x-k8s.io/queue-name": "local-queue",
                            "kueue.x-k8s.io/priority-class": "prod-priority"}},
    "spec": {
      "serveConfigV2": "applications:\n  - name: math_app\n    import_path: conditional_dag.serve_dag\n",
      "rayClusterConfig": {
        "rayVersion": "2.46.0",
        "headGroupSpec": {
          "rayStartParams": {"dashboard-host": "0.0.0.0"},
          "template": {"spec": {"containers": [{
            "name": "ray-head", "image": "rayproject/ray:2.46.0",
            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}},
        "workerGroupSpecs": [{
          "groupName": "small-group", "replicas": 2, "minReplicas": 1, "maxReplicas": 5,
          "rayStartParams": {},
          "template": {"spec": {"containers": [{
            "name": "ray-worker", "image": "rayproject/ray:2.46.0",
            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}]}}
  })");
}

std::string RaySvcErrorOf(const Status& st) { return st.ok() ? "OK" : st.message(); }

TEST(RayServiceKind, Info) {
  RayServiceKind k;
  EXPECT_EQ(k.Framework(), "ray.io/rayservice");
  EXPECT_EQ(k.Resource(), "rayservices.ray.io");
  EXPECT_EQ(k.ApiVersion(), "ray.io/v1");
  std::vector<std::string> shown;
  for (const PrinterColumn& c : k.Info().columns) shown.push_back(c.name);
  EXPECT_EQ(shown, (std::vector<std::string>{"service status", "num serve endpoints", "age"}));
}

TEST(RayServiceKind, ValidatesTheSample) {
  EXPECT_EQ(RaySvcErrorOf(RayServiceKind().Validate(RaySvcSample())), "OK");
}

TEST(RayServiceKind, ValidationErrors) {
  const std::vector<EditCase> cases = {
      {"no spec", [](Json& j) { j.erase("spec"); }, "spec: Required value"},
      {"no cluster config", [](Json& j) { j["spec"].erase("rayClusterConfig"); },
       "spec.rayClusterConfig: Required value"},
      {"no head group", [](Json& j) { j["spec"]["rayClusterConfig"].erase("headGroupSpec"); },
       "spec.rayClusterConfig.headGroupSpec: Required value"},
      {"serve config not a string", [](Json& j) { j["spec"]["serveConfigV2"] = 1; },
       "spec.serveConfigV2: Invalid value: 1: must be a string"},
      {"suspend not a boolean", [](Json& j) { j["spec"]["rayClusterConfig"]["suspend"] = "yes"; },
       "spec.rayClusterConfig.suspend: Invalid value: \"yes\": must be a boolean"},
      {"duplicate group",
       [](Json& j) {
         Json& w = j["spec"]["rayClusterConfig"]["workerGroupSpecs"];
         w.push_back(w[0]);
       },
       "spec.rayClusterConfig.workerGroupSpecs[1].groupName: Invalid value: \"small-group\": "
       "worker group names must be unique"},
      {"managed autoscaling",
       [](Json& j) { j["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = true; },
       "spec.rayClusterConfig.enableInTreeAutoscaling: Invalid value: true: a kueue managed job "
       "can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on and "
       "the job is an elastic job"},
      {"managed too many groups",
       [](Json& j) {
         Json& w = j["spec"]["rayClusterConfig"]["workerGroupSpecs"];
         Json g = w[0];
         for (int i = 1; i < 8; ++i) {
           g["groupName"] = "g" + std::to_string(i);
           w.push_back(g);
         }
       },
       "spec.rayClusterConfig.workerGroupSpecs: Too many: 8: must have at most 7 items"},
      {"slice size without level",
       [](Json& j) {
         j["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["metadata"] = {
             {"annotations", {{"kueue.x-k8s.io/podset-slice-size", "2"}}}};
       },
       "spec.rayClusterConfig.workerGroupSpecs[0].template.metadata.annotations"},
      {"bad name", [](Json& j) { j["metadata"]["name"] = "1svc"; },
       "metadata.name: Invalid value: \"1svc\": a DNS-1035 label"},
  };
  ExpectEditErrors(RayServiceKind(), RaySvcSample(), cases, Match::kPrefix);
  // Without a queue, Kueue's rules do not apply.
  Json unmanaged = RaySvcSample();
  unmanaged["metadata"].erase("labels");
  unmanaged["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = true;
  EXPECT_EQ(RaySvcErrorOf(RayServiceKind().Validate(unmanaged)), "OK");
}

TEST(RayServiceKind, BuildsTheWorkloadAsKueue) {
  RayServiceKind k;
  Json job = RaySvcSample();
  k.Default(job);
  k.DefaultOnCreate(job);
  // Kueue suspends a RayService through its cluster's suspend.
  EXPECT_EQ(job["spec"]["rayClusterConfig"]["suspend"], true);
  EXPECT_TRUE(k.IsSuspended(job));
  Json wl = WorkloadOf(k, job);
  ASSERT_EQ(PodSetCounts(wl), (std::vector<std::string>{"head:1", "small-group:2"}));
  const Json& spec = wl["spec"];
  EXPECT_EQ(spec["queueName"], "local-queue");
  EXPECT_EQ(spec["priorityClassRef"]["name"], "prod-priority");
  EXPECT_EQ(spec["podSets"][0]["template"]["spec"],
            job["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]);
  EXPECT_FALSE(spec["podSets"][1].contains("minCount"));
  EXPECT_FALSE(spec["podSets"][1].contains("topologyRequest"));
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("rayservice-rayservice-sample-", 0),
            0u);
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["kind"], "RayService");
  EXPECT_EQ(k.PodSetTemplateField(job, 1), "spec.rayClusterConfig.workerGroupSpecs[0].template");
}

TEST(RayServiceKind, StartStopRoundTrip) {
  RayServiceKind k;
  Json job = RaySvcSample();
  k.Default(job);
  k.DefaultOnCreate(job);
  const Json before = job;
  PodSetPlacement head{"head", 1, {{"cloud.provider.com/type", "cpu"}}, Json::array()};
  PodSetPlacement workers{"small-group",
                          2,
                          {{"cloud.provider.com/type", "gpu"}},
                          Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})};
  Json started = k.Start(job, {head, workers});
  EXPECT_FALSE(k.IsSuspended(started));
  const Json& cluster = started["spec"]["rayClusterConfig"];
  EXPECT_EQ(cluster["suspend"], false);
  EXPECT_EQ(cluster["headGroupSpec"]["template"]["spec"]["nodeSelector"]["cloud.provider.com/type"],
            "cpu");
  EXPECT_EQ(
      cluster["workerGroupSpecs"][0]["template"]["spec"]["nodeSelector"]["cloud.provider.com/type"],
      "gpu");
  EXPECT_EQ(cluster["workerGroupSpecs"][0]["template"]["spec"]["tolerations"][0]["key"],
            "nvidia.com/gpu");
  EXPECT_EQ(started["spec"]["serveConfigV2"], before["spec"]["serveConfigV2"]);
  EXPECT_EQ((*k.BuildWorkload(started))["spec"], (*k.BuildWorkload(before))["spec"]);
  Json stopped = k.Stop(started);
  EXPECT_TRUE(k.IsSuspended(stopped));
  EXPECT_EQ(stopped["spec"], before["spec"]);
  EXPECT_FALSE(stopped["metadata"]
                   .value("annotations", Json::object())
                   .contains(kOriginalPlacementAnnotation));
}

TEST(RayServiceKind, PodsOfItsClusterSeeTheHead) {
  RayServiceKind k;
  Json job = RaySvcSample();
  const std::vector<PodSetDef> sets = k.PodSets(job);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].stage, 0);
  EXPECT_EQ(sets[1].stage, 1);
  EXPECT_EQ(k.PodName(job, sets[0], 0), "rayservice-sample-raycluster-head-0");
  EXPECT_EQ(k.PodName(job, sets[1], 1), "rayservice-sample-raycluster-worker-small-group-1");
  Json worker = {
      {"metadata", {{"name", "w"}}},
      {"spec", job["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]}};
  k.CustomizePod(job, {&sets, 1, 0, "127.0.0.1"}, worker);
  EXPECT_EQ(worker["metadata"]["labels"]["ray.io/cluster"], "rayservice-sample-raycluster");
  EXPECT_EQ(worker["metadata"]["labels"]["ray.io/originated-from-crd"], "RayService");
  EXPECT_EQ(worker["metadata"]["labels"]["ray.io/originated-from-cr-name"], "rayservice-sample");
  EXPECT_EQ(EnvValue(worker, "RAY_ADDRESS", 0), "127.0.0.1:6379");
}

TEST(RayServiceKind, ServesUntilDeleted) {
  RayServiceKind k;
  Json job = RaySvcSample();
  k.Default(job);
  k.DefaultOnCreate(job);
  GroupObservation seen = Seen({{}, {}}, "2024-05-01T10:00:01Z");
  seen.suspended = true;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_FALSE(k.PodsReady(job));
  EXPECT_FALSE(job["status"].contains("activeServiceStatus"));
  // The same observation later changes nothing.
  seen.now = "2024-05-01T10:00:09Z";
  EXPECT_EQ(k.NextStatus(job, seen), job["status"]);

  job = k.Start(job, {});
  seen.suspended = false;
  seen.sets = {{0, 1, 0, 0}, {2, 0, 0, 0}};
  job["status"] = k.NextStatus(job, seen);
  EXPECT_FALSE(k.PodsReady(job));
  EXPECT_EQ(job["status"]["activeServiceStatus"]["rayClusterName"], "rayservice-sample-raycluster");
  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}};
  job["status"] = k.NextStatus(job, seen);
  EXPECT_TRUE(k.PodsReady(job));
  const KindInfo& info = k.Info();
  EXPECT_EQ(ColumnValue(info, "service status", job), "Running");
  EXPECT_EQ(ColumnValue(info, "num serve endpoints", job), 3);
  bool ok = true;
  EXPECT_FALSE(k.IsFinished(job, &ok));
  EXPECT_FALSE(k.Succeeded(job, k.PodSets(job), seen));
  // A Ray pod that ends, however it ends, comes back.
  for (PodEvent e : {PodEvent::kFailed, PodEvent::kEvicted, PodEvent::kSucceeded}) {
    EXPECT_EQ(k.OnPodEvent(job, k.PodSets(job)[1], e), GroupAction::kRestartPod);
  }

  // Preempted: the cluster goes, nothing serves.
  job = k.Stop(job);
  seen.suspended = true;
  seen.sets = {{}, {}};
  job["status"] = k.NextStatus(job, seen);
  EXPECT_FALSE(k.PodsReady(job));
  EXPECT_EQ(ColumnValue(info, "num serve endpoints", job), 0);
  EXPECT_FALSE(job["status"].contains("serviceStatus"));
}

}  // namespace
}  // namespace kuota::jobs
