// Tests for VolcanoJobKind and JobSetKind: validation with field paths,
// Workload pod sets, start/stop, pod environment, policies and status.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/group_reconcile.h"
#include "jobs/jobs_test_util.h"
#include "jobs/jobset.h"
#include "jobs/volcano_job.h"

namespace kuota::jobs {
namespace {

// Seed 002's two Volcano jobs (YAML transcribed to JSON, unchanged).
constexpr const char* kPytorchDdp = R"json({
  "apiVersion": "batch.volcano.sh/v1alpha1",
  "kind": "Job",
  "metadata": {"name": "pytorch-ddp-training"},
  "spec": {
    "minAvailable": 4,
    "schedulerName": "volcano",
    "plugins": {"svc": ["--publish-not-ready-addresses"], "ssh": [], "env": []},
    "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
    "queue": "default",
    "tasks": [{
      "replicas": 4,
      "name": "worker",
      "template": {"spec": {
        "containers": [{
          "name": "pytorch",
          "image": "pytorch-ddp:latest",
          "command": ["torchrun", "--nnodes=4", "--nproc_per_node=1", "--rdzv_backend=c10d",
                      "--rdzv_endpoint=$(VC_WORKER_0_SVC):29500", "train.py"],
          "ports": [{"containerPort": 29500, "name": "rdzv"}],
          "resources": {"limits": {"nvidia.com/gpu": 1}},
          "env": [{"name": "NCCL_DEBUG", "value": "INFO"}]
        }],
        "restartPolicy": "OnFailure"
      }}
    }]
  }
})json";

constexpr const char* kHorovod = R"json({
  "apiVersion": "batch.volcano.sh/v1alpha1",
  "kind": "Job",
  "metadata": {"name": "horovod-training"},
  "spec": {
    "minAvailable": 5,
    "schedulerName": "volcano",
    "plugins": {"ssh": [], "svc": []},
    "tasks": [
      {"replicas": 1, "name": "master",
       "policies": [{"event": "TaskCompleted", "action": "CompleteJob"}],
       "template": {"spec": {"containers": [{
         "name": "horovod", "image": "horovod-training:latest",
         "command": ["horovodrun", "-np", "4", "-H", "$(VC_WORKER_HOSTS)", "python", "train.py"]
}]
}
}
},
      {"replicas": 4, "name": "worker",
       "template": {"spec": {"containers": [{
         "name": "horovod", "image": "horovod-training:latest",
         "resources": {"limits": {"nvidia.com/gpu": 1}}
       }]}}}
    ]
}
})json";

constexpr const char* kJobSet = R"json({
  "apiVersion": "jobset.x-k8s.io/v1alpha2",
  "kind": "JobSet",
  "metadata": {"name": "js"},
  "spec": {
    "replicatedJobs": [
      {"name": "driver", "replicas": 1,
       "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "d", "image": "busybox", "command": ["true"]}]}}}}},
      {"name": "workers", "replicas": 2,
       "template": {"spec": {"parallelism": 3, "completions": 3, "backoffLimit": 0,
         "template": {"spec": {"restartPolicy": "Never",
           "containers": [{"name": "w", "image": "busybox", "command": ["true"]}]}}}}}
    ]
  }
})json";

// What the API server adds before the adapters see an object.
Json Stored(const char* manifest) {
  Json j = Json::parse(manifest);
  j["metadata"]["namespace"] = "default";
  j["metadata"]["uid"] = "uid-1";
  j["metadata"]["creationTimestamp"] = "2024-05-01T10:00:00Z";
  return j;
}

std::string InvalidMessage(const JobKind& kind, const Json& job) {
  Status s = kind.Validate(job);
  EXPECT_FALSE(s.ok());
  return s.message();
}

Json BuildPod(const GroupJobKind& kind, const Json& job, const std::vector<PodSetDef>& sets,
              size_t set, int64_t index) {
  Json pod = {{"metadata", Json::object()}, {"spec", *FindTemplate(job, sets[set])}};
  pod["spec"] = (*FindTemplate(job, sets[set]))["spec"];
  kind.CustomizePod(job, PodPosition{&sets, set, index, "127.0.0.1"}, pod);
  return pod;
}

Json WithStatus(Json job, const Json& status) {
  job["status"] = status;
  return job;
}

// ---------------------------------------------------------------- Volcano

TEST(VolcanoJobKindTest, InfoAsTheCrd) {
  VolcanoJobKind kind;
  EXPECT_EQ(kind.Resource(), "jobs.batch.volcano.sh");
  EXPECT_EQ(kind.ApiVersion(), "batch.volcano.sh/v1alpha1");
  EXPECT_EQ(kind.Kind(), "Job");
  EXPECT_EQ(kind.Framework(), "batch.volcano.sh/job");
  EXPECT_EQ(kind.Info().short_names, (std::vector<std::string>{"vcjob", "vj"}));
  ASSERT_EQ(kind.Info().columns.size(), 5u);
  EXPECT_EQ(kind.Info().columns[4].name, "QUEUE");
  EXPECT_EQ(kind.Info().columns[4].priority, 1);
  EXPECT_EQ(kind.Info().columns[3].type, "date");
}

