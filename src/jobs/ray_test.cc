#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "jobs/jobs_test_util.h"
#include "jobs/ray_cluster.h"
#include "jobs/ray_common.h"
#include "jobs/ray_job.h"

namespace kuota::jobs {
namespace {

// Seed 001's team B cluster (kkphil83/acm kueue-preemption
// team-b-ray-cluster-dev.yaml, as `oc get rayclusters` reports it: 2 workers,
// 6 CPUs, 16G, 0 GPUs), with the labels the seed shows.
Json TeamBCluster() {
  return Json::parse(R"({
    "apiVersion": "ray.io/v1", "kind": "RayCluster",
    "metadata": {"name": "raycluster-dev", "namespace": "team-b", "uid": "0b1c2d3e-4f50",
                 "creationTimestamp": "2024-05-01T10:00:00Z",
                 "labels": {"kueue.x-k8s.io/queue-name": "local-queue",
                            "kueue.x-k8s.io/priority-class": "dev-priority"}},
    "spec": {
      "rayVersion": "2.7.0",
      "headGroupSpec": {
        "enableIngress": false,
        "rayStartParams": {"block": "true", "dashboard-host": "0.0.0.0", "num-gpus": "0"},
        "template": {"metadata": {}, "spec": {"containers": [{
          "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}],
          "image": "quay.io/project-codeflare/ray:latest-py39-cu118",
          "imagePullPolicy": "Always",
          "lifecycle": {"preStop": {"exec": {"command": ["/bin/sh", "-c", "ray stop"]}}},
          "name": "ray-head",
          "resources": {"limits": {"cpu": "2", "memory": "8G"},
                        "requests": {"cpu": "2", "memory": "8G"}}}]}}},
      "suspend": false,
      "workerGroupSpecs": [{
        "groupName": "small-group-test", "maxReplicas": 2, "minReplicas": 2, "numOfHosts": 1,
        "rayStartParams": {"block": "true", "num-gpus": "0"}, "replicas": 2, "scaleStrategy": {},
        "template": {"spec": {"containers": [{
          "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}],
          "name": "machine-learning",
          "image": "quay.io/project-codeflare/ray:latest-py39-cu118",
          "imagePullPolicy": "Always",
          "resources": {"limits": {"cpu": "2", "memory": "4G"},
                        "requests": {"cpu": "2", "memory": "4G"}}}]}}}]}
  })");
}

Json SampleRayJob() {
  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata",
               {{"name", "rayjob-sample"},
                {"namespace", "team-b"},
                {"uid", "A1-b2c3d4"},
                {"labels", {{"kueue.x-k8s.io/queue-name", "local-queue"}}}}},
              {"spec",
               {{"entrypoint", "python /home/ray/samples/sample_code.py"},
                {"shutdownAfterJobFinishes", true},
                {"rayClusterSpec", TeamBCluster()["spec"]}}}};
  job["spec"]["rayClusterSpec"].erase("suspend");
  return job;
}

std::string ErrorOf(const Status& st) { return st.ok() ? "OK" : st.message(); }

// ---------------- RayCluster ----------------

TEST(RayClusterKind, Info) {
  RayClusterKind k;
  EXPECT_EQ(k.Framework(), "ray.io/raycluster");
  EXPECT_EQ(k.Resource(), "rayclusters.ray.io");
  EXPECT_EQ(k.ApiVersion(), "ray.io/v1");
  std::vector<std::string> shown;
  for (const PrinterColumn& c : k.Info().columns) {
    if (c.priority == 0) shown.push_back(c.name);
  }
  EXPECT_EQ(shown, (std::vector<std::string>{"desired workers", "available workers", "cpus",
                                             "memory", "gpus", "status", "age"}));
}

TEST(RayClusterKind, ValidatesTheSeedCluster) {
  EXPECT_EQ(ErrorOf(RayClusterKind().Validate(TeamBCluster())), "OK");
}

