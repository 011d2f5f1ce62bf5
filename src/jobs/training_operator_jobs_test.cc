// Tests of the training-operator's JAXJob, PaddleJob and XGBoostJob kinds:
// served under their CRDs' names and columns, validated with the operator
// webhook's field paths and messages, Kueue's pod sets (order, counts,
// priority, the replica-index label for topology), started and stopped
// through runPolicy.suspend, and the environment, labels and success rule
// each operator gives.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jobs/jax_job.h"
#include "jobs/jobs_test_util.h"
#include "jobs/paddle_job.h"
#include "jobs/registry.h"
#include "jobs/xgboost_job.h"

namespace kuota::jobs {
namespace {

Json TrainingTemplate(const std::string& container) {
  return {{"spec",
           {{"containers", Json::array({{{"name", container},
                                         {"image", "img:1"},
                                         {"resources", {{"requests", {{"cpu", "1"}}}}}}})}}}};
}

// A job of `kind` named "dist" in team-a, queued in lq, suspended, with
// `replicas` ({Type: count}) each running `container`.
Json TrainingJob(const std::string& kind, const std::string& field, const std::string& container,
                 const std::vector<std::pair<std::string, int>>& replicas) {
  Json job = {{"apiVersion", "kubeflow.org/v1"},
              {"kind", kind},
              {"metadata",
               {{"name", "dist"},
                {"namespace", "team-a"},
                {"uid", "uid-dist"},
                {"creationTimestamp", "2026-01-01T00:00:00Z"},
                {"labels", {{"kueue.x-k8s.io/queue-name", "lq"}}}}},
              {"spec", {{"runPolicy", {{"suspend", true}}}, {field, Json::object()}}}};
  for (const auto& [type, n] : replicas) {
    job["spec"][field][type] = {{"replicas", n}, {"template", TrainingTemplate(container)}};
  }
  return job;
}

Json JaxJobManifest() { return TrainingJob("JAXJob", "jaxReplicaSpecs", "jax", {{"Worker", 2}}); }
Json PaddleJobManifest() {
  return TrainingJob("PaddleJob", "paddleReplicaSpecs", "paddle", {{"Master", 1}, {"Worker", 2}});
}
Json XgbJobManifest() {
  return TrainingJob("XGBoostJob", "xgbReplicaSpecs", "xgboost", {{"Master", 1}, {"Worker", 2}});
}

std::string TrainingError(const JobKind& kind, const Json& job) {
  Status st = kind.Validate(job);
  return st.ok() ? "" : st.message();
}

// The pod the local runtime would build for (set, index), customized.
Json TrainingPod(const GroupJobKind& kind, const Json& job, size_t set, int64_t index) {
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  const Json* tmpl = FindTemplate(job, sets[set]);
  Json pod = {{"metadata", {{"labels", {{"kuota.dev/pod-set", sets[set].name}}}}},
              {"spec", tmpl != nullptr ? (*tmpl)["spec"] : Json::object()}};
  kind.CustomizePod(job, PodPosition{&sets, set, index, "127.0.0.1"}, pod);
  return pod;
}

// A containerPort named `name` on the first container of `type`.
void TrainingPort(Json& job, const std::string& field, const std::string& type,
                  const std::string& name, int port) {
  job["spec"][field][type]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"name", name}, {"containerPort", port}}});
}

// ---------------------------------------------------------------- served

TEST(TrainingOperatorKindsTest, ServedUnderTheirCrdNamesAndColumns) {
  const std::vector<std::pair<const KubeflowKindSpec*, std::string>> kinds = {
      {&JAXJobSpec(), "jaxjob"},
      {&PaddleJobSpec(), "paddlejob"},
      {&XGBoostJobSpec(), "xgboostjob"}};
  for (const auto& [spec, singular] : kinds) {
    KubeflowJobKind kind(*spec);
    EXPECT_EQ(kind.Resource(), singular + "s.kubeflow.org");
    EXPECT_EQ(kind.ApiVersion(), "kubeflow.org/v1");
    EXPECT_EQ(kind.Framework(), "kubeflow.org/" + singular);
    EXPECT_TRUE(kind.Info().short_names.empty()) << singular;
    ASSERT_EQ(kind.Info().columns.size(), 2u);
    EXPECT_EQ(kind.Info().columns[0].name, "State");
    EXPECT_EQ(kind.Info().columns[1].name, "Age");
    // Registered: the API server, the admission hook and the controller find it.
    EXPECT_NE(FindJobKind(singular + "s.kubeflow.org"), nullptr) << singular;
    EXPECT_NE(FindFramework("kubeflow.org/" + singular), nullptr) << singular;
  }
}

