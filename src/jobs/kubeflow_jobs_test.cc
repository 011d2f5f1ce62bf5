// Tests of the Kubeflow job kinds (PyTorchJob, TFJob, MPIJob): validation
// with exact field paths, Kueue's pod sets, start/stop, the environment and
// labels each operator gives its pods, the status round trip and policies.
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "jobs/jobs_test_util.h"
#include "jobs/mpi_job.h"
#include "jobs/pytorch_job.h"
#include "jobs/tf_job.h"

namespace kuota::jobs {
namespace {

// Seed 000's `pytorch-dist-mnist` (the seed's manifest is cut off after the
// Master's `template:`). Reconstructed around what the seed shows (name,
// namespace team-a, the queue-name label, runPolicy suspend: true and
// cleanPodPolicy: Running, Master replicas: 1) from the standard Kubeflow
// pytorch-dist-mnist example: a Master and Worker replicas running the
// "pytorch" container of the mnist image, restartPolicy OnFailure, one GPU
// each (the seed's ClusterQueue is a GPU quota).
Json SeedPyTorchDistMnist() {
  return Json::parse(R"({
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {
      "name": "pytorch-dist-mnist",
      "namespace": "team-a",
      "uid": "uid-mnist",
      "creationTimestamp": "2026-01-01T00:00:00Z",
      "labels": {"kueue.x-k8s.io/queue-name": "team-a-queue"}
    },
    "spec": {
      "runPolicy": {"suspend": true, "cleanPodPolicy": "Running"},
      "pytorchReplicaSpecs": {
        "Master": {
          "replicas": 1,
          "restartPolicy": "OnFailure",
          "template": {"spec": {"containers": [{
            "name": "pytorch",
            "image": "kubeflow/pytorch-dist-mnist:latest",
            "args": ["--backend", "nccl"],
            "resources": {"limits": {"nvidia.com/gpu": 1}}
          }]}}
        },
        "Worker": {
          "replicas": 3,
          "restartPolicy": "OnFailure",
          "template": {"spec": {"containers": [{
            "name": "pytorch",
            "image": "kubeflow/pytorch-dist-mnist:latest",
            "args": ["--backend", "nccl"],
            "resources": {"limits": {"nvidia.com/gpu": 1}}
          }]}}
        }
      }
    }
  })");
}

Json Template(const std::string& container, const std::string& image = "img:1") {
  return {{"spec", {{"containers", Json::array({{{"name", container}, {"image", image}}})}}}};
}

Json TFJob() {
  Json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", "TFJob"},
              {"metadata", {{"name", "dist-tf"}, {"namespace", "default"}, {"uid", "uid-tf"}}},
              {"spec", {{"tfReplicaSpecs", Json::object()}}}};
  Json& specs = job["spec"]["tfReplicaSpecs"];
  specs["Chief"] = {{"replicas", 1}, {"template", Template("tensorflow")}};
  specs["PS"] = {{"replicas", 2}, {"template", Template("tensorflow")}};
  specs["Worker"] = {{"replicas", 3}, {"template", Template("tensorflow")}};
  specs["Evaluator"] = {{"replicas", 1}, {"template", Template("tensorflow")}};
  return job;
}

// mpi-operator's pi example (v2beta1).
Json MPIJob() {
  return Json::parse(R"({
    "apiVersion": "kubeflow.org/v2beta1",
    "kind": "MPIJob",
    "metadata": {"name": "pi", "namespace": "default", "uid": "uid-pi"},
    "spec": {
      "slotsPerWorker": 2,
      "runPolicy": {"cleanPodPolicy": "Running"},
      "sshAuthMountPath": "/home/mpiuser/.ssh",
      "mpiReplicaSpecs": {
        "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{
          "name": "mpi-launcher", "image": "mpioperator/mpi-pi:openmpi",
          "command": ["mpirun"], "args": ["-n", "4", "/home/mpiuser/pi"]}]}}},
        "Worker": {"replicas": 2, "template": {"spec": {"containers": [{
          "name": "mpi-worker", "image": "mpioperator/mpi-pi:openmpi",
          "command": ["/usr/sbin/sshd"], "args": ["-De"]}]}}}
      }
    }
  })");
}