TEST(RayClusterKind, ValidationErrors) {
  const std::vector<EditCase> cases = {
      {"no head group", [](Json& j) { j["spec"].erase("headGroupSpec"); },
       "spec.headGroupSpec: Required value"},
      {"no head template", [](Json& j) { j["spec"]["headGroupSpec"].erase("template"); },
       "spec.headGroupSpec.template: Required value"},
      {"no head containers",
       [](Json& j) {
         j["spec"]["headGroupSpec"]["template"]["spec"]["containers"] = Json::array();
       },
       "spec.headGroupSpec.template.spec.containers: Required value"},
      {"no group name", [](Json& j) { j["spec"]["workerGroupSpecs"][0].erase("groupName"); },
       "spec.workerGroupSpecs[0].groupName: Required value"},
      {"duplicate group",
       [](Json& j) { j["spec"]["workerGroupSpecs"].push_back(j["spec"]["workerGroupSpecs"][0]); },
       "spec.workerGroupSpecs[1].groupName: Invalid value: \"small-group-test\": worker group "
       "names must be unique"},
      {"replicas not integer", [](Json& j) { j["spec"]["workerGroupSpecs"][0]["replicas"] = "2"; },
       "spec.workerGroupSpecs[0].replicas: Invalid value: \"2\": must be an integer"},
      {"negative min", [](Json& j) { j["spec"]["workerGroupSpecs"][0]["minReplicas"] = -1; },
       "spec.workerGroupSpecs[0].minReplicas: Invalid value: -1: must be greater than or equal "
       "to 0"},
      {"min above max", [](Json& j) { j["spec"]["workerGroupSpecs"][0]["minReplicas"] = 3; },
       "spec.workerGroupSpecs[0].minReplicas: Invalid value: 3: must be less than or equal to "
       "maxReplicas (2)"},
      {"replicas above max", [](Json& j) { j["spec"]["workerGroupSpecs"][0]["replicas"] = 3; },
       "spec.workerGroupSpecs[0].replicas: Invalid value: 3: must be between minReplicas (2) and "
       "maxReplicas (2)"},
      {"no worker template", [](Json& j) { j["spec"]["workerGroupSpecs"][0].erase("template"); },
       "spec.workerGroupSpecs[0].template: Required value"},
      {"start param not a string",
       [](Json& j) { j["spec"]["headGroupSpec"]["rayStartParams"]["port"] = 6379; },
       "spec.headGroupSpec.rayStartParams.port: Invalid value: 6379: must be a string"},
      {"group named head", [](Json& j) { j["spec"]["workerGroupSpecs"][0]["groupName"] = "head"; },
       "spec.workerGroupSpecs[0].groupName: Forbidden: \"head\" is reserved for the head group"},
      {"managed autoscaling", [](Json& j) { j["spec"]["enableInTreeAutoscaling"] = true; },
       "spec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job can use "
       "autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on and the job is "
       "an elastic job"},
      {"managed too many groups",
       [](Json& j) {
         Json g = j["spec"]["workerGroupSpecs"][0];
         for (int i = 1; i < 8; ++i) {
           g["groupName"] = "g" + std::to_string(i);
           j["spec"]["workerGroupSpecs"].push_back(g);
         }
       },
       "spec.workerGroupSpecs: Too many: 8: must have at most 7 items"},
      {"bad name", [](Json& j) { j["metadata"]["name"] = "1cluster"; },
       "metadata.name: Invalid value: \"1cluster\": a DNS-1035 label must consist of lower case "
       "alphanumeric characters or '-', start with an alphabetic character, and end with an "
       "alphanumeric character"},
      {"no spec", [](Json& j) { j.erase("spec"); }, "spec: Required value"},
  };
  ExpectEditErrors(RayClusterKind(), TeamBCluster(), cases, Match::kWhole);
  // Without a queue, Kueue's rules do not apply.
  Json unmanaged = TeamBCluster();
  unmanaged["metadata"].erase("labels");
  unmanaged["spec"]["enableInTreeAutoscaling"] = true;
  EXPECT_EQ(ErrorOf(RayClusterKind().Validate(unmanaged)), "OK");
}

