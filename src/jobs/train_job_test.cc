// Tests for TrainJobKind and BuildTrainJobSet: Trainer's validation with
// field paths, the runtime copied in, the Workload Kueue builds, start/stop
// through Kueue's runtime patch, the torch plugin's PET_* environment on the
// pods, and Trainer's status.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/group_reconcile.h"
#include "jobs/jobs_test_util.h"
#include "jobs/train_job.h"
#include "jobs/train_job_runtime.h"

namespace kuota::jobs {
namespace {

// Trainer's torch-distributed ClusterTrainingRuntime (manifests/base/runtimes),
// with an initializer step added.
Json TorchRuntime() {
  return Json::parse(R"json({
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "torch-distributed"},
    "spec": {
      "mlPolicy": {"numNodes": 1, "torch": {}},
      "template": {"spec": {"replicatedJobs": [
        {"name": "dataset-initializer",
         "template": {"metadata": {"labels": {
             "trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
           "spec": {"template": {"spec": {"containers": [
             {"name": "dataset-initializer", "image": "init:1",
              "resources": {"requests": {"cpu": "1"}}}]}}}}},
        {"name": "node",
         "template": {"metadata": {"labels": {
             "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
           "spec": {"template": {"spec": {
             "tolerations": [{"key": "runtime", "operator": "Exists"}],
             "containers": [{"name": "node", "image": "pytorch/pytorch:2",
                             "command": ["torchrun", "train.py"],
                             "resources": {"requests": {"cpu": "1"}}}]}}}}}
      ]}}
    }
  })json");
}

Json Train() {
  return Json::parse(R"json({
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "mnist", "namespace": "team-a", "uid": "u-1",
                 "labels": {"kueue.x-k8s.io/queue-name": "lq",
                            "kueue.x-k8s.io/priority-class": "high"}},
    "spec": {
      "runtimeRef": {"name": "torch-distributed"},
      "trainer": {"image": "train:2", "command": ["python3", "probe.py"],
                  "numNodes": 2, "numProcPerNode": 1,
                  "env": [{"name": "EPOCHS", "value": "3"}],
                  "resourcesPerNode": {"requests": {"cpu": "2", "memory": "1Gi"}}}
    }
  })json");
}

// A TrainJob as kuotad stores it: defaulted, queued (suspended, with Kueue's
// patch) and with its runtime copied in.
Json Resolved(const TrainJobKind& kind, Json job, const Json& runtime = TorchRuntime()) {
  kind.Default(job);
  kind.DefaultOnCreate(job);
  Result<Json> with = kind.WithReference(job, runtime);
  EXPECT_TRUE(with.ok()) << with.status().message();
  return with.ok() ? *with : job;
}

Json EnvEntry(const Json& container, const std::string& name) {
  for (const Json& e : container.value("env", Json::array())) {
    if (e.value("name", "") == name) return e;
  }
  return nullptr;
}

TEST(TrainJobKind, ValidatesAsTrainersSchemaAndWebhook) {
  TrainJobKind kind;
  Json valid = Train();
  kind.Default(valid);
  EXPECT_TRUE(kind.Validate(valid).ok()) << kind.Validate(valid).message();
  ExpectEditErrors(
      kind, valid,
      {
          {"no runtimeRef", [](Json& j) { j["spec"].erase("runtimeRef"); },
           "spec.runtimeRef: Required value"},
          {"no spec", [](Json& j) { j.erase("spec"); }, "spec.runtimeRef: Required value"},
          {"no runtime name", [](Json& j) { j["spec"]["runtimeRef"].erase("name"); },
           "spec.runtimeRef.name: Required value"},
          {"unsupported kind", [](Json& j) { j["spec"]["runtimeRef"]["kind"] = "JobSet"; },
           "spec.runtimeRef: unsupported runtime: JobSet.trainer.kubeflow.org"},
          {"negative numNodes", [](Json& j) { j["spec"]["trainer"]["numNodes"] = -1; },
           "spec.trainer.numNodes: Invalid value: -1"},
          {"numProcPerNode 0", [](Json& j) { j["spec"]["trainer"]["numProcPerNode"] = 0; },
           "spec.trainer.numProcPerNode: Invalid value: 0: numProcPerNode must be greater than "
           "or equal to 1"},
          {"command not strings", [](Json& j) { j["spec"]["trainer"]["command"] = {1}; },
           "spec.trainer.command[0]: Invalid value: 1: must be a string"},
          {"suspend not bool", [](Json& j) { j["spec"]["suspend"] = "yes"; },
           "spec.suspend: Invalid value"},
          {"managedBy", [](Json& j) { j["spec"]["managedBy"] = "me"; },
           "spec.managedBy: Invalid value: \"me\": ManagedBy must be "
           "trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"},
          {"name not RFC 1035", [](Json& j) { j["metadata"]["name"] = "1abc"; },
           "metadata.name: Invalid value: \"1abc\": metadata.name must match RFC 1035 DNS label "
           "format"},
          {"patch without manager",
           [](Json& j) { j["spec"]["runtimePatches"] = Json::array({Json::object()}); },
           "spec.runtimePatches[0].manager: Required value"},
          {"duplicate patch managers",
           [](Json& j) {
             j["spec"]["runtimePatches"] = {{{"manager", "a"}}, {{"manager", "a"}}};
           },
           "spec.runtimePatches[1]: Duplicate value: {\"manager\":\"a\"}"},
      },
      Match::kPrefix);
}

TEST(TrainJobKind, KeepsTheCrdsImmutableFields) {
  TrainJobKind kind;
  const Json old = Resolved(kind, Train());
  Json job = old;
  job["spec"]["suspend"] = false;
  job["spec"]["runtimePatches"].push_back({{"manager", "someone"}});
  EXPECT_TRUE(kind.ValidateUpdate(old, job).ok());
  // The CRD's defaults count as set.
  job["spec"]["runtimeRef"].erase("kind");
  EXPECT_TRUE(kind.ValidateUpdate(old, job).ok());
  job["spec"]["runtimeRef"]["name"] = "other";
  EXPECT_EQ(kind.ValidateUpdate(old, job).message(),
            "spec.runtimeRef: Invalid value: \"object\": field is immutable");
  job = old;
  job["spec"]["trainer"]["numNodes"] = 4;
  EXPECT_EQ(kind.ValidateUpdate(old, job).message(),
            "spec.trainer: Invalid value: \"object\": field is immutable");
  job = old;
  job["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  EXPECT_EQ(kind.ValidateUpdate(old, job).message(),
            "spec.managedBy: Invalid value: \"kueue.x-k8s.io/multikueue\": field is immutable");
}

TEST(TrainJobKind, DefaultsTheRuntimeRefAndKueuesPatch) {
  TrainJobKind kind;
  Json job = Train();
  kind.Default(job);
  EXPECT_EQ(job["spec"]["runtimeRef"]["kind"], "ClusterTrainingRuntime");
  EXPECT_EQ(job["spec"]["runtimeRef"]["apiGroup"], "trainer.kubeflow.org");
  kind.DefaultOnCreate(job);
  EXPECT_TRUE(kind.IsSuspended(job));
  ASSERT_EQ(job["spec"]["runtimePatches"].size(), 1u);
  EXPECT_EQ(job["spec"]["runtimePatches"][0]["manager"], "kueue.x-k8s.io/manager");
}

TEST(TrainJobKind, WaitsForItsRuntime) {
  TrainJobKind kind;
  Json job = Train();
  kind.Default(job);
  kind.DefaultOnCreate(job);
  auto ref = kind.PendingReference(job);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->resource, "clustertrainingruntimes.trainer.kubeflow.org");
  EXPECT_EQ(ref->ns, "");
  EXPECT_EQ(ref->name, "torch-distributed");
  // No Workload until then, and no pods.
  EXPECT_EQ(kind.BuildWorkload(job).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(kind.Expand(job).has_value());

  Json ns_job = job;
  ns_job["spec"]["runtimeRef"]["kind"] = "TrainingRuntime";
  ref = kind.PendingReference(ns_job);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->resource, "trainingruntimes.trainer.kubeflow.org");
  EXPECT_EQ(ref->ns, "team-a");