// Validate's error message; "" when valid.
std::string Error(const JobKind& kind, const Json& job) {
  Status st = kind.Validate(job);
  return st.ok() ? "" : st.message();
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The pod the local runtime would build for (set, index), customized.
Json Pod(const GroupJobKind& kind, const Json& job, const std::vector<PodSetDef>& sets, size_t set,
         int64_t index) {
  const Json* tmpl = FindTemplate(job, sets[set]);
  Json pod = {{"metadata", {{"labels", {{"kuota.dev/pod-set", sets[set].name}}}}},
              {"spec", tmpl != nullptr ? (*tmpl)["spec"] : Json::object()}};
  kind.CustomizePod(job, PodPosition{&sets, set, index, "127.0.0.1"}, pod);
  return pod;
}

// ---------------------------------------------------------------- KindInfo

TEST(KubeflowKindsTest, InfoServesTheRealResources) {
  KubeflowJobKind pytorch(PyTorchJobSpec());
  KubeflowJobKind tf(TFJobSpec());
  KubeflowJobKind mpi(MPIJobSpec());
  EXPECT_EQ(pytorch.Resource(), "pytorchjobs.kubeflow.org");
  EXPECT_EQ(pytorch.ApiVersion(), "kubeflow.org/v1");
  EXPECT_EQ(pytorch.Framework(), "kubeflow.org/pytorchjob");
  EXPECT_EQ(tf.Resource(), "tfjobs.kubeflow.org");
  EXPECT_EQ(tf.Framework(), "kubeflow.org/tfjob");
  EXPECT_EQ(mpi.ApiVersion(), "kubeflow.org/v2beta1");
  EXPECT_EQ(mpi.Resource(), "mpijobs.kubeflow.org");
  EXPECT_EQ(mpi.Info().short_names, std::vector<std::string>{"mpij"});
  ASSERT_EQ(pytorch.Info().columns.size(), 2u);
  EXPECT_EQ(pytorch.Info().columns[0].name, "State");
  EXPECT_EQ(pytorch.Info().columns[1].name, "Age");
  EXPECT_EQ(pytorch.Info().columns[1].type, "date");
  ASSERT_EQ(mpi.Info().columns.size(), 1u);
  EXPECT_EQ(mpi.Info().columns[0].name, "Age");
}

// ---------------------------------------------------------------- the seed

TEST(PyTorchJobTest, SeedManifestValidatesAndBuildsMasterAndWorkerPodSets) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  ASSERT_EQ(Error(kind, job), "");
  kind.Default(job);
  kind.DefaultOnCreate(job);
  EXPECT_TRUE(kind.IsSuspended(job));
  EXPECT_EQ(JobKind::QueueName(job), "team-a-queue");

  Json w = WorkloadOf(kind, job);
  EXPECT_TRUE(
      StartsWith(w["metadata"]["name"].get<std::string>(), "pytorchjob-pytorch-dist-mnist-"));
  EXPECT_EQ(w["metadata"]["namespace"], "team-a");
  EXPECT_EQ(w["metadata"]["ownerReferences"][0]["kind"], "PyTorchJob");
  EXPECT_EQ(w["metadata"]["ownerReferences"][0]["apiVersion"], "kubeflow.org/v1");
  EXPECT_EQ(w["spec"]["queueName"], "team-a-queue");
  EXPECT_EQ(PodSetCounts(w), (std::vector<std::string>{"master:1", "worker:3"}));
  Json& ps = w["spec"]["podSets"];
  EXPECT_FALSE(ps[0].contains("minCount"));
  EXPECT_FALSE(ps[1].contains("minCount"));
  EXPECT_EQ(ps[1]["template"]["spec"]["containers"][0]["image"],
            "kubeflow/pytorch-dist-mnist:latest");
  EXPECT_FALSE(w["spec"].contains("priorityClassRef"));
  EXPECT_EQ(kind.PodSetTemplateField(job, 1), "spec.pytorchReplicaSpecs.Worker.template");
}

TEST(PyTorchJobTest, ManagedJobIsSuspendedOnCreate) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  job["spec"]["runPolicy"].erase("suspend");
  EXPECT_FALSE(kind.IsSuspended(job));
  kind.Default(job);
  kind.DefaultOnCreate(job);
  EXPECT_EQ(job["spec"]["runPolicy"]["suspend"], true);
}

// ---------------------------------------------------------------- validation