TEST(RayClusterKind, BuildsTheWorkloadAsKueue) {
  RayClusterKind k;
  Json job = TeamBCluster();
  k.Default(job);
  k.DefaultOnCreate(job);
  EXPECT_TRUE(k.IsSuspended(job));
  Json wl = WorkloadOf(k, job);
  ASSERT_EQ(PodSetCounts(wl), (std::vector<std::string>{"head:1", "small-group-test:2"}));
  const Json& spec = wl["spec"];
  EXPECT_EQ(spec["queueName"], "local-queue");
  EXPECT_EQ(spec["priorityClassRef"]["name"], "dev-priority");
  EXPECT_EQ(spec["priorityClassRef"]["kind"], "WorkloadPriorityClass");
  EXPECT_EQ(spec["podSets"][0]["template"]["spec"],
            job["spec"]["headGroupSpec"]["template"]["spec"]);
  EXPECT_FALSE(spec["podSets"][1].contains("minCount"));
  EXPECT_EQ(spec["podSets"][1]["template"]["spec"],
            job["spec"]["workerGroupSpecs"][0]["template"]["spec"]);
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("raycluster-raycluster-dev-", 0), 0u);
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["kind"], "RayCluster");

  // numOfHosts multiplies; upper-case group names are lower-cased.
  job["spec"]["workerGroupSpecs"][0]["numOfHosts"] = 2;
  job["spec"]["workerGroupSpecs"][0]["groupName"] = "Small-Group";
  std::vector<PodSetDef> sets = k.PodSets(job);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[1].name, "small-group");
  EXPECT_EQ(sets[1].count, 4);
  EXPECT_EQ(sets[0].stage, 0);
  EXPECT_EQ(sets[1].stage, 1);
  EXPECT_EQ(sets[1].template_path.to_string(), "/spec/workerGroupSpecs/0/template");
  EXPECT_EQ(k.PodSetTemplateField(job, 1), "spec.workerGroupSpecs[0].template");
}

TEST(RayClusterKind, StartStopRoundTrip) {
  RayClusterKind k;
  Json job = TeamBCluster();
  k.Default(job);
  k.DefaultOnCreate(job);
  const Json before = job;
  PodSetPlacement head{"head", 1, {{"cloud.provider.com/type", "cpu"}}, Json::array()};
  PodSetPlacement workers{"small-group-test",
                          2,
                          {{"cloud.provider.com/type", "gpu"}},
                          Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}})};
  Json started = k.Start(job, {head, workers});
  EXPECT_FALSE(k.IsSuspended(started));
  EXPECT_EQ(started["spec"]["suspend"], false);
  EXPECT_EQ(started["spec"]["headGroupSpec"]["template"]["spec"]["nodeSelector"]
                   ["cloud.provider.com/type"],
            "cpu");
  EXPECT_EQ(started["spec"]["workerGroupSpecs"][0]["template"]["spec"]["tolerations"][0]["key"],
            "nvidia.com/gpu");
  // The Workload of a running cluster still describes it as submitted.
  EXPECT_EQ((*k.BuildWorkload(started))["spec"], (*k.BuildWorkload(before))["spec"]);
  Json stopped = k.Stop(started);
  EXPECT_TRUE(k.IsSuspended(stopped));
  EXPECT_EQ(stopped["spec"], before["spec"]);
  EXPECT_FALSE(stopped["metadata"]
                   .value("annotations", Json::object())
                   .contains(kOriginalPlacementAnnotation));
}