  const Json resolved = Resolved(kind, Train());
  EXPECT_FALSE(kind.PendingReference(resolved).has_value());
  // Naming another runtime later needs that one.
  Json renamed = resolved;
  renamed["spec"]["runtimeRef"]["name"] = "other";
  EXPECT_TRUE(kind.PendingReference(renamed).has_value());
}

TEST(TrainJobKind, RefusesTorchsReservedEnvironment) {
  TrainJobKind kind;
  Json job = Train();
  job["spec"]["trainer"]["env"].push_back({{"name", "PET_NNODES"}, {"value", "9"}});
  kind.Default(job);
  Result<Json> with = kind.WithReference(job, TorchRuntime());
  ASSERT_FALSE(with.ok());
  EXPECT_EQ(with.status().message().rfind("spec.trainer.env: Invalid value: ", 0), 0u)
      << with.status().message();
  EXPECT_NE(with.status().message().find(
                "must not have reserved envs, invalid envs configured: [PET_NNODES]"),
            std::string::npos);
}

TEST(TrainJobKind, BuildsKueuesWorkloadFromTheRuntimesJobSet) {
  TrainJobKind kind;
  const Json job = Resolved(kind, Train());
  ASSERT_TRUE(kind.Validate(job).ok()) << kind.Validate(job).message();
  const Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"dataset-initializer:1", "node:2"}));
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("trainjob-mnist-", 0), 0u);
  EXPECT_EQ(wl["spec"]["queueName"], "lq");
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["name"], "high");
  const Json& node = wl["spec"]["podSets"][1];
  const Json& c = node["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["image"], "train:2");
  EXPECT_EQ(c["resources"]["requests"]["cpu"], "2");
  EXPECT_EQ(c["resources"]["requests"]["memory"], "1Gi");
  EXPECT_EQ(node["topologyRequest"]["podIndexLabel"], "batch.kubernetes.io/job-completion-index");
  EXPECT_EQ(node["topologyRequest"]["subGroupIndexLabel"], "jobset.sigs.k8s.io/job-index");
  EXPECT_EQ(node["topologyRequest"]["subGroupCount"], 1);

  // Without trainer.numNodes the runtime's mlPolicy.numNodes counts.
  Json one = Train();
  one["spec"]["trainer"].erase("numNodes");
  EXPECT_EQ(PodSetCounts(WorkloadOf(kind, Resolved(kind, one))),
            (std::vector<std::string>{"dataset-initializer:1", "node:1"}));
}