TEST(PyTorchJobTest, ValidationNamesTheField) {
  KubeflowJobKind kind(PyTorchJobSpec());
  const std::vector<EditCase> cases = {
      {"no master", [](Json& j) { j["spec"]["pytorchReplicaSpecs"].erase("Master"); },
       "spec.pytorchReplicaSpecs.Master: Required value"},
      {"no replica specs", [](Json& j) { j["spec"].erase("pytorchReplicaSpecs"); },
       "spec.pytorchReplicaSpecs: Required value"},
      {"two masters", [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = 2; },
       "spec.pytorchReplicaSpecs.Master.replicas: Forbidden: must be 1"},
      {"master replicas unset",
       [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Master"].erase("replicas"); },
       "spec.pytorchReplicaSpecs.Master.replicas: Forbidden: must be 1"},
      {"zero workers", [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 0; },
       "spec.pytorchReplicaSpecs.Worker.replicas: Forbidden: must be at least 1"},
      {"negative workers",
       [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = -1; },
       "spec.pytorchReplicaSpecs.Worker.replicas: Invalid value: -1"},
      {"unknown type",
       [](Json& j) {
         j["spec"]["pytorchReplicaSpecs"]["Chief"] = j["spec"]["pytorchReplicaSpecs"]["Worker"];
       },
       "spec.pytorchReplicaSpecs.Chief: Unsupported value: \"Chief\": supported values: "
       "\"Master\", \"Worker\""},
      {"lower-case type",
       [](Json& j) {
         Json& s = j["spec"]["pytorchReplicaSpecs"];
         s["worker"] = s["Worker"];
         s.erase("Worker");
       },
       "spec.pytorchReplicaSpecs.worker: Unsupported value"},
      {"no pytorch container",
       [](Json& j) {
         j["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] =
             "main";
       },
       "spec.pytorchReplicaSpecs.Worker.template.spec.containers: Required value: must have at "
       "least one container with name pytorch"},
      {"no image",
       [](Json& j) {
         j["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0].erase(
             "image");
       },
       "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].image: Required value"},
      {"no containers",
       [](Json& j) {
         j["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"] =
             Json::array();
       },
       "spec.pytorchReplicaSpecs.Master.template.spec.containers: Required value"},
      {"no template", [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Worker"].erase("template"); },
       "spec.pytorchReplicaSpecs.Worker.template: Required value"},
      {"bad restart policy",
       [](Json& j) { j["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "Sometimes"; },
       "spec.pytorchReplicaSpecs.Worker.restartPolicy: Unsupported value: \"Sometimes\""},
      {"bad clean policy", [](Json& j) { j["spec"]["runPolicy"]["cleanPodPolicy"] = "Some"; },
       "spec.runPolicy.cleanPodPolicy: Unsupported value: \"Some\""},
      {"negative backoff", [](Json& j) { j["spec"]["runPolicy"]["backoffLimit"] = -1; },
       "spec.runPolicy.backoffLimit: Invalid value: -1"},
      {"suspend not bool", [](Json& j) { j["spec"]["runPolicy"]["suspend"] = "yes"; },
       "spec.runPolicy.suspend: Invalid value: \"yes\": must be a boolean"},
      {"bad name", [](Json& j) { j["metadata"]["name"] = "1-mnist"; },
       "metadata.name: Invalid value: \"1-mnist\": should match: a DNS-1035 label"},
      {"elastic without worker",
       [](Json& j) {
         j["spec"]["pytorchReplicaSpecs"].erase("Worker");
         j["spec"]["elasticPolicy"] = {{"minReplicas", 1}};
       },
       "spec.pytorchReplicaSpecs.Worker: Required value: must be configured if elastic policy is "
       "used"},
      {"elastic field type",
       [](Json& j) {
         j["spec"]["elasticPolicy"] = {{"minReplicas", "1"}};
       },
       "spec.elasticPolicy.minReplicas: Invalid value: \"1\": must be an integer"},
      {"both nproc fields",
       [](Json& j) {
         j["spec"]["elasticPolicy"] = {{"nProcPerNode", 2}};
         j["spec"]["nprocPerNode"] = "2";
       },
       "spec.elasticPolicy.nProcPerNode: Forbidden: must not be used with spec.nprocPerNode"},
      {"status conditions type",
       [](Json& j) {
         j["status"] = {{"conditions", "Running"}};
       },
       "status.conditions: Invalid value"},
  };
  ExpectEditErrors(kind, SeedPyTorchDistMnist(), cases, Match::kPrefix);
}

TEST(PyTorchJobTest, WorkerOnlyJobWithElasticPolicyIsAccepted) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  job["spec"]["pytorchReplicaSpecs"].erase("Master");
  job["spec"]["elasticPolicy"] = {{"minReplicas", 1}, {"maxReplicas", 3}, {"rdzvBackend", "c10d"}};
  EXPECT_EQ(Error(kind, job), "");
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].name, "worker");
  EXPECT_EQ(sets[0].stage, 0);  // no master to wait for
}

// ---------------------------------------------------------------- start / stop

TEST(PyTorchJobTest, StartInjectsPlacementAndStopRestoresIt) {
  KubeflowJobKind kind(PyTorchJobSpec());
  const Json job = SeedPyTorchDistMnist();
  const Json before = kind.BuildWorkload(job).value();
  PodSetPlacement master{"master", 1, {{"gpu", "a100"}}, Json::array()};
  PodSetPlacement worker{"worker",
                         3,
                         {{"gpu", "a100"}},
                         Json::array({{{"key", "kueue.x-k8s.io/gpu"}, {"operator", "Exists"}}})};
  const Json started = kind.Start(job, {master, worker});
  EXPECT_FALSE(kind.IsSuspended(started));
  const Json& specs = started["spec"]["pytorchReplicaSpecs"];
  EXPECT_EQ(specs["Master"]["template"]["spec"]["nodeSelector"]["gpu"], "a100");
  EXPECT_EQ(specs["Worker"]["template"]["spec"]["tolerations"][0]["key"], "kueue.x-k8s.io/gpu");
  EXPECT_EQ(specs["Worker"]["replicas"], 3);
  // The Workload of the running job still describes the job as submitted.
  EXPECT_EQ(kind.BuildWorkload(started).value()["spec"], before["spec"]);

  const Json stopped = kind.Stop(started);
  EXPECT_TRUE(kind.IsSuspended(stopped));
  EXPECT_EQ(stopped["spec"]["pytorchReplicaSpecs"], job["spec"]["pytorchReplicaSpecs"]);
  EXPECT_FALSE(stopped["metadata"]
                   .value("annotations", Json::object())
                   .contains(kOriginalPlacementAnnotation));
}

TEST(PyTorchJobTest, PriorityFromSchedulingPolicyThenTemplates) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["priorityClassName"] = "low";
  EXPECT_EQ(kind.BuildWorkload(job).value()["spec"]["priorityClassRef"]["name"], "low");
  job["spec"]["runPolicy"]["schedulingPolicy"] = {{"priorityClass", "high"}};
  const Json wl = kind.BuildWorkload(job).value();
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["name"], "high");
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["kind"], "PriorityClass");
  job["metadata"]["labels"][kPriorityClassLabel] = "urgent";
  EXPECT_EQ(kind.BuildWorkload(job).value()["spec"]["priorityClassRef"]["name"], "urgent");
}

// ---------------------------------------------------------------- pods