TEST(RayClusterKind, PodNamesLabelsAndEnv) {
  RayClusterKind k;
  Json job = TeamBCluster();
  const std::vector<PodSetDef> sets = k.PodSets(job);
  EXPECT_EQ(k.PodName(job, sets[0], 0), "raycluster-dev-head-0");
  EXPECT_EQ(k.PodName(job, sets[1], 1), "raycluster-dev-worker-small-group-test-1");

  Json head = {{"metadata", {{"name", "raycluster-dev-head-0"}}},
               {"spec", job["spec"]["headGroupSpec"]["template"]["spec"]}};
  // A second container gets the environment too.
  head["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "busybox"}});
  k.CustomizePod(job, {&sets, 0, 0, "127.0.0.1"}, head);
  EXPECT_EQ(head["metadata"]["labels"]["ray.io/cluster"], "raycluster-dev");
  EXPECT_EQ(head["metadata"]["labels"]["ray.io/group"], "headgroup");
  EXPECT_EQ(head["metadata"]["labels"]["ray.io/node-type"], "head");
  EXPECT_EQ(head["metadata"]["labels"]["ray.io/is-ray-node"], "yes");
  for (size_t c : {0u, 1u}) {
    EXPECT_EQ(EnvValue(head, "RAY_ADDRESS", c), "127.0.0.1:6379");
    EXPECT_EQ(EnvValue(head, "RAY_PORT", c), "6379");
    EXPECT_EQ(EnvValue(head, "RAY_CLUSTER_NAME", c), "raycluster-dev");
    EXPECT_EQ(EnvValue(head, "RAY_CLOUD_INSTANCE_ID", c), "raycluster-dev-head-0");
    EXPECT_EQ(EnvValue(head, "RAY_NODE_TYPE_NAME", c), "headgroup");
    EXPECT_EQ(EnvValue(head, "RAY_IP", c), "<unset>");
  }
  EXPECT_EQ(EnvValue(head, "NVIDIA_VISIBLE_DEVICES", 0), "void");
  EXPECT_EQ(EnvValue(head, "KUBERAY_GEN_RAY_START_CMD", 0),
            "ray start --head  --block  --dashboard-agent-listen-port=52365  "
            "--dashboard-host=0.0.0.0  --memory=8000000000  --metrics-export-port=8080  "
            "--num-cpus=2  --num-gpus=0 ");

  Json worker = {{"metadata", {{"name", "raycluster-dev-worker-small-group-test-1"}}},
                 {"spec", job["spec"]["workerGroupSpecs"][0]["template"]["spec"]}};
  // A port the user sets wins, as KubeRay leaves it.
  worker["spec"]["containers"][0]["env"].push_back({{"name", "RAY_PORT"}, {"value", "7000"}});
  k.CustomizePod(job, {&sets, 1, 1, "127.0.0.1"}, worker);
  EXPECT_EQ(worker["metadata"]["labels"]["ray.io/group"], "small-group-test");
  EXPECT_EQ(worker["metadata"]["labels"]["ray.io/node-type"], "worker");
  EXPECT_EQ(EnvValue(worker, "RAY_IP", 0), "127.0.0.1");
  EXPECT_EQ(EnvValue(worker, "FQ_RAY_IP", 0), "127.0.0.1");
  EXPECT_EQ(EnvValue(worker, "RAY_ADDRESS", 0), "127.0.0.1:6379");
  EXPECT_EQ(EnvValue(worker, "RAY_PORT", 0), "7000");
  EXPECT_EQ(EnvValue(worker, "RAY_NODE_TYPE_NAME", 0), "small-group-test");
  EXPECT_EQ(EnvValue(worker, "RAY_CLOUD_INSTANCE_ID", 0),
            "raycluster-dev-worker-small-group-test-1");
  EXPECT_EQ(EnvValue(worker, "KUBERAY_GEN_RAY_START_CMD", 0),
            "ray start  --address=127.0.0.1:6379  --block  --dashboard-agent-listen-port=52365  "
            "--memory=4000000000  --metrics-export-port=8080  --num-cpus=2  --num-gpus=0 ");

  // A head port from rayStartParams.
  job["spec"]["headGroupSpec"]["rayStartParams"]["port"] = "6380";
  Json w2 = {{"spec", job["spec"]["workerGroupSpecs"][0]["template"]["spec"]}};
  k.CustomizePod(job, {&sets, 1, 0, "127.0.0.1"}, w2);
  EXPECT_EQ(EnvValue(w2, "RAY_ADDRESS", 0), "127.0.0.1:6380");
}

TEST(RayClusterKind, StatusAsTheSeedPrintsIt) {
  RayClusterKind k;
  Json job = TeamBCluster();
  k.Default(job);
  k.DefaultOnCreate(job);
  // Suspended by Kueue, no pods: team B's row after preemption.
  GroupObservation seen = Seen({{}, {}}, "2024-05-01T10:00:01Z");
  seen.suspended = true;
  job["status"] = k.NextStatus(job, seen);
  const KindInfo& info = k.Info();
  EXPECT_EQ(ColumnValue(info, "desired workers", job), 2);
  EXPECT_TRUE(ColumnValue(info, "available workers", job).is_null());
  EXPECT_EQ(ColumnValue(info, "cpus", job), "6");
  EXPECT_EQ(ColumnValue(info, "memory", job), "16G");
  EXPECT_EQ(ColumnValue(info, "gpus", job), "0");
  EXPECT_EQ(ColumnValue(info, "status", job), "suspended");
  EXPECT_EQ(ColumnValue(info, "age", job), "2024-05-01T10:00:00Z");
  EXPECT_FALSE(k.PodsReady(job));
  bool ok = true;
  EXPECT_FALSE(k.IsFinished(job, &ok));
  // The same observation later changes nothing.
  seen.now = "2024-05-01T10:00:09Z";
  EXPECT_EQ(k.NextStatus(job, seen), job["status"]);

  // Admitted: head first, then the workers; all running is "ready".
  job = k.Start(job, {});
  seen.suspended = false;
  seen.sets = {{1, 0, 0, 0}, {0, 0, 0, 0}};
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["state"], "suspended");  // KubeRay keeps it until ready
  EXPECT_FALSE(k.PodsReady(job));
  seen.sets = {{0, 1, 0, 0}, {2, 0, 0, 0}};
  job["status"] = k.NextStatus(job, seen);
  EXPECT_FALSE(k.PodsReady(job));
  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}};
  seen.now = "2024-05-01T10:01:10Z";
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(ColumnValue(info, "status", job), "ready");
  EXPECT_EQ(ColumnValue(info, "available workers", job), 2);
  EXPECT_TRUE(k.PodsReady(job));
  EXPECT_FALSE(k.IsFinished(job, &ok));
  const Json ready = job["status"];
  EXPECT_EQ(ready["head"]["podName"], "raycluster-dev-head-0");
  bool provisioned = false;
  for (const Json& c : ready["conditions"]) {
    if (c["type"] == "RayClusterProvisioned") provisioned = c["status"] == "True";
  }
  EXPECT_TRUE(provisioned);
  seen.now = "2024-05-01T10:05:00Z";
  EXPECT_EQ(k.NextStatus(job, seen), ready);

  // A worker fails and is being recreated: not all pods ready; restarts are
  // recorded and read back.
  seen.sets = {{0, 1, 0, 0}, {1, 1, 0, 0}};
  seen.restarts = 1;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_FALSE(k.PodsReady(job));
  EXPECT_EQ(k.Restarts(job), 1);
  EXPECT_EQ(job["status"]["state"], "ready");
}