// ---------------------------------------------------------------- JAXJob

TEST(JAXJobTest, ValidationIsTheOperatorsWebhook) {
  KubeflowJobKind kind(JAXJobSpec());
  ASSERT_EQ(TrainingError(kind, JaxJobManifest()), "");
  const std::vector<EditCase> cases = {
      {"no replica specs", [](Json& j) { j["spec"].erase("jaxReplicaSpecs"); },
       "spec.jaxReplicaSpecs: Required value: must be required"},
      {"a Master",
       [](Json& j) {
         j["spec"]["jaxReplicaSpecs"]["Master"] = j["spec"]["jaxReplicaSpecs"]["Worker"];
       },
       "spec.jaxReplicaSpecs.Master: Unsupported value: \"Master\": supported values: "
       "\"Worker\""},
      {"no jax container",
       [](Json& j) {
         j["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] =
             "main";
       },
       "spec.jaxReplicaSpecs.Worker.template.spec.containers: Required value: must have at "
       "least one container with name jax"},
      {"no image",
       [](Json& j) {
         j["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0].erase("image");
       },
       "spec.jaxReplicaSpecs.Worker.template.spec.containers[0].image: Required value: must be "
       "required"},
      {"bad name", [](Json& j) { j["metadata"]["name"] = "Dist"; },
       "metadata.name: Invalid value: \"Dist\": should match: a DNS-1035 label must consist of "
       "lower case alphanumeric characters or '-', start with an alphabetic character, and end "
       "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
       "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"},
      {"bad restart policy",
       [](Json& j) { j["spec"]["jaxReplicaSpecs"]["Worker"]["restartPolicy"] = "Sometimes"; },
       "spec.jaxReplicaSpecs.Worker.restartPolicy: Unsupported value: \"Sometimes\": supported "
       "values: \"Always\", \"OnFailure\", \"Never\", \"ExitCode\""},
      {"many workers", [](Json& j) { j["spec"]["jaxReplicaSpecs"]["Worker"]["replicas"] = 8; },
       "OK"},
  };
  ExpectEditErrors(kind, JaxJobManifest(), cases, Match::kWhole);
}

TEST(JAXJobTest, WorkloadIsOneWorkerPodSetStartedThroughRunPolicy) {
  KubeflowJobKind kind(JAXJobSpec());
  Json job = JaxJobManifest();
  job["spec"]["runPolicy"].erase("suspend");
  kind.DefaultOnCreate(job);
  EXPECT_TRUE(kind.IsSuspended(job));
  EXPECT_EQ(job["spec"]["runPolicy"]["suspend"], true);

  const Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("jaxjob-dist-", 0), 0u);
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["kind"], "JAXJob");
  EXPECT_EQ(wl["spec"]["queueName"], "lq");
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"worker:2"}));
  EXPECT_EQ(wl["spec"]["podSets"][0]["topologyRequest"],
            Json({{"podIndexLabel", "training.kubeflow.org/replica-index"}}));
  EXPECT_FALSE(wl["spec"]["podSets"][0].contains("minCount"));

  PodSetPlacement worker{"worker", 2, {{"pool", "big"}}, Json::array()};
  const Json started = kind.Start(job, {worker});
  EXPECT_FALSE(kind.IsSuspended(started));
  EXPECT_EQ(
      started["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"]["pool"],
      "big");
  const Json stopped = kind.Stop(started);
  EXPECT_TRUE(kind.IsSuspended(stopped));
  EXPECT_FALSE(
      stopped["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"].contains("nodeSelector"));

  job["spec"]["runPolicy"]["schedulingPolicy"] = {{"priorityClass", "high"}};
  EXPECT_EQ(WorkloadOf(kind, job)["spec"]["priorityClassRef"]["name"], "high");
}

