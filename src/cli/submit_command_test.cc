// The Job `kuota submit` builds, and its errors for bad flags.
#include "cli/submit_command.h"

#include <gtest/gtest.h>

#include <functional>
#include <utility>

namespace kuota::cli {
namespace {

using Json = nlohmann::json;

SubmitOptions Options() {
  SubmitOptions o;
  o.command = {"python3", "train.py", "--epochs", "3"};
  o.queue = "team-a";
  return o;
}

std::string ErrorOf(const SubmitOptions& o) {
  Result<Json> job = BuildSubmitJob(o);
  EXPECT_FALSE(job.ok());
  return job.ok() ? "" : job.status().message();
}

TEST(BuildSubmitJobTest, Defaults) {
  Result<Json> job = BuildSubmitJob(Options());
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)["apiVersion"], "batch/v1");
  EXPECT_EQ((*job)["kind"], "Job");
  EXPECT_EQ((*job)["metadata"]["namespace"], "default");
  EXPECT_EQ((*job)["metadata"]["generateName"], "python3-");
  EXPECT_FALSE((*job)["metadata"].contains("name"));
  EXPECT_EQ((*job)["metadata"]["labels"], Json({{"kueue.x-k8s.io/queue-name", "team-a"}}));
  const Json& spec = (*job)["spec"];
  EXPECT_EQ(spec["parallelism"], 1);
  EXPECT_EQ(spec["completions"], 1);
  EXPECT_EQ(spec["backoffLimit"], 0);
  EXPECT_FALSE(spec.contains("completionMode"));
  const Json& pod = spec["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"], "Never");
  ASSERT_EQ(pod["containers"].size(), 1u);
  const Json& c = pod["containers"][0];
  EXPECT_EQ(c["name"], "main");
  EXPECT_EQ(c["image"], "local");
  EXPECT_EQ(c["command"], Json({"python3", "train.py", "--epochs", "3"}));
  EXPECT_EQ(c["resources"]["requests"], Json({{"cpu", "1"}}));
  EXPECT_EQ(c["resources"]["limits"], c["resources"]["requests"]);
  EXPECT_FALSE(c.contains("env"));
  EXPECT_FALSE(c.contains("workingDir"));
}

TEST(BuildSubmitJobTest, EveryFlag) {
  SubmitOptions o = Options();
  o.ns = "team-a";
  o.name = "train-1";
  o.cpu = "500m";
  o.memory = "4Gi";
  o.gpus = 2;
  o.priority = "high";
  o.parallelism = 4;
  o.completions = 8;
  o.indexed = true;
  o.backoff_limit = 3;
  o.env = {"EPOCHS=3", "EMPTY=", "EQ=a=b"};
  o.workdir = "/srv/train";
  Result<Json> job = BuildSubmitJob(o);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)["metadata"]["name"], "train-1");
  EXPECT_EQ((*job)["metadata"]["namespace"], "team-a");
  EXPECT_EQ((*job)["metadata"]["labels"]["kueue.x-k8s.io/priority-class"], "high");
  const Json& spec = (*job)["spec"];
  EXPECT_EQ(spec["parallelism"], 4);
  EXPECT_EQ(spec["completions"], 8);
  EXPECT_EQ(spec["completionMode"], "Indexed");
  EXPECT_EQ(spec["backoffLimit"], 3);
  const Json& c = spec["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["resources"]["requests"],
            Json({{"cpu", "500m"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "2"}}));
  EXPECT_EQ(c["env"], Json::parse(R"([{"name":"EPOCHS","value":"3"},{"name":"EMPTY","value":""},
                                       {"name":"EQ","value":"a=b"}])"));
  EXPECT_EQ(c["workingDir"], "/srv/train");
}

TEST(BuildSubmitJobTest, GeneratedNamesAreValid) {
  SubmitOptions o = Options();
  o.command = {"/usr/bin/My_Tool.sh"};
  EXPECT_EQ((*BuildSubmitJob(o))["metadata"]["generateName"], "my-tool-sh-");
  o.command = {"./123"};
  EXPECT_EQ((*BuildSubmitJob(o))["metadata"]["generateName"], "job-123-");
  o.command = {"__"};
  EXPECT_EQ((*BuildSubmitJob(o))["metadata"]["generateName"], "job-");
}