TEST(RayClusterKind, DesiredResourcesKeepTheFirstFormat) {
  Json job = TeamBCluster();
  job["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"] = {
      {"requests", {{"cpu", "500m"}, {"memory", "8Gi"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}};
  job["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"] = {
      {"requests", {{"cpu", "750m"}, {"memory", "4Gi"}}}, {"limits", {{"nvidia.com/gpu", "2"}}}};
  ray::DesiredResources r = ray::SumDesiredResources(job, {Json::json_pointer("/spec"), "spec"});
  EXPECT_EQ(r.cpu, "2");
  EXPECT_EQ(r.memory, "16Gi");
  EXPECT_EQ(r.gpu, "5");
  EXPECT_EQ(r.tpu, "0");
}

TEST(RayClusterKind, PodsAlwaysComeBack) {
  RayClusterKind k;
  Json job = TeamBCluster();
  const std::vector<PodSetDef> sets = k.PodSets(job);
  for (PodEvent e : {PodEvent::kFailed, PodEvent::kEvicted, PodEvent::kSucceeded}) {
    EXPECT_EQ(k.OnPodEvent(job, sets[0], e), GroupAction::kRestartPod);
    EXPECT_EQ(k.OnPodEvent(job, sets[1], e), GroupAction::kRestartPod);
  }
  EXPECT_EQ(k.MaxRestarts(job), std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(k.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 0, 2, 0}}, "t")));
}

// ---------------- RayJob ----------------

TEST(RayJobKind, Info) {
  RayJobKind k;
  EXPECT_EQ(k.Framework(), "ray.io/rayjob");
  EXPECT_EQ(k.Resource(), "rayjobs.ray.io");
  std::vector<std::string> names;
  for (const PrinterColumn& c : k.Info().columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"job status", "deployment status", "ray cluster name",
                                             "start time", "end time", "age"}));
}