TEST(VolcanoJobKindTest, SeedJobsValidate) {
  VolcanoJobKind kind;
  EXPECT_TRUE(kind.Validate(Stored(kPytorchDdp)).ok())
      << kind.Validate(Stored(kPytorchDdp)).message();
  EXPECT_TRUE(kind.Validate(Stored(kHorovod)).ok()) << kind.Validate(Stored(kHorovod)).message();
}

TEST(VolcanoJobKindTest, InvalidVariantsNameTheField) {
  VolcanoJobKind kind;
  const std::vector<EditCase> cases = {
      {"minAvailable over replicas", [](Json& j) { j["spec"]["minAvailable"] = 9; },
       "spec.minAvailable: Invalid value: 9: should not be greater than total replicas in tasks"},
      {"negative minAvailable", [](Json& j) { j["spec"]["minAvailable"] = -1; },
       "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"},
      {"no tasks", [](Json& j) { j["spec"]["tasks"] = Json::array(); },
       "spec.tasks: Required value"},
      {"nameless task", [](Json& j) { j["spec"]["tasks"][0].erase("name"); },
       "spec.tasks[0].name: Required value"},
      {"bad task name", [](Json& j) { j["spec"]["tasks"][0]["name"] = "Worker_1"; },
       "spec.tasks[0].name: Invalid value: \"Worker_1\": a lowercase RFC 1123 label"},
      {"duplicate task", [](Json& j) { j["spec"]["tasks"].push_back(j["spec"]["tasks"][0]); },
       "spec.tasks[1].name: Duplicate value: \"worker\""},
      {"negative replicas", [](Json& j) { j["spec"]["tasks"][0]["replicas"] = -1; },
       "spec.tasks[0].replicas: Invalid value: -1: must be greater than or equal to 0"},
      {"no template", [](Json& j) { j["spec"]["tasks"][0].erase("template"); },
       "spec.tasks[0].template: Required value"},
      {"no containers",
       [](Json& j) { j["spec"]["tasks"][0]["template"]["spec"].erase("containers"); },
       "spec.tasks[0].template.spec.containers: Required value"},
      {"unknown event", [](Json& j) { j["spec"]["policies"][0]["event"] = "PodCrashed"; },
       "spec.policies[0].event: Unsupported value: \"PodCrashed\""},
      {"unknown task action",
       [](Json& j) {
         j["spec"]["tasks"][0]["policies"] = {{{"event", "PodFailed"}, {"action", "Explode"}}};
       },
       "spec.tasks[0].policies[0].action: Unsupported value: \"Explode\""},
      {"event and exitCode", [](Json& j) { j["spec"]["policies"][0]["exitCode"] = 3; },
       "spec.policies[0]: Invalid value:"},
      {"task minAvailable over replicas",
       [](Json& j) { j["spec"]["tasks"][0]["minAvailable"] = 5; },
       "spec.tasks[0].minAvailable: Invalid value: 5"},
      {"unknown plugin", [](Json& j) { j["spec"]["plugins"]["pytorch"] = Json::array(); },
       "spec.plugins[pytorch]: Unsupported value: \"pytorch\""},
  };
  ExpectEditErrors(kind, Stored(kPytorchDdp), cases, Match::kPrefix);
}

TEST(VolcanoJobKindTest, DependsOnCycleIsInvalidAndDagMakesStages) {
  VolcanoJobKind kind;
  Json job = Stored(kHorovod);
  job["spec"]["tasks"][1]["dependsOn"] = {{"name", {"master"}}};
  ASSERT_TRUE(kind.Validate(job).ok()) << kind.Validate(job).message();
  auto sets = kind.PodSets(job);
  EXPECT_EQ(sets[0].stage, 0);
  EXPECT_EQ(sets[1].stage, 1);
  job["spec"]["tasks"][0]["dependsOn"] = {{"name", {"worker"}}};
  EXPECT_EQ(InvalidMessage(kind, job).rfind("spec.tasks: Invalid value: job has dependencies", 0),
            0u);
  job["spec"]["tasks"][0]["dependsOn"] = {{"name", {"nope"}}};
  EXPECT_EQ(InvalidMessage(kind, job), "spec.tasks[0].dependsOn.name[0]: Not found: \"nope\"");
}