TEST(BuildSubmitJobTest, BadFlagsNameTheFlag) {
  // Each change of Options() and what its error says.
  const std::pair<std::function<void(SubmitOptions&)>, const char*> bad[] = {
      {[](SubmitOptions& o) { o.cpu = "2x"; }, "--cpu: invalid quantity \"2x\""},
      {[](SubmitOptions& o) { o.cpu = "0"; }, "--cpu: must be greater than zero"},
      {[](SubmitOptions& o) { o.memory = "lots"; }, "--memory: invalid quantity \"lots\""},
      {[](SubmitOptions& o) { o.gpus = -1; }, "--gpus"},
      {[](SubmitOptions& o) { o.name = "Bad_Name"; }, "--name: "},
      {[](SubmitOptions& o) { o.queue = ""; }, "--queue: a LocalQueue name is required"},
      {[](SubmitOptions& o) { o.env = {"NOEQUALS"}; }, "--env: want KEY=VALUE, got \"NOEQUALS\""},
      {[](SubmitOptions& o) { o.env = {"1X=2"}; }, "--env: invalid variable name \"1X\""},
      {[](SubmitOptions& o) { o.parallelism = 0; }, "--parallelism: must be at least 1"},
      {[](SubmitOptions& o) { o.command.clear(); }, "a command to run is required after --"},
      {[](SubmitOptions& o) { o.ns = "Team A"; }, "-n: "}};
  for (const auto& [change, want] : bad) {
    SubmitOptions o = Options();
    change(o);
    EXPECT_NE(ErrorOf(o).find(want), std::string::npos) << ErrorOf(o);
  }
}

TEST(BuildSubmitObjectTest, PyTorchJobHasAMasterAndParallelismMinusOneWorkers) {
  SubmitOptions o = Options();
  o.kind = "PyTorchJob";
  o.parallelism = 3;
  o.gpus = 1;
  Result<Json> pt = BuildSubmitObject(o);
  ASSERT_TRUE(pt.ok()) << pt.status().message();
  EXPECT_EQ((*pt)["apiVersion"], "kubeflow.org/v1");
  EXPECT_EQ((*pt)["kind"], "PyTorchJob");
  const Json& specs = (*pt)["spec"]["pytorchReplicaSpecs"];
  EXPECT_EQ(specs["Master"]["replicas"], 1);
  EXPECT_EQ(specs["Worker"]["replicas"], 2);
  const Json& c = specs["Worker"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["name"], "pytorch");  // the operator's default container
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ((*pt)["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], o.queue);
}

TEST(BuildSubmitObjectTest, OtherKubeflowJobsUseTheirOperatorsShape) {
  struct Want {
    const char* flag;
    const char* kind;
    const char* specs;
    const char* container;
    bool master;
  };
  for (const Want& w : {Want{"jaxjob", "JAXJob", "jaxReplicaSpecs", "jax", false},
                        Want{"PaddleJob", "PaddleJob", "paddleReplicaSpecs", "paddle", true},
                        Want{"xgboostjobs", "XGBoostJob", "xgbReplicaSpecs", "xgboost", true}}) {
    SubmitOptions o = Options();
    o.kind = w.flag;
    o.parallelism = 3;
    Result<Json> r = BuildSubmitObject(o);
    ASSERT_TRUE(r.ok()) << w.flag << ": " << r.status().message();
    EXPECT_EQ((*r)["kind"], w.kind);
    const Json& specs = (*r)["spec"][w.specs];
    EXPECT_EQ(specs["Worker"]["replicas"], w.master ? 2 : 3) << w.flag;
    EXPECT_EQ(specs.contains("Master"), w.master) << w.flag;
    EXPECT_EQ(specs["Worker"]["template"]["spec"]["containers"][0]["name"], w.container);
  }
}

TEST(BuildSubmitObjectTest, VolcanoJobStartsAllPodsTogether) {
  SubmitOptions o = Options();
  o.kind = "vcjob";
  o.parallelism = 4;
  Result<Json> vc = BuildSubmitObject(o);
  ASSERT_TRUE(vc.ok()) << vc.status().message();
  EXPECT_EQ((*vc)["apiVersion"], "batch.volcano.sh/v1alpha1");
  EXPECT_EQ((*vc)["spec"]["minAvailable"], 4);
  EXPECT_EQ((*vc)["spec"]["tasks"][0]["replicas"], 4);
}

TEST(BuildSubmitObjectTest, KindsThatCannotExpressTheFlagsAreRefusedNamingThem) {
  SubmitOptions o = Options();
  o.kind = "spaceship";
  Result<Json> r = BuildSubmitObject(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--kind: unknown kind \"spaceship\"; choose one of job, "
                                      "pytorchjob"),
            std::string::npos)
      << r.status().message();
  o.kind = "pod";
  o.parallelism = 2;
  r = BuildSubmitObject(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--parallelism"), std::string::npos);
  o.kind = "jobset";
  o.parallelism = 2;
  o.completions = 4;
  r = BuildSubmitObject(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--completions"), std::string::npos);
  o.completions = 0;
  r = BuildSubmitObject(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"], 2);
}

}  // namespace
}  // namespace kuota::cli