TEST(PyTorchJobTest, PodsGetTheOperatorsEnvironmentAndLabels) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  // A second container: the environment goes to every container.
  job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"].push_back(
      {{"name", "sidecar"}, {"image", "busybox"}});
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].stage, 0);
  EXPECT_EQ(sets[1].stage, 1);  // workers once the master runs

  const Json master = Pod(kind, job, sets, 0, 0);
  EXPECT_EQ(EnvValue(master, "MASTER_ADDR"), "127.0.0.1");
  EXPECT_EQ(EnvValue(master, "MASTER_PORT"), "23456");
  EXPECT_EQ(EnvValue(master, "PET_MASTER_ADDR"), "127.0.0.1");
  EXPECT_EQ(EnvValue(master, "PET_MASTER_PORT"), "23456");
  EXPECT_EQ(EnvValue(master, "WORLD_SIZE"), "4");
  EXPECT_EQ(EnvValue(master, "RANK"), "0");
  EXPECT_EQ(EnvValue(master, "PET_NODE_RANK"), "0");
  EXPECT_EQ(EnvValue(master, "PET_NNODES"), "4");
  EXPECT_EQ(EnvValue(master, "PYTHONUNBUFFERED"), "1");
  EXPECT_EQ(EnvValue(master, "PET_NPROC_PER_NODE"), "<unset>");
  const Json& ml = master["metadata"]["labels"];
  EXPECT_EQ(ml["training.kubeflow.org/job-name"], "pytorch-dist-mnist");
  EXPECT_EQ(ml["training.kubeflow.org/replica-type"], "master");
  EXPECT_EQ(ml["training.kubeflow.org/replica-index"], "0");
  EXPECT_EQ(ml["training.kubeflow.org/job-role"], "master");
  EXPECT_EQ(ml["training.kubeflow.org/operator-name"], "pytorchjob-controller");
  EXPECT_EQ(ml["kuota.dev/pod-set"], "master");  // the runtime's labels stay
  EXPECT_EQ(master["spec"]["hostname"], "pytorch-dist-mnist-master-0");

  const Json worker = Pod(kind, job, sets, 1, 2);
  EXPECT_EQ(EnvValue(worker, "RANK"), "3");
  EXPECT_EQ(EnvValue(worker, "PET_NODE_RANK"), "3");
  EXPECT_EQ(EnvValue(worker, "RANK", 1), "3");
  EXPECT_EQ(EnvValue(worker, "MASTER_ADDR", 1), "127.0.0.1");
  EXPECT_EQ(worker["metadata"]["labels"]["training.kubeflow.org/replica-type"], "worker");
  EXPECT_EQ(worker["metadata"]["labels"]["training.kubeflow.org/replica-index"], "2");
  EXPECT_FALSE(worker["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
}

TEST(PyTorchJobTest, MasterPortAndNprocPerNode) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  job["spec"]["nprocPerNode"] = "2";
  job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"name", "pytorchjob-port"}, {"containerPort", 29500}}});
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json worker = Pod(kind, job, sets, 1, 0);
  EXPECT_EQ(EnvValue(worker, "MASTER_PORT"), "29500");
  EXPECT_EQ(EnvValue(worker, "WORLD_SIZE"), "8");  // 4 pods x 2 processes
  EXPECT_EQ(EnvValue(worker, "PET_NPROC_PER_NODE"), "2");
  EXPECT_EQ(EnvValue(worker, "PET_NNODES"), "4");

  job["spec"]["nprocPerNode"] = "auto";
  EXPECT_EQ(EnvValue(Pod(kind, job, sets, 1, 0), "WORLD_SIZE"), "4");
}

TEST(PyTorchJobTest, ElasticWorkerOnlyEnvironment) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  job["spec"]["pytorchReplicaSpecs"].erase("Master");
  job["spec"]["elasticPolicy"] = {
      {"minReplicas", 1},  {"maxReplicas", 3},
      {"rdzvPort", 29400}, {"rdzvId", "mnist"},
      {"maxRestarts", 5},  {"rdzvConf", Json::array({{{"key", "timeout"}, {"value", "60"}}})}};
  ASSERT_EQ(Error(kind, job), "");
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json pod = Pod(kind, job, sets, 0, 1);
  EXPECT_EQ(EnvValue(pod, "MASTER_ADDR"), "<unset>");
  EXPECT_EQ(EnvValue(pod, "RANK"), "<unset>");
  EXPECT_EQ(EnvValue(pod, "PET_RDZV_ENDPOINT"), "127.0.0.1:29400");
  EXPECT_EQ(EnvValue(pod, "PET_RDZV_BACKEND"), "c10d");
  EXPECT_EQ(EnvValue(pod, "PET_NNODES"), "1:3");
  EXPECT_EQ(EnvValue(pod, "PET_RDZV_ID"), "mnist");
  EXPECT_EQ(EnvValue(pod, "PET_MAX_RESTARTS"), "5");
  EXPECT_EQ(EnvValue(pod, "PET_RDZV_CONF"), "timeout=60");
  EXPECT_EQ(EnvValue(pod, "PYTHONUNBUFFERED"), "1");
}

// ---------------------------------------------------------------- status

