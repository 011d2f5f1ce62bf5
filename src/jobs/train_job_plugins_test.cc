// Tests for Trainer's MPI, JAX and XGBoost plugins on a TrainJob: the counts
// they set, the environment each pod of the runtime's JobSet gets, and the
// names their webhooks reserve. (Torch's are in train_job_test.cc.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/group_reconcile.h"
#include "jobs/jobs_test_util.h"
#include "jobs/train_job.h"
#include "jobs/train_job_runtime.h"

namespace kuota::jobs {
namespace {

// A one-step runtime of `policy` (Trainer's jax-distributed and
// xgboost-distributed runtimes have this shape).
Json OneStepRuntime(const std::string& policy) {
  Json rt = Json::parse(R"json({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "rt"},
    "spec": {"mlPolicy": {"numNodes": 1},
      "template": {"spec": {"replicatedJobs": [
        {"name": "node",
         "template": {"metadata": {"labels": {
             "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
           "spec": {"template": {"spec": {"containers": [
             {"name": "node", "image": "img:1", "resources": {"requests": {"cpu": "1"}}}]}}}}}
      ]}}}
  })json");
  rt["spec"]["mlPolicy"][policy] = Json::object();
  return rt;
}

// Trainer's deepspeed-distributed runtime: MPI with the launcher as a node.
Json MpiRuntime(bool launcher_as_node) {
  Json rt = Json::parse(R"json({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
    "metadata": {"name": "rt"},
    "spec": {"mlPolicy": {"numNodes": 1, "mpi": {"numProcPerNode": 1,
                                                  "mpiImplementation": "OpenMPI"}},
      "template": {"spec": {"replicatedJobs": [
        {"name": "node",
         "template": {"spec": {"template": {"spec": {"containers": [
             {"name": "node", "image": "ds:1", "command": ["/usr/sbin/sshd"]}]}}}}},
        {"name": "launcher",
         "template": {"metadata": {"labels": {
             "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
           "spec": {"template": {"spec": {"containers": [
             {"name": "node", "image": "ds:1", "command": ["mpirun"]}]}}}}}
      ]}}}
  })json");
  rt["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = launcher_as_node;
  return rt;
}

Json TrainJobWith(int64_t nodes) {
  Json job = Json::parse(R"json({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "tj", "namespace": "team-a", "uid": "u-9",
                 "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
    "spec": {"runtimeRef": {"name": "rt"}, "trainer": {"env": []}}
  })json");
  job["spec"]["trainer"]["numNodes"] = nodes;
  return job;
}

// The pods the local runtime makes for `job` on `runtime`, once started.
std::vector<Json> PodsOf(const TrainJobKind& kind, Json job, const Json& runtime) {
  kind.Default(job);
  kind.DefaultOnCreate(job);
  Result<Json> with = kind.WithReference(job, runtime);
  EXPECT_TRUE(with.ok()) << with.status().message();
  if (!with.ok()) return {};
  Json started = *with;
  started["spec"]["suspend"] = false;
  auto actions = ReconcileGroup(kind, started, {}, "2024-05-01T10:00:00Z");
  EXPECT_TRUE(actions.ok()) << actions.status().message();
  return actions.ok() ? actions->create_pods : std::vector<Json>{};
}

std::string FieldRefOf(const Json& pod, const std::string& name) {
  for (const Json& e : pod["spec"]["containers"][0].value("env", Json::array())) {
    if (e.value("name", "") == name) return e["valueFrom"]["fieldRef"]["fieldPath"];
  }
  return "<unset>";
}

TEST(TrainJobPlugins, GivesJaxItsCoordinator) {
  TrainJobKind kind;
  const std::vector<Json> pods = PodsOf(kind, TrainJobWith(3), OneStepRuntime("jax"));
  ASSERT_EQ(pods.size(), 3u);
  const Json& p = pods[2];
  EXPECT_EQ(EnvValue(p, "JAX_NUM_PROCESSES"), "3");
  EXPECT_EQ(EnvValue(p, "JAX_COORDINATOR_ADDRESS"), "127.0.0.1:29500");
  EXPECT_EQ(FieldRefOf(p, "JAX_PROCESS_ID"),
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], "2");
  EXPECT_EQ(p["spec"]["containers"][0]["ports"][0]["containerPort"], 29500);
  EXPECT_EQ(EnvValue(p, "PET_NNODES"), "<unset>");
}

TEST(TrainJobPlugins, GivesXgboostItsTrackerAndWorkerCount) {
  TrainJobKind kind;
  std::vector<Json> pods = PodsOf(kind, TrainJobWith(2), OneStepRuntime("xgboost"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(EnvValue(pods[1], "DMLC_TRACKER_URI"), "127.0.0.1");
  EXPECT_EQ(EnvValue(pods[1], "DMLC_TRACKER_PORT"), "29500");
  EXPECT_EQ(EnvValue(pods[1], "DMLC_NUM_WORKER"), "2");
  EXPECT_EQ(FieldRefOf(pods[1], "DMLC_TASK_ID"),
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");

  // One worker per GPU of a node.
  Json gpus = TrainJobWith(2);
  gpus["spec"]["trainer"]["resourcesPerNode"] = {{"limits", {{"nvidia.com/gpu", 4}}}};
  pods = PodsOf(kind, gpus, OneStepRuntime("xgboost"));
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(EnvValue(pods[0], "DMLC_NUM_WORKER"), "8");
}

TEST(TrainJobPlugins, RefusesTheNamesEachPluginReserves) {
  TrainJobKind kind;
  Json xgb = TrainJobWith(1);
  xgb["spec"]["trainer"]["env"] = {{{"name", "A"}, {"value", "1"}},
                                   {{"name", "DMLC_TASK_ID"}, {"value", "0"}}};
  kind.Default(xgb);
  Result<Json> r = kind.WithReference(xgb, OneStepRuntime("xgboost"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "spec.trainer.env[1]: Forbidden: DMLC_TASK_ID is reserved for the XGBoost runtime");

  Json mpi = TrainJobWith(2);
  mpi["spec"]["trainer"]["env"] = {{{"name", "OMPI_MCA_plm_rsh_args"}, {"value", "x"}},
                                   {{"name", "OMPI_MCA_orte_default_hostfile"}, {"value", "y"}}};
  kind.Default(mpi);
  r = kind.WithReference(mpi, MpiRuntime(true));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("spec.trainer.env: Invalid value: ", 0), 0u);
  EXPECT_NE(r.status().message().find("must not have reserved envs, invalid envs configured: "
                                      "[OMPI_MCA_orte_default_hostfile OMPI_MCA_plm_rsh_args]"),
            std::string::npos)
      << r.status().message();

  // JAX reserves none.
  Json jax = TrainJobWith(1);
  jax["spec"]["trainer"]["env"] = {{{"name", "JAX_PROCESS_ID"}, {"value", "0"}}};
  kind.Default(jax);
  EXPECT_TRUE(kind.WithReference(jax, OneStepRuntime("jax")).ok());
}

TEST(TrainJobPlugins, CountsMpiNodesAndGivesTheLauncherItsHostfile) {
  TrainJobKind kind;
  // Launcher as a node: numNodes 3 is the launcher and 2 "node" pods.
  std::vector<Json> pods = PodsOf(kind, TrainJobWith(3), MpiRuntime(true));
  std::vector<std::string> names;
  for (const Json& p : pods) names.push_back(p["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"tj-node-0-0", "tj-node-0-1", "tj-launcher-0-0"}));
  ASSERT_EQ(pods.size(), 3u);
  const Json& launcher = pods[2];
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_orte_keep_fqdn_hostnames"), "true");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_orte_set_default_slots"), "1");
  EXPECT_EQ(EnvValue(launcher, "OMPI_MCA_plm_rsh_args"), "-o ConnectionAttempts=10");
  EXPECT_EQ(EnvValue(launcher, "MPI_HOSTFILE_CONTENT"),
            "127.0.0.1 slots=1\n127.0.0.1 slots=1\n127.0.0.1 slots=1\n");
  EXPECT_EQ(EnvValue(pods[0], "MPI_HOSTFILE_CONTENT"), "<unset>");

  // Without: every one of numNodes is a "node"; the launcher is one more.
  Json four = TrainJobWith(2);
  four["spec"]["trainer"]["numProcPerNode"] = 4;
  pods = PodsOf(kind, four, MpiRuntime(false));
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(EnvValue(pods[2], "MPI_HOSTFILE_CONTENT"), "127.0.0.1 slots=4\n127.0.0.1 slots=4\n");
  EXPECT_EQ(EnvValue(pods[2], "OMPI_MCA_orte_set_default_slots"), "4");
}

}  // namespace
}  // namespace kuota::jobs