TEST(VolcanoJobKindTest, WorkloadHasOnePodSetPerTask) {
  VolcanoJobKind kind;
  Json job = Stored(kHorovod);
  auto wl = kind.BuildWorkload(job);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  const Json& ps = (*wl)["spec"]["podSets"];
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0]["name"], "master");
  EXPECT_EQ(ps[0]["count"], 1);
  EXPECT_EQ(ps[1]["name"], "worker");
  EXPECT_EQ(ps[1]["count"], 4);
  EXPECT_FALSE(ps[0].contains("minCount"));
  EXPECT_FALSE(ps[1].contains("minCount"));
  EXPECT_EQ(ps[1]["template"]["spec"], job["spec"]["tasks"][1]["template"]["spec"]);
  EXPECT_EQ((*wl)["metadata"]["name"].get<std::string>().rfind("vcjob-horovod-training-", 0), 0u);
  EXPECT_EQ((*wl)["metadata"]["ownerReferences"][0]["apiVersion"], "batch.volcano.sh/v1alpha1");
  for (const auto& s : kind.PodSets(job)) EXPECT_EQ(s.stage, 0);  // gang: together

  Json ddp = Stored(kPytorchDdp);
  auto wl2 = kind.BuildWorkload(ddp);
  ASSERT_TRUE(wl2.ok());
  ASSERT_EQ((*wl2)["spec"]["podSets"].size(), 1u);
  EXPECT_EQ((*wl2)["spec"]["podSets"][0]["count"], 4);
  EXPECT_FALSE((*wl2)["spec"]["podSets"][0].contains("minCount"));  // minAvailable == replicas

  ddp["spec"]["minAvailable"] = 2;
  ddp["spec"]["priorityClassName"] = "high";
  wl2 = kind.BuildWorkload(ddp);
  EXPECT_EQ((*wl2)["spec"]["podSets"][0]["minCount"], 2);
  EXPECT_EQ((*wl2)["spec"]["priorityClassRef"]["name"], "high");

  job["spec"]["minAvailable"] = 3;  // several tasks: admitted whole
  wl = kind.BuildWorkload(job);
  EXPECT_FALSE((*wl)["spec"]["podSets"][1].contains("minCount"));
}

TEST(VolcanoJobKindTest, DefaultOnCreateSuspendsAndAddsVolcanoDefaults) {
  VolcanoJobKind kind;
  Json job = Stored(kHorovod);
  EXPECT_FALSE(kind.IsSuspended(job));
  job["metadata"]["labels"][kQueueNameLabel] = "team";
  kind.Default(job);
  kind.DefaultOnCreate(job);
  EXPECT_TRUE(kind.IsSuspended(job));
  EXPECT_EQ(job["spec"]["suspend"], true);
  EXPECT_EQ(job["spec"]["queue"], "default");
  EXPECT_EQ(job["spec"]["maxRetry"], 3);
  EXPECT_EQ(job["spec"]["minAvailable"], 5);
  EXPECT_TRUE(kind.Validate(job).ok());
  EXPECT_EQ(kind.MaxRestarts(job), 3);
}

TEST(VolcanoJobKindTest, StartAndStopRoundTrip) {
  VolcanoJobKind kind;
  Json job = Stored(kPytorchDdp);
  job["spec"]["minAvailable"] = 2;
  job["metadata"]["labels"][kQueueNameLabel] = "team";
  kind.Default(job);
  kind.DefaultOnCreate(job);
  const Json wl_before = kind.BuildWorkload(job).value();
  PodSetPlacement p{"worker", 2, {{"gpu", "a100"}}, Json::array({{{"key", "gpu"}}})};
  Json started = kind.Start(job, {p});
  EXPECT_FALSE(kind.IsSuspended(started));
  EXPECT_EQ(started["spec"]["tasks"][0]["replicas"], 2);  // partial admission
  EXPECT_EQ(started["spec"]["tasks"][0]["template"]["spec"]["nodeSelector"]["gpu"], "a100");
  EXPECT_TRUE(kind.Validate(started).ok()) << kind.Validate(started).message();
  EXPECT_EQ(kind.BuildWorkload(started).value(), wl_before);
  Json stopped = kind.Stop(started);
  EXPECT_TRUE(kind.IsSuspended(stopped));
  EXPECT_EQ(stopped["spec"]["tasks"][0]["replicas"], 4);
  EXPECT_FALSE(stopped["spec"]["tasks"][0]["template"]["spec"].contains("nodeSelector"));
  EXPECT_EQ(kind.BuildWorkload(stopped).value(), wl_before);
}

TEST(VolcanoJobKindTest, PodsGetVolcanoNamesLabelsAndPluginEnv) {
  VolcanoJobKind kind;
  Json job = Stored(kPytorchDdp);
  auto sets = kind.PodSets(job);
  EXPECT_EQ(kind.PodName(job, sets[0], 3), "pytorch-ddp-training-worker-3");
  Json pod = BuildPod(kind, job, sets, 0, 2);
  EXPECT_EQ(EnvValue(pod, "NCCL_DEBUG"), "INFO");
  EXPECT_EQ(pod["spec"]["containers"][0]["env"][0]["name"], "NCCL_DEBUG");  // appended after
  EXPECT_EQ(EnvValue(pod, "VK_TASK_INDEX"), "2");
  EXPECT_EQ(EnvValue(pod, "VC_TASK_INDEX"), "2");
  EXPECT_EQ(EnvValue(pod, "VC_WORKER_0_SVC"), "127.0.0.1");
  EXPECT_EQ(EnvValue(pod, "VC_WORKER_3_SVC"), "127.0.0.1");
  EXPECT_EQ(EnvValue(pod, "VC_WORKER_HOSTS"), "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1");
  EXPECT_EQ(EnvValue(pod, "VC_WORKER_NUM"), "4");
  EXPECT_EQ(pod["spec"]["hostname"], "pytorch-ddp-training-worker-2");
  EXPECT_EQ(pod["spec"]["subdomain"], "pytorch-ddp-training");
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/task-spec"], "worker");
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/task-index"], "2");
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/job-name"], "pytorch-ddp-training");
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/queue-name"], "default");

  Json hjob = Stored(kHorovod);
  hjob["spec"]["tasks"][1]["name"] = "gpu-worker";
  auto hsets = kind.PodSets(hjob);
  Json master = BuildPod(kind, hjob, hsets, 0, 0);
  EXPECT_EQ(EnvValue(master, "VC_GPU_WORKER_HOSTS"), "127.0.0.1,127.0.0.1,127.0.0.1,127.0.0.1");
  EXPECT_EQ(EnvValue(master, "VC_MASTER_HOSTS"), "127.0.0.1");
  EXPECT_EQ(EnvValue(master, "VC_MASTER_NUM"), "1");
  EXPECT_EQ(EnvValue(master, "VC_TASK_INDEX"), "<unset>");  // no env plugin
}