TEST(JAXJobTest, PodsGetTheCoordinatorEnvironment) {
  KubeflowJobKind kind(JAXJobSpec());
  Json job = JaxJobManifest();
  const Json w0 = TrainingPod(kind, job, 0, 0);
  const Json w1 = TrainingPod(kind, job, 0, 1);
  EXPECT_EQ(EnvValue(w1, "COORDINATOR_ADDRESS"), "127.0.0.1");
  EXPECT_EQ(EnvValue(w1, "COORDINATOR_PORT"), "6666");
  EXPECT_EQ(EnvValue(w1, "NUM_PROCESSES"), "2");
  EXPECT_EQ(EnvValue(w1, "PROCESS_ID"), "1");
  EXPECT_EQ(EnvValue(w0, "PROCESS_ID"), "0");
  EXPECT_EQ(EnvValue(w1, "PYTHONUNBUFFERED"), "1");
  const Json& labels = w1["metadata"]["labels"];
  EXPECT_EQ(labels["training.kubeflow.org/replica-index"], "1");
  EXPECT_EQ(labels["training.kubeflow.org/replica-type"], "worker");
  EXPECT_EQ(labels["training.kubeflow.org/operator-name"], "jaxjob-controller");
  EXPECT_EQ(labels["training.kubeflow.org/job-name"], "dist");
  EXPECT_FALSE(labels.contains("training.kubeflow.org/job-role"));
  EXPECT_EQ(w0["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
  EXPECT_EQ(w1["spec"]["hostname"], "dist-worker-1");
  EXPECT_EQ(w1["spec"]["restartPolicy"], "Never");
  // The worker's jaxjob-port is the coordinator's.
  TrainingPort(job, "jaxReplicaSpecs", "Worker", "jaxjob-port", 7000);
  EXPECT_EQ(EnvValue(TrainingPod(kind, job, 0, 1), "COORDINATOR_PORT"), "7000");
}

TEST(JAXJobTest, EveryWorkerDecidesSuccessAndStatusUsesTheKindsReasons) {
  KubeflowJobKind kind(JAXJobSpec());
  Json job = JaxJobManifest();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 1, 1, 0}})));
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 2, 0}})));
  job["status"] = kind.NextStatus(job, Seen({{0, 2, 0, 0}}, "t1"));
  EXPECT_EQ(job["status"]["conditions"][0]["reason"], "JAXJobCreated");
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "JAXJobRunning");
  EXPECT_EQ(ColumnValue(kind.Info(), "State", job), "Running");
  EXPECT_EQ(job["status"]["replicaStatuses"]["Worker"]["active"], 2);
  // Never (the operator's default): a failed worker fails the job.
  EXPECT_EQ(kind.OnPodEvent(job, sets[0], PodEvent::kFailed), GroupAction::kFailJob);
}

// ---------------------------------------------------------------- PaddleJob