TEST(PyTorchJobTest, StatusRoundTrip) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  const auto& state = kind.Info().columns[0].value;
  EXPECT_TRUE(state(job).is_null());
  EXPECT_EQ(kind.Info().columns[1].value(job), "2026-01-01T00:00:00Z");

  // Suspended, waiting for quota.
  job["status"] = kind.NextStatus(job, Seen({{}, {}}, "2026-01-01T00:00:01Z", true));
  EXPECT_EQ(state(job), "Suspended");
  EXPECT_EQ(job["status"]["conditions"][0]["type"], "Created");
  EXPECT_EQ(job["status"]["conditions"][0]["reason"], "PyTorchJobCreated");
  EXPECT_EQ(job["status"]["conditions"][1]["reason"], "PyTorchJobSuspended");
  EXPECT_FALSE(job["status"].contains("startTime"));
  EXPECT_FALSE(kind.PodsReady(job));
  bool ok = false;
  EXPECT_FALSE(kind.IsFinished(job, &ok));
  EXPECT_EQ(Error(kind, job), "");  // what it writes passes its own checks

  // Admitted: resumed, pods coming up.
  job = kind.Start(job, {});
  job["status"] = kind.NextStatus(job, Seen({{1, 0, 0, 0}, {3, 0, 0, 0}}, "2026-01-01T00:00:05Z"));
  EXPECT_EQ(job["status"]["startTime"], "2026-01-01T00:00:05Z");
  EXPECT_EQ(job["status"]["conditions"].back()["type"], "Suspended");
  EXPECT_EQ(job["status"]["conditions"].back()["status"], "False");
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "PyTorchJobResumed");
  EXPECT_FALSE(kind.PodsReady(job));

  // Master running, workers not yet: not ready.
  job["status"] = kind.NextStatus(job, Seen({{0, 1, 0, 0}, {3, 0, 0, 0}}, "2026-01-01T00:00:06Z"));
  EXPECT_EQ(job["status"]["replicaStatuses"]["Master"], Json({{"active", 1}}));
  EXPECT_EQ(job["status"]["replicaStatuses"]["Worker"], Json::object());
  EXPECT_FALSE(kind.PodsReady(job));

  // Everything runs.
  const GroupObservation all_up = Seen({{0, 1, 0, 0}, {0, 3, 0, 0}}, "2026-01-01T00:00:07Z");
  job["status"] = kind.NextStatus(job, all_up);
  EXPECT_EQ(state(job), "Running");
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "PyTorchJobRunning");
  EXPECT_TRUE(kind.PodsReady(job));

  // Nothing new: the same status, even at a later time.
  GroupObservation again = all_up;
  again.now = "2026-01-01T00:00:30Z";
  EXPECT_EQ(kind.NextStatus(job, again), job["status"]);

  // A worker fails and is restarted.
  GroupObservation restart = Seen({{0, 1, 0, 0}, {0, 2, 0, 1}}, "2026-01-01T00:00:40Z");
  restart.restarts = 1;
  job["status"] = kind.NextStatus(job, restart);
  EXPECT_EQ(state(job), "Restarting");
  EXPECT_EQ(kind.Restarts(job), 1);
  EXPECT_EQ(job["status"]["conditions"].back()["message"],
            "PyTorchJob pytorch-dist-mnist is restarting because 1 Worker replica(s) failed.");
  for (const Json& c : job["status"]["conditions"]) EXPECT_NE(c["type"], "Running");
  EXPECT_FALSE(kind.PodsReady(job));
  EXPECT_EQ(kind.NextStatus(job, restart), job["status"]);

  GroupObservation back = Seen({{0, 1, 0, 0}, {0, 3, 0, 0}}, "2026-01-01T00:00:50Z");
  back.restarts = 1;
  job["status"] = kind.NextStatus(job, back);
  EXPECT_EQ(state(job), "Running");
  EXPECT_EQ(kind.Restarts(job), 1);
  EXPECT_TRUE(kind.PodsReady(job));

  // The master finishes: the job succeeded.
  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 3, 0, 0}}, "2026-01-01T00:01:00Z");
  done.restarts = 1;
  EXPECT_TRUE(kind.Succeeded(job, kind.PodSets(job), done));
  done.outcome = GroupObservation::Outcome::kSucceeded;
  job["status"] = kind.NextStatus(job, done);
  EXPECT_EQ(state(job), "Succeeded");
  EXPECT_EQ(job["status"]["completionTime"], "2026-01-01T00:01:00Z");
  for (const Json& c : job["status"]["conditions"]) {
    if (c["type"] == "Running") {
      EXPECT_EQ(c["status"], "False");
    }
  }
  EXPECT_TRUE(kind.IsFinished(job, &ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(Error(kind, job), "");
}

TEST(PyTorchJobTest, FailedStatusAndSuspendWhileRunning) {
  KubeflowJobKind kind(PyTorchJobSpec());
  Json job = kind.Start(SeedPyTorchDistMnist(), {});
  job["status"] = kind.NextStatus(job, Seen({{0, 1, 0, 0}, {0, 3, 0, 0}}, "2026-01-01T00:00:01Z"));
  EXPECT_EQ(kind.Info().columns[0].value(job), "Running");

  // Preempted: Kueue suspends it; Running turns False.
  Json stopped = kind.Stop(job);
  stopped["status"] = kind.NextStatus(stopped, Seen({{}, {}}, "2026-01-01T00:00:02Z", true));
  EXPECT_EQ(kind.Info().columns[0].value(stopped), "Suspended");
  bool running_false = false;
  for (const Json& c : stopped["status"]["conditions"]) {
    if (c["type"] == "Running") running_false = c["status"] == "False";
  }
  EXPECT_TRUE(running_false);
  EXPECT_FALSE(kind.PodsReady(stopped));

  GroupObservation failed = Seen({{0, 0, 0, 1}, {0, 3, 0, 0}}, "2026-01-01T00:00:03Z");
  failed.outcome = GroupObservation::Outcome::kFailed;
  failed.reason = "PodFailed";
  failed.message = "Job failed: pod pytorch-dist-mnist-master-0 failed";  // the operator's wins
  job["status"] = kind.NextStatus(job, failed);
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "PyTorchJobFailed");
  EXPECT_EQ(job["status"]["conditions"].back()["message"],
            "PyTorchJob pytorch-dist-mnist is failed because 1 Master replica(s) failed.");
  bool ok = true;
  EXPECT_TRUE(kind.IsFinished(job, &ok));
  EXPECT_FALSE(ok);
  GroupObservation backoff = failed;
  backoff.reason = "BackoffLimitExceeded";
  Json job2 = job;
  job2.erase("status");
  EXPECT_EQ(kind.NextStatus(job2, backoff)["conditions"].back()["message"],
            "PyTorchJob pytorch-dist-mnist has failed because it has reached the specified backoff "
            "limit");
  // Finished stays finished.
  GroupObservation later = Seen({{0, 0, 0, 1}, {0, 3, 0, 0}}, "2026-01-01T00:00:09Z");
  EXPECT_EQ(kind.NextStatus(job, later), job["status"]);
}