TEST(VolcanoJobKindTest, PoliciesDecideWhatAPodEndingDoes) {
  VolcanoJobKind kind;
  Json ddp = Stored(kPytorchDdp);
  auto sets = kind.PodSets(ddp);
  EXPECT_EQ(kind.OnPodEvent(ddp, sets[0], PodEvent::kEvicted), GroupAction::kRestartJob);
  EXPECT_EQ(kind.OnPodEvent(ddp, sets[0], PodEvent::kFailed), GroupAction::kRestartPod);
  EXPECT_EQ(kind.OnPodEvent(ddp, sets[0], PodEvent::kSucceeded), GroupAction::kNone);

  Json hvd = Stored(kHorovod);
  auto hsets = kind.PodSets(hvd);
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[0], PodEvent::kSucceeded), GroupAction::kCompleteJob);
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kSucceeded), GroupAction::kNone);
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kFailed), GroupAction::kRestartPod);
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kEvicted), GroupAction::kRestartPod);

  hvd["spec"]["policies"] = {{{"events", {"PodFailed"}}, {"action", "AbortJob"}}};
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kFailed), GroupAction::kFailJob);
  hvd["spec"]["policies"] = {{{"event", "*"}, {"action", "RestartJob"}}};
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kFailed), GroupAction::kRestartJob);
  hvd["spec"].erase("policies");
  hvd["spec"]["tasks"][1]["template"]["spec"]["restartPolicy"] = "Never";
  EXPECT_EQ(kind.OnPodEvent(hvd, hsets[1], PodEvent::kFailed), GroupAction::kNone);
}

TEST(VolcanoJobKindTest, SucceededByTaskCompletedMinAvailableOrMinSuccess) {
  VolcanoJobKind kind;
  Json hvd = Stored(kHorovod);
  auto hsets = kind.PodSets(hvd);
  EXPECT_TRUE(kind.Succeeded(hvd, hsets, Seen({{0, 0, 1, 0}, {0, 4, 0, 0}})));
  EXPECT_FALSE(kind.Succeeded(hvd, hsets, Seen({{0, 1, 0, 0}, {0, 0, 4, 0}})));
  Json ddp = Stored(kPytorchDdp);
  auto sets = kind.PodSets(ddp);
  EXPECT_TRUE(kind.Succeeded(ddp, sets, Seen({{0, 0, 4, 0}})));
  EXPECT_FALSE(kind.Succeeded(ddp, sets, Seen({{0, 0, 3, 1}})));
  ddp["spec"]["minAvailable"] = 3;
  EXPECT_TRUE(kind.Succeeded(ddp, sets, Seen({{0, 0, 3, 1}})));
  ddp["spec"]["minSuccess"] = 2;
  EXPECT_TRUE(kind.Succeeded(ddp, sets, Seen({{0, 2, 2, 0}})));
}