TEST(PaddleJobTest, ValidationIsTheOperatorsWebhook) {
  KubeflowJobKind kind(PaddleJobSpec());
  ASSERT_EQ(TrainingError(kind, PaddleJobManifest()), "");
  const std::vector<EditCase> cases = {
      {"no replica specs", [](Json& j) { j["spec"].erase("paddleReplicaSpecs"); },
       "spec.paddleReplicaSpecs: Required value: must be required"},
      {"a PS",
       [](Json& j) {
         j["spec"]["paddleReplicaSpecs"]["PS"] = j["spec"]["paddleReplicaSpecs"]["Worker"];
       },
       "spec.paddleReplicaSpecs.PS: Unsupported value: \"PS\": supported values: \"Master\", "
       "\"Worker\""},
      {"no paddle container (the name quoted, as the webhook's %q)",
       [](Json& j) {
         j["spec"]["paddleReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["name"] =
             "main";
       },
       "spec.paddleReplicaSpecs.Master.template.spec.containers: Required value: must have at "
       "least one container with name \"paddle\""},
      {"no image",
       [](Json& j) {
         j["spec"]["paddleReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0].erase(
             "image");
       },
       "spec.paddleReplicaSpecs.Worker.template.spec.containers[0].image: Required value: must "
       "be required"},
      {"elastic field type",
       [](Json& j) {
         j["spec"]["elasticPolicy"] = {{"maxReplicas", "3"}};
       },
       "spec.elasticPolicy.maxReplicas: Invalid value: \"3\": must be an integer"},
      {"elastic metrics type",
       [](Json& j) {
         j["spec"]["elasticPolicy"] = {{"metrics", 1}};
       },
       "spec.elasticPolicy.metrics: Invalid value: 1: must be a list"},
      {"elastic policy",
       [](Json& j) {
         j["spec"]["elasticPolicy"] = {{"minReplicas", 1}};
       },
       "OK"},
      {"workers only (collective mode)",
       [](Json& j) { j["spec"]["paddleReplicaSpecs"].erase("Master"); }, "OK"},
      {"masters only", [](Json& j) { j["spec"]["paddleReplicaSpecs"].erase("Worker"); }, "OK"},
  };
  ExpectEditErrors(kind, PaddleJobManifest(), cases, Match::kWhole);
}

TEST(PaddleJobTest, MasterThenWorkerPodSetsAllStartedAtOnce) {
  KubeflowJobKind kind(PaddleJobSpec());
  const Json job = PaddleJobManifest();
  const Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("paddlejob-dist-", 0), 0u);
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"master:1", "worker:2"}));
  for (const Json& ps : wl["spec"]["podSets"]) {
    EXPECT_EQ(ps["topologyRequest"]["podIndexLabel"], "training.kubeflow.org/replica-index");
  }
  for (const PodSetDef& s : kind.PodSets(job)) EXPECT_EQ(s.stage, 0) << s.name;
  EXPECT_EQ(kind.PodSetTemplateField(job, 1), "spec.paddleReplicaSpecs.Worker.template");
  // OnFailure (the operator's default): a failed pod is restarted.
  EXPECT_EQ(kind.OnPodEvent(job, kind.PodSets(job)[1], PodEvent::kFailed),
            GroupAction::kRestartPod);
}

TEST(PaddleJobTest, PsModeRendezvousAtMasterZero) {
  KubeflowJobKind kind(PaddleJobSpec());
  Json job = PaddleJobManifest();
  const Json master = TrainingPod(kind, job, 0, 0);
  const Json w1 = TrainingPod(kind, job, 1, 1);
  for (const Json* pod : {&master, &w1}) {
    EXPECT_EQ(EnvValue(*pod, "PADDLE_MASTER"), "127.0.0.1:36543");
    EXPECT_EQ(EnvValue(*pod, "PADDLE_NNODES"), "3");
    EXPECT_EQ(EnvValue(*pod, "PADDLE_JOB_ID"), "dist");
    EXPECT_EQ(EnvValue(*pod, "PYTHONUNBUFFERED"), "1");
  }
  EXPECT_EQ(EnvValue(master, "POD_IP_DUMMY"), "127.0.0.1");
  EXPECT_EQ(EnvValue(w1, "POD_IP_DUMMY"), "<unset>");
  EXPECT_EQ(EnvValue(master, "PADDLE_SERVER_NUM"), "1");
  EXPECT_EQ(EnvValue(master, "PADDLE_TRAINER_NUM"), "<unset>");
  EXPECT_EQ(EnvValue(w1, "PADDLE_TRAINER_NUM"), "1");
  EXPECT_EQ(master["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
  EXPECT_FALSE(w1["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
  EXPECT_EQ(w1["metadata"]["labels"]["training.kubeflow.org/operator-name"],
            "paddlejob-controller");
  // The Master's port named "master" is the rendezvous port.
  TrainingPort(job, "paddleReplicaSpecs", "Master", "master", 40000);
  EXPECT_EQ(EnvValue(TrainingPod(kind, job, 1, 0), "PADDLE_MASTER"), "127.0.0.1:40000");
}

TEST(PaddleJobTest, CollectiveModeRendezvousAtWorkerZero) {
  KubeflowJobKind kind(PaddleJobSpec());
  Json job = PaddleJobManifest();
  job["spec"]["paddleReplicaSpecs"].erase("Master");
  TrainingPort(job, "paddleReplicaSpecs", "Worker", "master", 37000);
  const Json w0 = TrainingPod(kind, job, 0, 0);
  const Json w1 = TrainingPod(kind, job, 0, 1);
  EXPECT_EQ(EnvValue(w0, "PADDLE_MASTER"), "127.0.0.1:37000");
  EXPECT_EQ(EnvValue(w1, "PADDLE_MASTER"), "127.0.0.1:37000");
  EXPECT_EQ(EnvValue(w0, "POD_IP_DUMMY"), "127.0.0.1");
  EXPECT_EQ(EnvValue(w1, "POD_IP_DUMMY"), "<unset>");
  EXPECT_EQ(EnvValue(w1, "PADDLE_NNODES"), "2");
  EXPECT_EQ(EnvValue(w1, "PADDLE_TRAINER_NUM"), "<unset>");
  EXPECT_EQ(EnvValue(w0, "PADDLE_SERVER_NUM"), "<unset>");
  EXPECT_FALSE(w0["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
}

TEST(PaddleJobTest, MasterDecidesSuccessElseEveryWorker) {
  KubeflowJobKind kind(PaddleJobSpec());
  const Json job = PaddleJobManifest();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 2, 0, 0}})));
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 0, 2, 0}})));
  Json workers = job;
  workers["spec"]["paddleReplicaSpecs"].erase("Master");
  const std::vector<PodSetDef> ws = kind.PodSets(workers);
  EXPECT_FALSE(kind.Succeeded(workers, ws, Seen({{0, 1, 1, 0}})));
  EXPECT_TRUE(kind.Succeeded(workers, ws, Seen({{0, 0, 2, 0}})));
}