// ---------------------------------------------------------------- policies

TEST(KubeflowKindsTest, PodEventsFollowTheReplicaRestartPolicy) {
  KubeflowJobKind pytorch(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  const std::vector<PodSetDef> sets = pytorch.PodSets(job);
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kRestartPod);
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kSucceeded), GroupAction::kNone);
  job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "Never";
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kFailJob);
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kEvicted), GroupAction::kFailJob);
  job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode";
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kEvicted), GroupAction::kRestartPod);
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kFailJob);
  // Unset: the operator's default, OnFailure for PyTorch.
  job["spec"]["pytorchReplicaSpecs"]["Worker"].erase("restartPolicy");
  EXPECT_EQ(pytorch.OnPodEvent(job, sets[1], PodEvent::kFailed), GroupAction::kRestartPod);

  KubeflowJobKind tf(TFJobSpec());
  const Json tj = TFJob();
  EXPECT_EQ(tf.OnPodEvent(tj, tf.PodSets(tj)[0], PodEvent::kFailed), GroupAction::kFailJob);

  KubeflowJobKind mpi(MPIJobSpec());
  const Json mj = MPIJob();
  const std::vector<PodSetDef> ms = mpi.PodSets(mj);
  EXPECT_EQ(mpi.OnPodEvent(mj, ms[0], PodEvent::kFailed), GroupAction::kRestartPod);  // launcher
  EXPECT_EQ(mpi.OnPodEvent(mj, ms[1], PodEvent::kFailed), GroupAction::kFailJob);     // worker
}

TEST(KubeflowKindsTest, BackoffLimitBoundsRestarts) {
  KubeflowJobKind pytorch(PyTorchJobSpec());
  Json job = SeedPyTorchDistMnist();
  EXPECT_EQ(pytorch.MaxRestarts(job), std::numeric_limits<int64_t>::max());
  job["spec"]["runPolicy"]["backoffLimit"] = 3;
  EXPECT_EQ(pytorch.MaxRestarts(job), 3);
  KubeflowJobKind mpi(MPIJobSpec());
  EXPECT_EQ(mpi.MaxRestarts(MPIJob()), 6);
}

TEST(PyTorchJobTest, SuccessRule) {
  KubeflowJobKind kind(PyTorchJobSpec());
  const Json job = SeedPyTorchDistMnist();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 0, 3, 0}}, "t")));
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 2, 1, 0}}, "t")));
  Json elastic = job;
  elastic["spec"]["pytorchReplicaSpecs"].erase("Master");
  elastic["spec"]["elasticPolicy"] = Json::object();
  const std::vector<PodSetDef> ws = kind.PodSets(elastic);
  EXPECT_FALSE(kind.Succeeded(elastic, ws, Seen({{0, 1, 2, 0}}, "t")));
  EXPECT_TRUE(kind.Succeeded(elastic, ws, Seen({{0, 0, 3, 0}}, "t")));
}

// ---------------------------------------------------------------- TFJob

TEST(TFJobTest, PodSetsInKueueOrder) {
  KubeflowJobKind kind(TFJobSpec());
  const Json job = TFJob();
  ASSERT_EQ(Error(kind, job), "");
  Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(PodSetCounts(wl),
            (std::vector<std::string>{"chief:1", "ps:2", "worker:3", "evaluator:1"}));
  EXPECT_TRUE(StartsWith(wl["metadata"].value("name", ""), "tfjob-dist-tf-"));
  for (const PodSetDef& s : kind.PodSets(job)) EXPECT_EQ(s.stage, 0);
}

TEST(TFJobTest, ValidationNamesTheField) {
  KubeflowJobKind kind(TFJobSpec());
  Json both = TFJob();
  both["spec"]["tfReplicaSpecs"]["Master"] = both["spec"]["tfReplicaSpecs"]["Chief"];
  EXPECT_EQ(Error(kind, both),
            "spec.tfReplicaSpecs: Forbidden: must not have more than 1 Chief or Master role");
  Json wrong_container = TFJob();
  wrong_container["spec"]["tfReplicaSpecs"]["PS"]["template"] = Template("tf");
  EXPECT_EQ(Error(kind, wrong_container),
            "spec.tfReplicaSpecs.PS.template.spec.containers: Required value: must have at least "
            "one container with name tensorflow");
  Json unknown = TFJob();
  unknown["spec"]["tfReplicaSpecs"]["Trainer"] = unknown["spec"]["tfReplicaSpecs"]["Worker"];
  EXPECT_TRUE(StartsWith(Error(kind, unknown), "spec.tfReplicaSpecs.Trainer: Unsupported value"));
  Json policy = TFJob();
  policy["spec"]["successPolicy"] = "AnyWorker";
  EXPECT_TRUE(
      StartsWith(Error(kind, policy), "spec.successPolicy: Unsupported value: \"AnyWorker\""));
  Json none = TFJob();
  none["spec"].erase("tfReplicaSpecs");
  EXPECT_TRUE(StartsWith(Error(kind, none), "spec.tfReplicaSpecs: Required value"));
}