TEST(VolcanoJobKindTest, StatusRoundTrips) {
  VolcanoJobKind kind;
  Json job = Stored(kHorovod);
  Json st = kind.NextStatus(job, Seen({{1, 0, 0, 0}, {4, 0, 0, 0}}));
  EXPECT_EQ(st["state"]["phase"], "Pending");
  EXPECT_EQ(st["pending"], 5);
  EXPECT_EQ(st["minAvailable"], 5);
  job = WithStatus(job, st);
  EXPECT_FALSE(kind.PodsReady(job));

  GroupObservation running = Seen({{0, 1, 0, 0}, {0, 4, 0, 0}});
  running.restarts = 2;
  running.now = "2024-05-01T10:06:00Z";
  st = kind.NextStatus(job, running);
  EXPECT_EQ(st["state"]["phase"], "Running");
  EXPECT_EQ(st["state"]["lastTransitionTime"], "2024-05-01T10:06:00Z");
  EXPECT_EQ(st["running"], 5);
  EXPECT_FALSE(st.contains("pending"));
  EXPECT_EQ(st["retryCount"], 2);
  EXPECT_EQ(st["taskStatusCount"]["worker"]["phase"]["Running"], 4);
  EXPECT_EQ(st["conditions"].size(), 2u);
  job = WithStatus(job, st);
  EXPECT_TRUE(kind.PodsReady(job));
  EXPECT_EQ(kind.Restarts(job), 2);
  bool ok = true;
  EXPECT_FALSE(kind.IsFinished(job, &ok));
  running.now = "2024-05-01T10:07:00Z";
  EXPECT_EQ(kind.NextStatus(job, running), st);  // nothing changed: equal

  EXPECT_EQ(ColumnValue(kind.Info(), "STATUS", job), "Running");
  EXPECT_EQ(ColumnValue(kind.Info(), "minAvailable", job), 5);
  EXPECT_EQ(ColumnValue(kind.Info(), "RUNNINGS", job), 5);
  EXPECT_EQ(ColumnValue(kind.Info(), "AGE", job), "2024-05-01T10:00:00Z");
  EXPECT_EQ(ColumnValue(kind.Info(), "QUEUE", job), nullptr);

  GroupObservation restarting = running;
  restarting.restarting = true;
  restarting.restarts = 3;
  EXPECT_EQ(kind.NextStatus(job, restarting)["state"]["phase"], "Restarting");

  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 4, 0, 0}});
  done.outcome = GroupObservation::Outcome::kSucceeded;
  done.reason = "Completed";
  done.restarts = 2;
  st = kind.NextStatus(job, done);
  EXPECT_EQ(st["state"]["phase"], "Completed");
  job = WithStatus(job, st);
  EXPECT_TRUE(kind.IsFinished(job, &ok));
  EXPECT_TRUE(ok);
  // After finishing, the phase stays as written.
  EXPECT_EQ(kind.NextStatus(job, Seen({{0, 0, 1, 0}, {0, 0, 0, 0}}))["state"]["phase"],
            "Completed");
}

TEST(VolcanoJobKindTest, SuspendedAbortedAndEndedWithFailures) {
  VolcanoJobKind kind;
  Json job = Stored(kPytorchDdp);
  GroupObservation s = Seen({{0, 0, 0, 0}});
  s.suspended = true;
  Json st = kind.NextStatus(job, s);
  EXPECT_EQ(st["state"]["phase"], "Pending");
  EXPECT_EQ(st["state"]["reason"], "Suspended");
  EXPECT_FALSE(kind.IsFinished(WithStatus(job, st), nullptr));

  job["spec"]["policies"] = {{{"event", "PodFailed"}, {"action", "AbortJob"}}};
  GroupObservation f = Seen({{0, 0, 0, 1}});
  f.outcome = GroupObservation::Outcome::kFailed;
  f.reason = "PodFailed";
  st = kind.NextStatus(job, f);
  EXPECT_EQ(st["state"]["phase"], "Aborted");
  bool ok = true;
  EXPECT_TRUE(kind.IsFinished(WithStatus(job, st), &ok));
  EXPECT_FALSE(ok);

  // restartPolicy Never, no policy: every pod ended, too few succeeded.
  Json never = Stored(kPytorchDdp);
  st = kind.NextStatus(never, Seen({{0, 0, 3, 1}}));
  EXPECT_EQ(st["state"]["phase"], "Failed");
}

TEST(VolcanoJobKindTest, SeedsRunThroughTheGroupReconciler) {
  VolcanoJobKind kind;
  Json ddp = Stored(kPytorchDdp);
  auto acts = ReconcileGroup(kind, ddp, {}, "2024-05-01T10:01:00Z");
  ASSERT_TRUE(acts.ok()) << acts.status().message();
  ASSERT_EQ(acts->create_pods.size(), 4u);  // one gang: all at once
  EXPECT_EQ(acts->create_pods[1]["metadata"]["name"], "pytorch-ddp-training-worker-1");
  EXPECT_EQ(EnvValue(acts->create_pods[1], "VC_WORKER_0_SVC"), "127.0.0.1");

  // Horovod: the master succeeds, TaskCompleted -> CompleteJob.
  Json hvd = Stored(kHorovod);
  acts = ReconcileGroup(kind, hvd, {}, "2024-05-01T10:01:00Z");
  ASSERT_TRUE(acts.ok());
  ASSERT_EQ(acts->create_pods.size(), 5u);
  std::vector<Json> pods = acts->create_pods;
  for (Json& p : pods) p["status"]["phase"] = "Running";
  pods[0]["status"]["phase"] = "Succeeded";
  acts = ReconcileGroup(kind, hvd, pods, "2024-05-01T10:02:00Z");
  ASSERT_TRUE(acts.ok());
  ASSERT_TRUE(acts->status.has_value());
  EXPECT_EQ((*acts->status)["state"]["phase"], "Completed");
  EXPECT_EQ(acts->delete_pods.size(), 4u);
  bool ok = false;
  EXPECT_TRUE(kind.IsFinished(WithStatus(hvd, *acts->status), &ok));
  EXPECT_TRUE(ok);
}