// ---------------------------------------------------------------- XGBoostJob

TEST(XGBoostJobTest, ValidationIsTheOperatorsWebhook) {
  KubeflowJobKind kind(XGBoostJobSpec());
  ASSERT_EQ(TrainingError(kind, XgbJobManifest()), "");
  const std::vector<EditCase> cases = {
      {"no replica specs", [](Json& j) { j["spec"].erase("xgbReplicaSpecs"); },
       "spec.xgbReplicaSpecs: Required value: must be required"},
      {"no master", [](Json& j) { j["spec"]["xgbReplicaSpecs"].erase("Master"); },
       "spec.xgbReplicaSpecs.Master: Required value: must be present"},
      {"two masters", [](Json& j) { j["spec"]["xgbReplicaSpecs"]["Master"]["replicas"] = 2; },
       "spec.xgbReplicaSpecs.Master.replicas: Forbidden: must be 1"},
      {"master replicas unset (the operator has no defaulting webhook)",
       [](Json& j) { j["spec"]["xgbReplicaSpecs"]["Master"].erase("replicas"); },
       "spec.xgbReplicaSpecs.Master.replicas: Forbidden: must be 1"},
      {"a Chief",
       [](Json& j) {
         j["spec"]["xgbReplicaSpecs"]["Chief"] = j["spec"]["xgbReplicaSpecs"]["Worker"];
       },
       "spec.xgbReplicaSpecs.Chief: Unsupported value: \"Chief\": supported values: \"Master\", "
       "\"Worker\""},
      {"no xgboost container",
       [](Json& j) {
         j["spec"]["xgbReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] =
             "main";
       },
       "spec.xgbReplicaSpecs.Worker.template.spec.containers: Required value: must have at "
       "least one container with name xgboost"},
      {"bad clean policy", [](Json& j) { j["spec"]["runPolicy"]["cleanPodPolicy"] = "Some"; },
       "spec.runPolicy.cleanPodPolicy: Unsupported value: \"Some\": supported values: \"All\", "
       "\"None\", \"Running\""},
      {"master only", [](Json& j) { j["spec"]["xgbReplicaSpecs"].erase("Worker"); }, "OK"},
  };
  ExpectEditErrors(kind, XgbJobManifest(), cases, Match::kWhole);
}

TEST(XGBoostJobTest, MasterThenWorkerPodSets) {
  KubeflowJobKind kind(XGBoostJobSpec());
  const Json job = XgbJobManifest();
  const Json wl = WorkloadOf(kind, job);
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("xgboostjob-dist-", 0), 0u);
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"master:1", "worker:2"}));
  EXPECT_EQ(wl["spec"]["podSets"][1]["topologyRequest"]["podIndexLabel"],
            "training.kubeflow.org/replica-index");
  for (const PodSetDef& s : kind.PodSets(job)) EXPECT_EQ(s.stage, 0) << s.name;
}