TEST(TFJobTest, TfConfigGivesEveryReplicaItsOwnPort) {
  KubeflowJobKind kind(TFJobSpec());
  const Json job = TFJob();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json worker1 = Pod(kind, job, sets, 2, 1);
  const Json config = Json::parse(EnvValue(worker1, "TF_CONFIG"));
  // chief 0 -> 2222; ps 0, 1 -> 2223, 2224; workers 0..2 -> 2225..2227.
  EXPECT_EQ(config["cluster"]["chief"], Json::array({"127.0.0.1:2222"}));
  EXPECT_EQ(config["cluster"]["ps"], Json::array({"127.0.0.1:2223", "127.0.0.1:2224"}));
  EXPECT_EQ(config["cluster"]["worker"],
            Json::array({"127.0.0.1:2225", "127.0.0.1:2226", "127.0.0.1:2227"}));
  EXPECT_FALSE(config["cluster"].contains("evaluator"));
  EXPECT_EQ(config["task"], Json({{"type", "worker"}, {"index", 1}}));
  EXPECT_EQ(config["environment"], "cloud");
  EXPECT_EQ(TFReplicaPort(kind, job, "Evaluator", 0), 2228);

  const Json evaluator = Pod(kind, job, sets, 3, 0);
  EXPECT_EQ(Json::parse(EnvValue(evaluator, "TF_CONFIG"))["task"]["type"], "evaluator");

  const Json chief = Pod(kind, job, sets, 0, 0);
  EXPECT_EQ(chief["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
  EXPECT_FALSE(worker1["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
  EXPECT_EQ(chief["metadata"]["labels"]["training.kubeflow.org/operator-name"], "tfjob-controller");

  // A declared tfjob-port moves the base.
  Json ported = job;
  ported["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"name", "tfjob-port"}, {"containerPort", 3000}}});
  EXPECT_EQ(TFReplicaPort(kind, ported, "Worker", 0), 3003);
}

TEST(TFJobTest, SingleReplicaGetsNoTfConfigAndWorkerZeroIsMaster) {
  KubeflowJobKind kind(TFJobSpec());
  Json job = TFJob();
  Json& specs = job["spec"]["tfReplicaSpecs"];
  specs.erase("Chief");
  specs.erase("PS");
  specs.erase("Evaluator");
  specs["Worker"]["replicas"] = 1;
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json pod = Pod(kind, job, sets, 0, 0);
  EXPECT_EQ(EnvValue(pod, "TF_CONFIG"), "<unset>");
  EXPECT_EQ(pod["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
}

TEST(TFJobTest, SuccessRule) {
  KubeflowJobKind kind(TFJobSpec());
  const Json job = TFJob();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  // The chief decides; PS pods never finish.
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 2, 0, 0}, {0, 3, 0, 0}, {}}, "t")));
  EXPECT_FALSE(
      kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 0, 3, 0}, {}}, "t")));
  Json no_chief = job;
  no_chief["spec"]["tfReplicaSpecs"].erase("Chief");
  const std::vector<PodSetDef> ns = kind.PodSets(no_chief);
  EXPECT_FALSE(kind.Succeeded(no_chief, ns, Seen({{0, 2, 0, 0}, {0, 1, 2, 0}, {}}, "t")));
  EXPECT_TRUE(kind.Succeeded(no_chief, ns, Seen({{0, 2, 0, 0}, {0, 0, 3, 0}, {}}, "t")));
}

TEST(TFJobTest, StatusUsesTheKindsReasons) {
  KubeflowJobKind kind(TFJobSpec());
  Json job = TFJob();
  GroupObservation up = Seen({{0, 1, 0, 0}, {0, 2, 0, 0}, {0, 3, 0, 0}, {0, 1, 0, 0}}, "t1");
  job["status"] = kind.NextStatus(job, up);
  EXPECT_EQ(job["status"]["conditions"][0]["reason"], "TFJobCreated");
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "TFJobRunning");
  EXPECT_EQ(job["status"]["replicaStatuses"]["PS"]["active"], 2);
  EXPECT_TRUE(kind.PodsReady(job));
}

// ---------------------------------------------------------------- MPIJob

TEST(MPIJobTest, LauncherAndWorkerPodSetsWorkersFirst) {
  KubeflowJobKind kind(MPIJobSpec());
  const Json job = MPIJob();
  ASSERT_EQ(Error(kind, job), "");
  Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"launcher:1", "worker:2"}));
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["apiVersion"], "kubeflow.org/v2beta1");
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_EQ(sets[0].stage, 1);  // launcher after the workers
  EXPECT_EQ(sets[1].stage, 0);
}