TEST(TrainJobKind, StartsAndStopsThroughKueuesRuntimePatch) {
  TrainJobKind kind;
  const Json job = Resolved(kind, Train());
  const Json wl_before = WorkloadOf(kind, job);
  PodSetPlacement node;
  node.name = "node";
  node.count = 2;
  node.node_selector = {{"cloud.example/flavor", "on-demand"}};
  node.tolerations = Json::array({{{"key", "spot"}, {"operator", "Exists"}}});
  PodSetPlacement init;
  init.name = "dataset-initializer";
  init.count = 1;
  const Json started = kind.Start(job, {init, node});
  EXPECT_FALSE(kind.IsSuspended(started));
  const Json& patch = started["spec"]["runtimePatches"][0];
  EXPECT_EQ(patch["manager"], "kueue.x-k8s.io/manager");
  const Json& rjobs = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"];
  ASSERT_EQ(rjobs.size(), 2u);
  EXPECT_EQ(rjobs[1]["name"], "node");
  EXPECT_EQ(
      rjobs[1]["template"]["spec"]["template"]["spec"]["nodeSelector"]["cloud.example/flavor"],
      "on-demand");

  // The pods run with the flavor; the tolerations list is replaced, as
  // Trainer's strategic merge of a PodSpecPatch does.
  auto view = kind.Expand(started);
  ASSERT_TRUE(view.has_value());
  const std::vector<PodSetDef> sets = kind.PodSets(*view);
  ASSERT_EQ(sets.size(), 2u);
  const Json& tmpl = view->at(sets[1].template_path);
  EXPECT_EQ(tmpl["spec"]["nodeSelector"]["cloud.example/flavor"], "on-demand");
  EXPECT_EQ(tmpl["spec"]["tolerations"], node.tolerations);
  // The Workload still describes the job as submitted.
  EXPECT_EQ(WorkloadOf(kind, started)["spec"]["podSets"], wl_before["spec"]["podSets"]);

  const Json stopped = kind.Stop(started);
  EXPECT_TRUE(kind.IsSuspended(stopped));
  EXPECT_FALSE(
      stopped["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"].contains(
          "replicatedJobs"));
  auto back = kind.Expand(stopped);
  ASSERT_TRUE(back.has_value());
  const Json& restored = back->at(sets[1].template_path);
  EXPECT_FALSE(restored["spec"].contains("nodeSelector"));
  EXPECT_EQ(restored["spec"]["tolerations"][0]["key"], "runtime");
}