TEST(VolcanoJobKindTest, ARunningPodDeletedBySomeoneElseIsPodEvictedOnce) {
  VolcanoJobKind kind;
  Json ddp = Stored(kPytorchDdp);  // PodEvicted -> RestartJob
  auto acts = ReconcileGroup(kind, ddp, {}, "2024-05-01T10:01:00Z");
  ASSERT_TRUE(acts.ok());
  std::vector<Json> pods = acts->create_pods;
  for (Json& p : pods) p["status"]["phase"] = "Running";
  pods[2]["metadata"]["deletionTimestamp"] = "2024-05-01T10:02:00Z";  // kubectl delete pod
  acts = ReconcileGroup(kind, ddp, pods, "2024-05-01T10:02:00Z");
  ASSERT_TRUE(acts.ok());
  // The whole job restarts: every pod goes, the evicted one included (which
  // marks its deletion handled), and the retry is counted.
  EXPECT_EQ(acts->delete_pods.size(), 4u);
  EXPECT_TRUE(acts->create_pods.empty());
  ASSERT_TRUE(acts->status.has_value());
  EXPECT_EQ((*acts->status)["state"]["phase"], "Restarting");
  EXPECT_EQ((*acts->status)["retryCount"], 1);

  // Once handled (the controller's deletion marked it), the same pod is no
  // second eviction.
  Json restarting = WithStatus(ddp, *acts->status);
  for (Json& p : pods) {
    p["metadata"]["deletionTimestamp"] = "2024-05-01T10:02:00Z";
    p["metadata"]["annotations"][kDeletionHandledAnnotation] = "true";
  }
  acts = ReconcileGroup(kind, restarting, pods, "2024-05-01T10:02:01Z");
  ASSERT_TRUE(acts.ok());
  EXPECT_TRUE(acts->delete_pods.empty());
  const Json st = acts->status ? *acts->status : restarting["status"];
  EXPECT_EQ(st["retryCount"], 1);
}

// ---------------------------------------------------------------- JobSet

TEST(JobSetKindTest, InfoAsTheCrd) {
  JobSetKind kind;
  EXPECT_EQ(kind.Resource(), "jobsets.jobset.x-k8s.io");
  EXPECT_EQ(kind.ApiVersion(), "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(kind.Framework(), "jobset.x-k8s.io/jobset");
  std::vector<std::string> names;
  for (const auto& c : kind.Info().columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"TerminalState", "Restarts", "Completed", "Suspended",
                                             "Age"}));
}

TEST(JobSetKindTest, InvalidVariantsNameTheField) {
  JobSetKind kind;
  ASSERT_TRUE(kind.Validate(Stored(kJobSet)).ok()) << kind.Validate(Stored(kJobSet)).message();
  const std::vector<EditCase> cases = {
      {[](Json& j) { j["spec"].erase("replicatedJobs"); }, "spec.replicatedJobs: Required value"},
      {[](Json& j) { j["spec"]["replicatedJobs"] = Json::array(); },
       "spec.replicatedJobs: Required value"},
      {[](Json& j) { j["spec"]["replicatedJobs"][1]["name"] = "driver"; },
       "spec.replicatedJobs[1].name: Duplicate value: \"driver\""},
      {[](Json& j) { j["spec"]["replicatedJobs"][0]["name"] = "Driver"; },
       "spec.replicatedJobs[0].name: Invalid value: \"Driver\""},
      {[](Json& j) { j["spec"]["replicatedJobs"][1]["replicas"] = -2; },
       "spec.replicatedJobs[1].replicas: Invalid value: -2: must be greater than or equal to 0"},
      {[](Json& j) { j["spec"]["replicatedJobs"][0]["template"]["spec"].erase("template"); },
       "spec.replicatedJobs[0].template.spec.template: Required value"},
      {[](Json& j) {
         j["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["restartPolicy"] =
             "Always";
       },
       "spec.replicatedJobs[1].template.spec.template.spec.restartPolicy: Unsupported value"},
      {[](Json& j) {
         j["spec"]["successPolicy"] = {{"operator", "All"}, {"targetReplicatedJobs", {"nope"}}};
       },
       "spec.successPolicy.targetReplicatedJobs[0]: Invalid value: \"nope\""},
      {[](Json& j) {
         j["spec"]["successPolicy"] = {{"operator", "Most"}};
       },
       "spec.successPolicy.operator: Unsupported value: \"Most\""},
      {[](Json& j) {
         j["spec"]["failurePolicy"] = {{"maxRestarts", 1}, {"rules", {{{"action", "Reboot"}}}}};
       },
       "spec.failurePolicy.rules[0].action: Unsupported value: \"Reboot\""},
      {[](Json& j) {
         j["spec"]["failurePolicy"] = {{"maxRestarts", -1}};
       },
       "spec.failurePolicy.maxRestarts: Invalid value: -1"},
  };
  ExpectEditErrors(kind, Stored(kJobSet), cases, Match::kPrefix);
}

TEST(JobSetKindTest, PodSetsAsKueueBuildsThem) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  job["spec"]["replicatedJobs"][1]["template"]["spec"]["completions"] = 2;  // caps parallelism
  auto wl = kind.BuildWorkload(job);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  const Json& ps = (*wl)["spec"]["podSets"];
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0]["name"], "driver");
  EXPECT_EQ(ps[0]["count"], 1);
  EXPECT_EQ(ps[1]["name"], "workers");
  EXPECT_EQ(ps[1]["count"], 4);  // 2 Jobs x min(3, 2)
  EXPECT_FALSE(ps[1].contains("minCount"));
  EXPECT_EQ(ps[1]["template"]["spec"]["restartPolicy"], "Never");
  EXPECT_EQ((*wl)["metadata"]["name"].get<std::string>().rfind("jobset-js-", 0), 0u);
  EXPECT_EQ(kind.PodSetTemplateField(job, 1), "spec.replicatedJobs[1].template.spec.template");
  for (const auto& s : kind.PodSets(job)) EXPECT_EQ(s.stage, 0);
  job["spec"]["startupPolicy"] = {{"startupPolicyOrder", "InOrder"}};
  EXPECT_EQ(kind.PodSets(job)[1].stage, 1);
}