TEST(MPIJobTest, ValidationNamesTheField) {
  KubeflowJobKind kind(MPIJobSpec());
  const std::vector<EditCase> cases = {
      {"no launcher", [](Json& j) { j["spec"]["mpiReplicaSpecs"].erase("Launcher"); },
       "spec.mpiReplicaSpecs.Launcher: Required value: must have Launcher replica spec"},
      {"two launchers", [](Json& j) { j["spec"]["mpiReplicaSpecs"]["Launcher"]["replicas"] = 2; },
       "spec.mpiReplicaSpecs.Launcher.replicas: Invalid value: 2: must be 1"},
      {"workers unset", [](Json& j) { j["spec"]["mpiReplicaSpecs"]["Worker"].erase("replicas"); },
       "spec.mpiReplicaSpecs.Worker.replicas: Invalid value: 0: must be greater than or equal to "
       "1"},
      {"restart always",
       [](Json& j) { j["spec"]["mpiReplicaSpecs"]["Worker"]["restartPolicy"] = "Always"; },
       "spec.mpiReplicaSpecs.Worker.restartPolicy: Unsupported value: \"Always\": supported "
       "values: \"Never\", \"OnFailure\""},
      {"negative slots", [](Json& j) { j["spec"]["slotsPerWorker"] = -1; },
       "spec.slotsPerWorker: Invalid value: -1"},
      {"implementation", [](Json& j) { j["spec"]["mpiImplementation"] = "MVAPICH"; },
       "spec.mpiImplementation: Unsupported value: \"MVAPICH\""},
      {"no containers",
       [](Json& j) {
         j["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"] = Json::array();
       },
       "spec.mpiReplicaSpecs.Launcher.template.spec.containers: Required value"},
      {"worker hostname too long", [](Json& j) { j["metadata"]["name"] = std::string(60, 'a'); },
       "metadata.name: Invalid value: \"" + std::string(60, 'a') +
           "\": will not able to create pod with invalid DNS label"},
  };
  ExpectEditErrors(kind, MPIJob(), cases, Match::kPrefix);
  // No container-name or image rule in v2beta1; any container name is fine.
  Json any = MPIJob();
  any["spec"]["mpiReplicaSpecs"]["Worker"]["template"] = Template("whatever");
  EXPECT_EQ(Error(kind, any), "");
}

TEST(MPIJobTest, LauncherGetsTheHostfileAndOpenMpiEnvironment) {
  KubeflowJobKind kind(MPIJobSpec());
  Json job = MPIJob();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json launcher = Pod(kind, job, sets, 0, 0);
  EXPECT_EQ(EnvValue(launcher, "K_MPI_JOB_ROLE"), "launcher");
  EXPECT_EQ(EnvValue(launcher, "MPI_HOSTFILE_CONTENT"), "127.0.0.1 slots=2\n127.0.0.1 slots=2\n");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_orte_keep_fqdn_hostnames"), "true");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_plm_rsh_args"), "-o ConnectionAttempts=10");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_orte_set_default_slots"), "2");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_orte_default_hostfile"), "<unset>");
  EXPECT_EQ(launcher["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
  EXPECT_EQ(launcher["metadata"]["labels"]["training.kubeflow.org/replica-type"], "launcher");

  const Json worker = Pod(kind, job, sets, 1, 1);
  EXPECT_EQ(EnvValue(worker, "K_MPI_JOB_ROLE"), "worker");
  EXPECT_EQ(EnvValue(worker, "MPI_HOSTFILE_CONTENT"), "<unset>");
  EXPECT_EQ(worker["spec"]["hostname"], "pi-worker-1");

  job["spec"]["mpiImplementation"] = "Intel";
  job["spec"]["runLauncherAsWorker"] = true;
  const Json intel = Pod(kind, job, sets, 0, 0);
  EXPECT_EQ(EnvValue(intel, "MPI_HOSTFILE_CONTENT"), "127.0.0.1:2\n127.0.0.1:2\n127.0.0.1:2\n");
  EXPECT_EQ(EnvValue(intel, "I_MPI_PERHOST"), "2");
  EXPECT_EQ(EnvValue(intel, "OMPI_MCA_orte_keep_fqdn_hostnames"), "<unset>");
}

TEST(MPIJobTest, LauncherDecidesSuccessAndStatusRoundTrips) {
  KubeflowJobKind kind(MPIJobSpec());
  Json job = kind.Start(MPIJob(), {});
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 0, 2, 0}}, "t")));
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 2, 0, 0}}, "t")));

  job["status"] = kind.NextStatus(job, Seen({{0, 1, 0, 0}, {0, 2, 0, 0}}, "t1"));
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "MPIJobRunning");
  EXPECT_EQ(job["status"]["replicaStatuses"]["Launcher"]["active"], 1);
  EXPECT_TRUE(kind.PodsReady(job));
  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 2, 0, 0}}, "t2");
  done.outcome = GroupObservation::Outcome::kSucceeded;
  job["status"] = kind.NextStatus(job, done);
  bool ok = false;
  EXPECT_TRUE(kind.IsFinished(job, &ok));
  EXPECT_TRUE(ok);
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "MPIJobSucceeded");
}

TEST(MPIJobTest, PriorityFromSchedulingPolicy) {
  KubeflowJobKind kind(MPIJobSpec());
  Json job = MPIJob();
  job["spec"]["runPolicy"]["schedulingPolicy"] = {{"priorityClass", "hpc"}};
  EXPECT_EQ(kind.BuildWorkload(job).value()["spec"]["priorityClassRef"]["name"], "hpc");
}

}  // namespace
}  // namespace kuota::jobs