TEST(TrainJobKind, GivesTorchsEnvironmentToItsPods) {
  TrainJobKind kind;
  Json job = Resolved(kind, Train());
  job["spec"]["suspend"] = false;
  auto actions = ReconcileGroup(kind, job, {}, "2024-05-01T10:00:00Z");
  ASSERT_TRUE(actions.ok()) << actions.status().message();
  ASSERT_EQ(actions->create_pods.size(), 3u);
  std::vector<std::string> names;
  for (const Json& p : actions->create_pods) names.push_back(p["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"mnist-dataset-initializer-0-0", "mnist-node-0-0",
                                             "mnist-node-0-1"}));
  const Json& rank1 = actions->create_pods[2];
  const Json& c = rank1["spec"]["containers"][0];
  EXPECT_EQ(c["command"], Json::array({"python3", "probe.py"}));
  EXPECT_EQ(EnvValue(rank1, "PET_NNODES"), "2");
  EXPECT_EQ(EnvValue(rank1, "PET_NPROC_PER_NODE"), "1");
  EXPECT_EQ(EnvValue(rank1, "PET_MASTER_ADDR"), "127.0.0.1");
  EXPECT_EQ(EnvValue(rank1, "PET_MASTER_PORT"), "29500");
  EXPECT_EQ(EnvValue(rank1, "EPOCHS"), "3");
  EXPECT_EQ(EnvEntry(c, "PET_NODE_RANK")["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(rank1["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], "1");
  EXPECT_EQ(rank1["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"], "mnist");
  EXPECT_EQ(rank1["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"], "node");
  // The initializer is not the trainer: no PET_*.
  EXPECT_EQ(EnvValue(actions->create_pods[0], "PET_NNODES"), "<unset>");

  // numProcPerNode "auto" without GPUs: the CPUs per node.
  Json autoproc = Train();
  autoproc["spec"]["trainer"].erase("numProcPerNode");
  auto spec = BuildTrainJobSet(Resolved(kind, autoproc), TorchRuntime());
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const Json& node =
      (*spec)["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(EnvEntry(node, "PET_NPROC_PER_NODE")["value"], "2");
}

TEST(TrainJobKind, ReportsStatusAsTrainerDoes) {
  TrainJobKind kind;
  Json job = Resolved(kind, Train());
  job["spec"]["suspend"] = false;
  auto view = kind.Expand(job);
  ASSERT_TRUE(view.has_value());
  Json st = kind.NextStatus(*view, Seen({{0, 1, 0, 0}, {0, 2, 0, 0}}));
  ASSERT_EQ(st["jobsStatus"].size(), 2u);
  EXPECT_EQ(st["jobsStatus"][1]["name"], "node");
  EXPECT_EQ(st["jobsStatus"][1]["ready"], 1);
  job["status"] = st;
  EXPECT_TRUE(kind.PodsReady(job));

  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 0, 2, 0}});
  done.outcome = GroupObservation::Outcome::kSucceeded;
  view = kind.Expand(job);
  st = kind.NextStatus(*view, done);
  job["status"] = st;
  bool ok = false;
  EXPECT_TRUE(kind.IsFinished(job, &ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(st["conditions"].back()["type"], "Complete");
  EXPECT_EQ(st["conditions"].back()["reason"], "AllJobsCompleted");
  EXPECT_EQ(ColumnValue(kind.Info(), "State", job), "Complete");

  // Unresolved: nothing written; resolved: the controller's Invalid report goes.
  Json waiting = Train();
  waiting["status"] = {{"conditions", {{{"type", "Invalid"}, {"status", "True"}}}}};
  EXPECT_EQ(kind.NextStatus(waiting, Seen({})), waiting["status"]);
  Json found = Resolved(kind, Train());
  found["status"] = waiting["status"];
  const Json cleared = kind.NextStatus(*kind.Expand(found), Seen({{}, {}}));
  for (const Json& c : cleared.value("conditions", Json::array())) {
    EXPECT_NE(c["type"], "Invalid");
  }

  Json suspended = Resolved(kind, Train());
  auto sv = kind.Expand(suspended);
  ASSERT_TRUE(sv.has_value());
  st = kind.NextStatus(*sv, Seen({{}, {}}, "2024-05-01T10:05:00Z", true));
  EXPECT_EQ(st["conditions"][0]["type"], "Suspended");
  EXPECT_EQ(st["conditions"][0]["reason"], "Suspended");
  EXPECT_EQ(st["conditions"][0]["message"], "TrainJob is suspended");
}

}  // namespace
}  // namespace kuota::jobs