TEST(JobSetKindTest, DefaultsStartAndStop) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  job["metadata"]["labels"][kQueueNameLabel] = "team";
  kind.Default(job);
  kind.DefaultOnCreate(job);
  EXPECT_TRUE(kind.IsSuspended(job));
  EXPECT_EQ(job["spec"]["successPolicy"]["operator"], "All");
  EXPECT_EQ(job["spec"]["replicatedJobs"][0]["template"]["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(
      job["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["restartPolicy"],
      "OnFailure");
  EXPECT_TRUE(kind.Validate(job).ok());
  EXPECT_EQ(ColumnValue(kind.Info(), "Suspended", job), "true");
  const Json wl = kind.BuildWorkload(job).value();
  Json started = kind.Start(job, {{"workers", 6, {{"zone", "a"}}, Json::array()}});
  EXPECT_FALSE(kind.IsSuspended(started));
  EXPECT_EQ(started["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]
                   ["nodeSelector"]["zone"],
            "a");
  EXPECT_EQ(kind.BuildWorkload(started).value(), wl);
  Json stopped = kind.Stop(started);
  EXPECT_TRUE(kind.IsSuspended(stopped));
  EXPECT_EQ(kind.BuildWorkload(stopped).value(), wl);
  EXPECT_FALSE(
      stopped["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"].contains(
          "nodeSelector"));
}

TEST(JobSetKindTest, PodsMapToJobAndCompletionIndexes) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  auto sets = kind.PodSets(job);
  EXPECT_EQ(kind.PodName(job, sets[1], 4), "js-workers-1-1");
  EXPECT_EQ(kind.PodName(job, sets[0], 0), "js-driver-0-0");
  Json pod = BuildPod(kind, job, sets, 1, 5);
  const Json& l = pod["metadata"]["labels"];
  EXPECT_EQ(l["jobset.sigs.k8s.io/jobset-name"], "js");
  EXPECT_EQ(l["jobset.sigs.k8s.io/replicatedjob-name"], "workers");
  EXPECT_EQ(l["jobset.sigs.k8s.io/job-index"], "1");
  EXPECT_EQ(l["jobset.sigs.k8s.io/job-global-index"], "2");
  EXPECT_EQ(l["jobset.sigs.k8s.io/global-replicas"], "3");
  EXPECT_EQ(l["batch.kubernetes.io/job-completion-index"], "2");
  EXPECT_EQ(l["batch.kubernetes.io/job-name"], "js-workers-1");
  EXPECT_EQ(EnvValue(pod, "JOB_COMPLETION_INDEX"), "2");
  EXPECT_EQ(pod["spec"]["hostname"], "js-workers-1-2");
  EXPECT_EQ(pod["spec"]["subdomain"], "js");

  job["spec"]["replicatedJobs"][1]["template"]["spec"]["completionMode"] = "NonIndexed";
  job["spec"]["network"] = {{"enableDNSHostnames", false}};
  job["spec"]["coordinator"] = {{"replicatedJob", "driver"}};
  pod = BuildPod(kind, job, sets, 1, 0);
  EXPECT_EQ(EnvValue(pod, "JOB_COMPLETION_INDEX"), "<unset>");
  EXPECT_FALSE(pod["spec"].contains("hostname"));
  EXPECT_EQ(pod["metadata"]["labels"]["jobset.sigs.k8s.io/coordinator"], "127.0.0.1");
}

TEST(JobSetKindTest, FailurePolicyDecides) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  auto sets = kind.PodSets(job);
  EXPECT_EQ(kind.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kFailJob);
  EXPECT_EQ(kind.OnPodEvent(job, sets[1], PodEvent::kSucceeded), GroupAction::kNone);
  EXPECT_EQ(kind.MaxRestarts(job), 0);
  job["spec"]["failurePolicy"] = {{"maxRestarts", 3}};
  EXPECT_EQ(kind.OnPodEvent(job, sets[1], PodEvent::kEvicted), GroupAction::kRestartJob);
  EXPECT_EQ(kind.MaxRestarts(job), 3);
  job["spec"]["failurePolicy"]["rules"] = {
      {{"name", "driverFails"}, {"action", "FailJobSet"}, {"targetReplicatedJobs", {"driver"}}}};
  EXPECT_EQ(kind.OnPodEvent(job, sets[0], PodEvent::kFailed), GroupAction::kFailJob);
  EXPECT_EQ(kind.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kRestartJob);
}