TEST(XGBoostJobTest, PodsGetTheTrackerEnvironment) {
  KubeflowJobKind kind(XGBoostJobSpec());
  Json job = XgbJobManifest();
  const Json master = TrainingPod(kind, job, 0, 0);
  const Json w1 = TrainingPod(kind, job, 1, 1);
  EXPECT_EQ(EnvValue(master, "RANK"), "0");
  EXPECT_EQ(EnvValue(w1, "RANK"), "2");  // worker i is rank i + 1
  for (const Json* pod : {&master, &w1}) {
    EXPECT_EQ(EnvValue(*pod, "MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(EnvValue(*pod, "MASTER_PORT"), "9999");
    EXPECT_EQ(EnvValue(*pod, "WORLD_SIZE"), "3");
    EXPECT_EQ(EnvValue(*pod, "WORKER_PORT"), "9999");
    EXPECT_EQ(EnvValue(*pod, "WORKER_ADDRS"), "127.0.0.1,127.0.0.1");
    EXPECT_EQ(EnvValue(*pod, "PYTHONUNBUFFERED"), "1");
  }
  EXPECT_EQ(master["metadata"]["labels"]["training.kubeflow.org/job-role"], "master");
  EXPECT_EQ(master["metadata"]["labels"]["training.kubeflow.org/operator-name"],
            "xgboostjob-controller");
  EXPECT_FALSE(w1["metadata"]["labels"].contains("training.kubeflow.org/job-role"));
  // Each type's xgboostjob-port.
  TrainingPort(job, "xgbReplicaSpecs", "Master", "xgboostjob-port", 9100);
  TrainingPort(job, "xgbReplicaSpecs", "Worker", "xgboostjob-port", 9200);
  const Json w0 = TrainingPod(kind, job, 1, 0);
  EXPECT_EQ(EnvValue(w0, "MASTER_PORT"), "9100");
  EXPECT_EQ(EnvValue(w0, "WORKER_PORT"), "9200");
  // A lone master: no worker addresses.
  Json alone = XgbJobManifest();
  alone["spec"]["xgbReplicaSpecs"].erase("Worker");
  const Json only = TrainingPod(kind, alone, 0, 0);
  EXPECT_EQ(EnvValue(only, "WORLD_SIZE"), "1");
  EXPECT_EQ(EnvValue(only, "WORKER_ADDRS"), "<unset>");
  EXPECT_EQ(EnvValue(only, "WORKER_PORT"), "<unset>");
}

TEST(XGBoostJobTest, MasterDecidesSuccess) {
  KubeflowJobKind kind(XGBoostJobSpec());
  Json job = XgbJobManifest();
  const std::vector<PodSetDef> sets = kind.PodSets(job);
  EXPECT_TRUE(kind.Succeeded(job, sets, Seen({{0, 0, 1, 0}, {0, 2, 0, 0}})));
  EXPECT_FALSE(kind.Succeeded(job, sets, Seen({{0, 1, 0, 0}, {0, 0, 2, 0}})));
  GroupObservation done = Seen({{0, 0, 1, 0}, {0, 0, 2, 0}}, "t2");
  done.outcome = GroupObservation::Outcome::kSucceeded;
  job["status"] = kind.NextStatus(job, done);
  EXPECT_EQ(job["status"]["conditions"].back()["reason"], "XGBoostJobSucceeded");
  EXPECT_EQ(ColumnValue(kind.Info(), "State", job), "Succeeded");
  bool succeeded = false;
  EXPECT_TRUE(kind.IsFinished(job, &succeeded));
  EXPECT_TRUE(succeeded);
}

}  // namespace
}  // namespace kuota::jobs