TEST(RayJobKind, ValidationErrors) {
  EXPECT_EQ(ErrorOf(RayJobKind().Validate(SampleRayJob())), "OK");
  const std::vector<EditCase> cases = {
      {"cluster selector",
       [](Json& j) {
         j["spec"].erase("rayClusterSpec");
         j["spec"]["clusterSelector"] = {{"ray.io/cluster", "raycluster-dev"}};
       },
       "spec.clusterSelector: Invalid value: {\"ray.io/cluster\":\"raycluster-dev\"}: a kueue "
       "managed job should not use an existing cluster"},
      {"no cluster spec", [](Json& j) { j["spec"].erase("rayClusterSpec"); },
       "spec.rayClusterSpec: Required value"},
      {"no head group", [](Json& j) { j["spec"]["rayClusterSpec"].erase("headGroupSpec"); },
       "spec.rayClusterSpec.headGroupSpec: Required value"},
      {"keeps its cluster", [](Json& j) { j["spec"]["shutdownAfterJobFinishes"] = false; },
       "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete "
       "the cluster after finishing"},
      {"autoscaling",
       [](Json& j) { j["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = true; },
       "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job "
       "should not use autoscaling"},
      {"group named head",
       [](Json& j) { j["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["groupName"] = "head"; },
       "spec.rayClusterSpec.workerGroupSpecs[0].groupName: Forbidden: \"head\" is reserved for "
       "the head group"},
      {"http mode", [](Json& j) { j["spec"]["submissionMode"] = "HTTPMode"; },
       "spec.submissionMode: Unsupported value: \"HTTPMode\": supported values: \"K8sJobMode\""},
      {"no entrypoint", [](Json& j) { j["spec"].erase("entrypoint"); },
       "spec.entrypoint: Required value"},
      {"negative backoff", [](Json& j) { j["spec"]["backoffLimit"] = -1; },
       "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
      {"bad submitter template",
       [](Json& j) {
         j["spec"]["submitterPodTemplate"] = {{"spec", Json::object()}};
       },
       "spec.submitterPodTemplate.spec.containers: Required value"},
      {"name too long", [](Json& j) { j["metadata"]["name"] = std::string(48, 'a'); },
       "metadata.name: Invalid value: \"" + std::string(48, 'a') +
           "\": must be no more than 47 characters"},
  };
  ExpectEditErrors(RayJobKind(), SampleRayJob(), cases, Match::kWhole);
  // Unmanaged: KubeRay's own rule, and still no existing clusters.
  Json job = SampleRayJob();
  job["metadata"].erase("labels");
  job["spec"]["shutdownAfterJobFinishes"] = false;
  EXPECT_EQ(ErrorOf(RayJobKind().Validate(job)), "OK");
  job["spec"]["suspend"] = true;
  EXPECT_EQ(ErrorOf(RayJobKind().Validate(job)),
            "spec.suspend: Invalid value: true: a RayJob with shutdownAfterJobFinishes set to "
            "false is not allowed to be suspended");
  job["spec"]["clusterSelector"] = {{"ray.io/cluster", "c"}};
  EXPECT_EQ(ErrorOf(RayJobKind().Validate(job)).rfind("spec.clusterSelector: Invalid value:", 0),
            0u);
}

TEST(RayJobKind, WorkloadHasHeadWorkersAndSubmitter) {
  RayJobKind k;
  Json job = SampleRayJob();
  k.Default(job);
  k.DefaultOnCreate(job);
  EXPECT_TRUE(k.IsSuspended(job));
  const Json& sub = job["spec"]["submitterPodTemplate"]["spec"];
  EXPECT_EQ(sub["containers"][0]["name"], "ray-job-submitter");
  EXPECT_EQ(sub["containers"][0]["image"], "quay.io/project-codeflare/ray:latest-py39-cu118");
  EXPECT_EQ(sub["containers"][0]["resources"]["requests"]["cpu"], "500m");
  EXPECT_EQ(sub["restartPolicy"], "Never");
  EXPECT_EQ(ErrorOf(k.Validate(job)), "OK");

  Json wl = WorkloadOf(k, job);
  ASSERT_EQ(PodSetCounts(wl),
            (std::vector<std::string>{"head:1", "small-group-test:2", "submitter:1"}));
  EXPECT_EQ(wl["spec"]["podSets"][2]["template"]["spec"], sub);
  EXPECT_FALSE(wl["spec"].contains("priorityClassRef"));
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("rayjob-rayjob-sample-", 0), 0u);

  const std::vector<PodSetDef> sets = k.PodSets(job);
  EXPECT_EQ(sets[0].stage, 0);
  EXPECT_EQ(sets[1].stage, 1);
  EXPECT_EQ(sets[2].stage, 2);
  EXPECT_EQ(k.PodSetTemplateField(job, 1), "spec.rayClusterSpec.workerGroupSpecs[0].template");
  EXPECT_EQ(k.PodName(job, sets[0], 0), "rayjob-sample-raycluster-head-0");
  EXPECT_EQ(k.PodName(job, sets[1], 1), "rayjob-sample-raycluster-worker-small-group-test-1");
  EXPECT_EQ(k.PodName(job, sets[2], 0), "rayjob-sample-submitter-0");

  // A template the user gives is kept.
  Json own = SampleRayJob();
  own["spec"]["submitterPodTemplate"] = {
      {"spec",
       {{"containers", {{{"name", "submit"}, {"image", "python:3.11"}}}},
        {"restartPolicy", "Never"}}}};
  k.Default(own);
  k.DefaultOnCreate(own);
  EXPECT_EQ(own["spec"]["submitterPodTemplate"]["spec"]["containers"][0]["name"], "submit");

  // Start and Stop reach the submitter's template too.
  Json started = k.Start(job, {{"submitter", 1, {{"pool", "cpu"}}, Json::array()}});
  EXPECT_EQ(started["spec"]["submitterPodTemplate"]["spec"]["nodeSelector"]["pool"], "cpu");
  EXPECT_EQ(started["spec"]["suspend"], false);
  EXPECT_EQ(k.Stop(started)["spec"], job["spec"]);
}

TEST(RayJobKind, SubmitterRunsTheEntrypointAgainstTheHead) {
  RayJobKind k;
  Json job = SampleRayJob();
  k.Default(job);
  k.DefaultOnCreate(job);
  const std::vector<PodSetDef> sets = k.PodSets(job);
  Json pod = {{"metadata", {{"name", "rayjob-sample-submitter-0"}}},
              {"spec", job["spec"]["submitterPodTemplate"]["spec"]}};
  k.CustomizePod(job, {&sets, 2, 0, "127.0.0.1"}, pod);
  EXPECT_EQ(pod["spec"]["containers"][0]["command"],
            Json::array({"sh", "-c", "python /home/ray/samples/sample_code.py"}));
  EXPECT_EQ(EnvValue(pod, "RAY_ADDRESS", 0), "127.0.0.1:6379");
  EXPECT_EQ(EnvValue(pod, "RAY_DASHBOARD_ADDRESS", 0), "127.0.0.1:8265");
  EXPECT_EQ(EnvValue(pod, "RAY_JOB_SUBMISSION_ID", 0), "rayjob-sample-a1b2c");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/originated-from-cr-name"], "rayjob-sample");

  // The Ray pods belong to the job's cluster.
  Json head = {{"spec", job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]}};
  k.CustomizePod(job, {&sets, 0, 0, "127.0.0.1"}, head);
  EXPECT_EQ(head["metadata"]["labels"]["ray.io/cluster"], "rayjob-sample-raycluster");
  EXPECT_EQ(EnvValue(head, "RAY_CLUSTER_NAME", 0), "rayjob-sample-raycluster");
  EXPECT_EQ(EnvValue(head, "RAY_CLOUD_INSTANCE_ID", 0), "rayjob-sample-raycluster-head-0");
  EXPECT_EQ(EnvValue(head, "RAY_JOB_SUBMISSION_ID", 0), "<unset>");

  // A submitter with its own command keeps it.
  job["spec"]["jobId"] = "my-job";
  Json own = pod;
  own["spec"]["containers"][0]["command"] = Json::array({"python", "submit.py"});
  own["spec"]["containers"][0]["env"] = Json::array();
  k.CustomizePod(job, {&sets, 2, 0, "127.0.0.1"}, own);
  EXPECT_EQ(own["spec"]["containers"][0]["command"], Json::array({"python", "submit.py"}));
  EXPECT_EQ(EnvValue(own, "RAY_JOB_SUBMISSION_ID", 0), "my-job");
}

TEST(RayJobKind, StatusFollowsKubeRay) {
  RayJobKind k;
  Json job = SampleRayJob();
  k.Default(job);
  k.DefaultOnCreate(job);
  GroupObservation seen = Seen({{}, {}, {}}, "2024-05-01T10:00:00Z");
  seen.suspended = true;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["jobDeploymentStatus"], "Suspended");
  EXPECT_FALSE(job["status"].contains("jobStatus"));
  EXPECT_EQ(k.NextStatus(job, seen), job["status"]);

  job = k.Start(job, {});
  seen.suspended = false;
  seen.sets = {{1, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  seen.now = "2024-05-01T10:00:05Z";
  job["status"] = k.NextStatus(job, seen);
  const KindInfo& info = k.Info();
  EXPECT_EQ(ColumnValue(info, "deployment status", job), "Initializing");
  EXPECT_EQ(ColumnValue(info, "start time", job), "2024-05-01T10:00:05Z");
  EXPECT_EQ(ColumnValue(info, "ray cluster name", job), "rayjob-sample-raycluster");
  EXPECT_TRUE(ColumnValue(info, "job status", job).is_null());
  EXPECT_TRUE(ColumnValue(info, "end time", job).is_null());
  EXPECT_FALSE(k.PodsReady(job));

  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}, {1, 0, 0, 0}};
  seen.now = "2024-05-01T10:00:30Z";
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["jobDeploymentStatus"], "Running");
  EXPECT_EQ(job["status"]["jobStatus"], "PENDING");
  EXPECT_EQ(job["status"]["rayClusterStatus"]["state"], "ready");
  EXPECT_EQ(job["status"]["startTime"], "2024-05-01T10:00:05Z");
  EXPECT_TRUE(k.PodsReady(job));

  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 1, 0, 0}};
  seen.now = "2024-05-01T10:00:40Z";
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(ColumnValue(info, "job status", job), "RUNNING");
  seen.now = "2024-05-01T10:00:50Z";
  EXPECT_EQ(k.NextStatus(job, seen), job["status"]);
  bool ok = false;
  EXPECT_FALSE(k.IsFinished(job, &ok));

  // The submitter fails once and is retried.
  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}, {1, 0, 0, 0}};
  seen.restarts = 1;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(k.Restarts(job), 1);
  EXPECT_EQ(job["status"]["jobStatus"], "RUNNING");

  Json done = job;
  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 0, 1, 0}};
  seen.outcome = GroupObservation::Outcome::kSucceeded;
  seen.now = "2024-05-01T10:02:00Z";
  done["status"] = k.NextStatus(done, seen);
  EXPECT_EQ(ColumnValue(info, "deployment status", done), "Complete");
  EXPECT_EQ(ColumnValue(info, "job status", done), "SUCCEEDED");
  EXPECT_EQ(ColumnValue(info, "end time", done), "2024-05-01T10:02:00Z");
  EXPECT_TRUE(k.IsFinished(done, &ok));
  EXPECT_TRUE(ok);
  seen.now = "2024-05-01T10:03:00Z";
  EXPECT_EQ(k.NextStatus(done, seen), done["status"]);

  Json failed = job;
  seen.sets = {{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 0, 0, 1}};
  seen.outcome = GroupObservation::Outcome::kFailed;
  seen.reason = "BackoffLimitExceeded";
  seen.message = "the submitter failed 3 times";
  failed["status"] = k.NextStatus(failed, seen);
  EXPECT_EQ(failed["status"]["jobDeploymentStatus"], "Failed");
  EXPECT_EQ(failed["status"]["jobStatus"], "FAILED");
  EXPECT_EQ(failed["status"]["reason"], "AppFailed");
  EXPECT_EQ(failed["status"]["message"], "the submitter failed 3 times");
  EXPECT_TRUE(k.IsFinished(failed, &ok));
  EXPECT_FALSE(ok);

  // Preempted while running: KubeRay deletes the cluster and resets.
  Json preempted = k.Stop(job);
  GroupObservation gone = Seen({{}, {}, {}}, "2024-05-01T10:04:00Z");
  gone.suspended = true;
  gone.restarts = 1;
  preempted["status"] = k.NextStatus(preempted, gone);
  EXPECT_EQ(preempted["status"]["jobDeploymentStatus"], "Suspended");
  EXPECT_FALSE(preempted["status"].contains("rayClusterName"));
  EXPECT_FALSE(k.PodsReady(preempted));
  EXPECT_FALSE(k.IsFinished(preempted, &ok));
}

TEST(RayJobKind, PodEventsAndRetries) {
  RayJobKind k;
  Json job = SampleRayJob();
  k.Default(job);
  k.DefaultOnCreate(job);
  const std::vector<PodSetDef> sets = k.PodSets(job);
  EXPECT_EQ(k.OnPodEvent(job, sets[2], PodEvent::kSucceeded), GroupAction::kCompleteJob);
  EXPECT_EQ(k.OnPodEvent(job, sets[2], PodEvent::kFailed), GroupAction::kRestartPod);
  EXPECT_EQ(k.OnPodEvent(job, sets[0], PodEvent::kFailed), GroupAction::kRestartPod);
  EXPECT_EQ(k.OnPodEvent(job, sets[1], PodEvent::kSucceeded), GroupAction::kRestartPod);
  EXPECT_EQ(k.MaxRestarts(job), 2);
  job["spec"]["submitterConfig"] = {{"backoffLimit", 5}};
  EXPECT_EQ(k.MaxRestarts(job), 5);
  EXPECT_FALSE(k.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 1, 0, 0}}, "t")));
  EXPECT_TRUE(k.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 0, 1, 0}}, "t")));
}

}  // namespace
}  // namespace kuota::jobs