TEST(JobSetKindTest, SuccessPolicyAllOrAny) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  auto sets = kind.PodSets(job);
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 3, 3, 0}})));
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 0, 6, 0}})));
  job["spec"]["successPolicy"] = {{"operator", "Any"}, {"targetReplicatedJobs", {"workers"}}};
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 5, 1, 0}})));
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 3, 3, 0}})));
}

TEST(JobSetKindTest, StatusRoundTrips) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  GroupObservation s = Seen({{1, 0, 0, 0}, {6, 0, 0, 0}});
  s.suspended = true;
  Json st = kind.NextStatus(job, s);
  EXPECT_EQ(st["replicatedJobsStatus"][1]["suspended"], 2);
  EXPECT_EQ(st["conditions"][0]["type"], "Suspended");
  EXPECT_EQ(st["conditions"][0]["reason"], "SuspendedJobs");
  EXPECT_FALSE(st["conditions"][0].contains("lastUpdateTime"));
  job = WithStatus(job, st);
  EXPECT_FALSE(kind.PodsReady(job));

  GroupObservation r = Seen({{0, 1, 0, 0}, {0, 3, 3, 0}});
  r.restarts = 1;
  st = kind.NextStatus(job, r);
  EXPECT_EQ(st["conditions"][0]["status"], "False");
  EXPECT_EQ(st["conditions"][0]["reason"], "ResumeJobs");
  EXPECT_EQ(st["replicatedJobsStatus"][0], (Json{{"name", "driver"},
                                                 {"ready", 1},
                                                 {"succeeded", 0},
                                                 {"failed", 0},
                                                 {"active", 1},
                                                 {"suspended", 0}}));
  EXPECT_EQ(st["replicatedJobsStatus"][1]["succeeded"], 1);
  EXPECT_EQ(st["replicatedJobsStatus"][1]["ready"], 1);
  EXPECT_EQ(st["restarts"], 1);
  job = WithStatus(job, st);
  EXPECT_TRUE(kind.PodsReady(job));
  EXPECT_EQ(kind.Restarts(job), 1);
  EXPECT_EQ(ColumnValue(kind.Info(), "Restarts", job), 1);
  EXPECT_EQ(ColumnValue(kind.Info(), "Completed", job), nullptr);
  r.now = "2024-05-01T10:09:00Z";
  EXPECT_EQ(kind.NextStatus(job, r), st);  // unchanged observation: equal status
  bool ok = true;
  EXPECT_FALSE(kind.IsFinished(job, &ok));

  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 0, 6, 0}});
  done.outcome = GroupObservation::Outcome::kSucceeded;
  done.restarts = 1;
  st = kind.NextStatus(job, done);
  EXPECT_EQ(st["terminalState"], "Completed");
  Json finished = WithStatus(job, st);
  EXPECT_TRUE(kind.IsFinished(finished, &ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(ColumnValue(kind.Info(), "Completed", finished), "True");
  EXPECT_EQ(ColumnValue(kind.Info(), "TerminalState", finished), "Completed");

  GroupObservation failed = Seen({{0, 1, 0, 0}, {0, 2, 3, 1}});
  failed.outcome = GroupObservation::Outcome::kFailed;
  st = kind.NextStatus(job, failed);
  EXPECT_EQ(st["terminalState"], "Failed");
  EXPECT_EQ(st["replicatedJobsStatus"][1]["failed"], 1);
  Json failed_job = WithStatus(job, st);
  EXPECT_TRUE(kind.IsFinished(failed_job, &ok));
  EXPECT_FALSE(ok);
  bool found = false;
  for (const Json& c : st["conditions"]) {
    if (c["type"] == "Failed") {
      found = true;
      EXPECT_EQ(c["reason"], "FailedJobs");
    }
  }
  EXPECT_TRUE(found);
  job["spec"]["failurePolicy"] = {{"maxRestarts", 1}};
  failed.restarts = 1;
  const Json again = kind.NextStatus(job, failed);
  for (const Json& c : again["conditions"]) {
    if (c["type"] == "Failed") {
      EXPECT_EQ(c["reason"], "ReachedMaxRestarts");
    }
  }
}

TEST(JobSetKindTest, InOrderStartupConditions) {
  JobSetKind kind;
  Json job = Stored(kJobSet);
  job["spec"]["startupPolicy"] = {{"startupPolicyOrder", "InOrder"}};
  Json st = kind.NextStatus(job, Seen({{0, 1, 0, 0}, {6, 0, 0, 0}}));
  ASSERT_EQ(st["conditions"].size(), 1u);
  EXPECT_EQ(st["conditions"][0]["type"], "StartupPolicyInProgress");
  job = WithStatus(job, st);
  st = kind.NextStatus(job, Seen({{0, 1, 0, 0}, {0, 6, 0, 0}}));
  bool completed = false;
  for (const Json& c : st["conditions"]) {
    if (c["type"] == "StartupPolicyCompleted") completed = c["status"] == "True";
    if (c["type"] == "StartupPolicyInProgress") {
      EXPECT_EQ(c["status"], "False");
    }
  }
  EXPECT_TRUE(completed);
}

}  // namespace
}  // namespace kuota::jobs
