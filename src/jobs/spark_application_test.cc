#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/group_reconcile.h"
#include "jobs/jobs_test_util.h"
#include "jobs/registry.h"
#include "jobs/spark_application.h"
#include "jobs/spark_pod_templates.h"

namespace kuota::jobs {
namespace {

// Kueue's sample-sparkapplication.yaml, queued, as the operator defaults it.
Json SparkSample() {
  Json j = Json::parse(R"({
    "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
    "metadata": {"name": "spark-pi", "namespace": "team-a", "uid": "9a8b-7c6d",
                 "creationTimestamp": "2024-05-01T10:00:00Z",
                 "labels": {"kueue.x-k8s.io/queue-name": "user-queue", "team": "a"}},
    "spec": {
      "type": "Scala", "mode": "cluster", "sparkVersion": "4.0.0", "image": "spark:4.0.0",
      "mainClass": "org.apache.spark.examples.SparkPi",
      "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
      "arguments": ["50000"],
      "driver": {"coreRequest": "1", "memory": "1g", "serviceAccount": "spark"},
      "executor": {"instances": 2, "coreRequest": "500m", "memory": "512m",
                   "deleteOnTermination": false}}
  })");
  SparkApplicationKind().Default(j);
  return j;
}

std::string SparkErrorOf(const Status& st) { return st.ok() ? "OK" : st.message(); }

std::string SparkLabel(const Json& pod, const char* key) {
  return pod["metadata"]["labels"].value(key, "<unset>");
}

TEST(SparkApplicationKind, Info) {
  SparkApplicationKind k;
  EXPECT_EQ(k.Framework(), "sparkoperator.k8s.io/sparkapplication");
  EXPECT_EQ(k.Resource(), "sparkapplications.sparkoperator.k8s.io");
  EXPECT_EQ(k.ApiVersion(), "sparkoperator.k8s.io/v1beta2");
  EXPECT_EQ(k.Info().short_names, std::vector<std::string>{"sparkapp"});
  std::vector<std::string> shown;
  for (const PrinterColumn& c : k.Info().columns) shown.push_back(c.name);
  EXPECT_EQ(shown,
            (std::vector<std::string>{"Suspend", "Status", "Attempts", "Start", "Finish", "Age"}));
  ASSERT_NE(FindFramework("sparkoperator.k8s.io/sparkapplication"), nullptr);
  EXPECT_NE(FindGroupJobKind("sparkapplications.sparkoperator.k8s.io"), nullptr);
}

TEST(SparkApplicationKind, OperatorDefaults) {
  Json j = Json::parse(R"({"metadata": {"name": "a"}, "spec": {
      "sparkVersion": "3.5.0", "mainApplicationFile": "x.jar",
      "restartPolicy": {"type": "OnFailure"}, "driver": {}, "executor": {}}})");
  SparkApplicationKind().Default(j);
  const Json& s = j["spec"];
  EXPECT_EQ(s["type"], "Scala");
  EXPECT_EQ(s["mode"], "cluster");
  EXPECT_EQ(s["restartPolicy"]["onFailureRetryInterval"], 5);
  EXPECT_EQ(s["restartPolicy"]["onSubmissionFailureRetryInterval"], 5);
  EXPECT_EQ(s["driver"]["cores"], 1);
  EXPECT_EQ(s["driver"]["memory"], "1g");
  EXPECT_EQ(s["executor"]["memory"], "1g");
  EXPECT_EQ(s["executor"]["instances"], 1);
  // sparkConf's own values and dynamic allocation leave them unset.
  Json d = Json::parse(R"({"metadata": {"name": "a"}, "spec": {
      "sparkConf": {"spark.executor.memory": "2g"}, "dynamicAllocation": {"enabled": true},
      "driver": {}, "executor": {}}})");
  SparkApplicationKind().Default(d);
  EXPECT_FALSE(d["spec"]["executor"].contains("memory"));
  EXPECT_FALSE(d["spec"]["executor"].contains("instances"));
  EXPECT_EQ(d["spec"]["dynamicAllocation"]["shuffleTrackingEnabled"], true);
  EXPECT_EQ(d["spec"]["restartPolicy"]["type"], "Never");
  // Only a new application is defaulted.
  Json running = Json::parse(R"({"metadata": {"name": "a"}, "spec": {"driver": {}, "executor": {}},
      "status": {"applicationState": {"state": "RUNNING"}}})");
  SparkApplicationKind().Default(running);
  EXPECT_FALSE(running["spec"]["driver"].contains("cores"));
}

TEST(SparkApplicationKind, ValidatesTheSample) {
  EXPECT_EQ(SparkErrorOf(SparkApplicationKind().Validate(SparkSample())), "OK");
}

TEST(SparkApplicationKind, ValidationErrors) {
  const std::vector<EditCase> cases = {
      {"name", [](Json& j) { j["metadata"]["name"] = "Spark_Pi"; },
       "metadata.name: Invalid value: \"Spark_Pi\": invalid SparkApplication name: a DNS-1035 "
       "label must consist of lower case alphanumeric characters or '-', start with an "
       "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
       "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"},
      {"no spec", [](Json& j) { j.erase("spec"); }, "spec: Required value"},
      {"type", [](Json& j) { j["spec"]["type"] = "Go"; },
       "spec.type: Unsupported value: \"Go\": supported values: \"Java\", \"Python\", "
       "\"Scala\", \"R\""},
      {"no version", [](Json& j) { j["spec"].erase("sparkVersion"); },
       "spec.sparkVersion: Required value"},
      {"no main file", [](Json& j) { j["spec"].erase("mainApplicationFile"); },
       "spec.mainApplicationFile: Required value"},
      {"no driver", [](Json& j) { j["spec"].erase("driver"); }, "spec.driver: Required value"},
      {"zero cores", [](Json& j) { j["spec"]["driver"]["cores"] = 0; },
       "spec.driver.cores: Invalid value: 0: must be greater than or equal to 1"},
      {"zero executors", [](Json& j) { j["spec"]["executor"]["instances"] = 0; },
       "spec.executor.instances: Invalid value: 0: must be greater than or equal to 1"},
      {"bad memory", [](Json& j) { j["spec"]["executor"]["memory"] = "lots"; },
       "spec.executor.memory: Invalid value: \"lots\": quantities must match the regular "
       "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"bad core request", [](Json& j) { j["spec"]["driver"]["coreRequest"] = 1; },
       "spec.driver.coreRequest: Invalid value: 1: must be a string"},
      {"restart policy", [](Json& j) { j["spec"]["restartPolicy"]["type"] = "Sometimes"; },
       "spec.restartPolicy.type: Unsupported value: \"Sometimes\": supported values: \"Never\", "
       "\"Always\", \"OnFailure\""},
      {"env",
       [](Json& j) {
         j["spec"]["driver"]["env"] = Json::array({{{"value", "x"}}});
       },
       "spec.driver.env[0].name: Required value"},
      {"template before Spark 3",
       [](Json& j) {
         j["spec"]["sparkVersion"] = "2.4.8";
         j["spec"]["executor"]["template"] = Json::object();
       },
       "spec.sparkVersion: Invalid value: \"2.4.8\": pod template feature requires Spark "
       "version 3.0.0 or higher"},
      {"two node selectors",
       [](Json& j) {
         j["spec"]["nodeSelector"] = {{"a", "b"}};
         j["spec"]["driver"]["nodeSelector"] = {{"c", "d"}};
       },
       "spec.nodeSelector: Forbidden: node selector cannot be defined at both "
       "SparkApplication and Driver/Executor"},
      {"denied conf",
       [](Json& j) {
         j["spec"]["sparkConf"] = {{"spark.master", "local"}};
       },
       "spec.sparkConf[spark.master]: Forbidden: sparkConf key \"spark.master\" is not allowed: "
       "this value is managed by the operator"},
      {"other namespace",
       [](Json& j) {
         j["spec"]["sparkConf"] = {{"spark.kubernetes.namespace", "b"}};
       },
       "spec.sparkConf[spark.kubernetes.namespace]: Forbidden: sparkConf key "
       "\"spark.kubernetes.namespace\" is not allowed: must equal the application namespace "
       "\"team-a\", got \"b\""},
      // Kueue's webhook, on a queued application.
      {"client mode", [](Json& j) { j["spec"]["mode"] = "client"; },
       "spec.mode: Invalid value: \"client\": only Cluster mode is supported for a kueue "
       "managed job"},
      {"dynamic allocation",
       [](Json& j) {
         j["spec"]["dynamicAllocation"] = {{"enabled", true}};
       },
       "spec.dynamicAllocation.enabled: Invalid value: true: a kueue managed job can use "
       "dynamicAllocation only when the ElasticJobsViaWorkloadSlices feature gate is on and the "
       "job is an elastic job"},
      {"topology",
       [](Json& j) {
         j["spec"]["executor"]["annotations"] = {
             {"kueue.x-k8s.io/podset-required-topology", "rack"},
             {"kueue.x-k8s.io/podset-slice-required-topology", "host"},
             {"kueue.x-k8s.io/podset-slice-size", "3"}};
       },
       "spec.executor.annotations[kueue.x-k8s.io/podset-slice-size]: Invalid value: \"3\": must "
       "not be greater than pod set count 2"},
  };
  ExpectEditErrors(SparkApplicationKind(), SparkSample(), cases, Match::kWhole);
  // Kueue's rules hold for queued applications only.
  Json unqueued = SparkSample();
  unqueued["metadata"]["labels"].erase("kueue.x-k8s.io/queue-name");
  unqueued["spec"]["mode"] = "client";
  EXPECT_EQ(SparkErrorOf(SparkApplicationKind().Validate(unqueued)), "OK");
}

TEST(SparkApplicationKind, MemoryUnits) {
  EXPECT_EQ(spark::K8sMemory("512m"), "512Mi");
  EXPECT_EQ(spark::K8sMemory("2g"), "2Gi");
  EXPECT_EQ(spark::K8sMemory("1024KB"), "1024Ki");
  EXPECT_EQ(spark::K8sMemory("512Mi"), "512Mi");
  EXPECT_EQ(spark::JavaMemoryMiB("1g"), 1024);
  EXPECT_EQ(spark::JavaMemoryMiB("512m"), 512);
  EXPECT_EQ(spark::JavaMemoryMiB("300"), 300);
  EXPECT_EQ(spark::JavaMemoryMiB("lots"), std::nullopt);
}

TEST(SparkApplicationKind, WorkloadAsKueueBuildsIt) {
  SparkApplicationKind k;
  Json job = SparkSample();
  job["spec"]["executor"]["gpu"] = {{"name", "nvidia.com/gpu"}, {"quantity", 1}};
  job["spec"]["executor"]["labels"] = {{"tier", "batch"}};
  job["spec"]["driver"]["priorityClassName"] = "high";
  job["spec"]["driver"]["template"] = Json::parse(R"({
      "metadata": {"annotations": {"kueue.x-k8s.io/podset-preferred-topology": "rack"}},
      "spec": {"containers": [{"name": "spark-kubernetes-driver", "command": ["run"],
                               "resources": {"requests": {"cpu": "9"}}}]}})");
  const Json wl = WorkloadOf(k, job);
  EXPECT_EQ(PodSetCounts(wl), (std::vector<std::string>{"driver:1", "executor:2"}));
  const Json& driver = wl["spec"]["podSets"][0]["template"];
  // Only the operator's fields count: not the template's own requests.
  EXPECT_EQ(driver["spec"]["containers"], Json::parse(R"([{"name": "spark-kubernetes-driver",
                             "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}])"));
  EXPECT_EQ(driver["spec"]["priorityClassName"], "high");
  EXPECT_EQ(wl["spec"]["podSets"][0]["topologyRequest"], Json::parse(R"({"preferred": "rack"})"));
  const Json& executor = wl["spec"]["podSets"][1]["template"];
  EXPECT_EQ(executor["spec"]["containers"][0]["name"], "spark-kubernetes-executor");
  EXPECT_EQ(executor["spec"]["containers"][0]["resources"],
            Json::parse(R"({"requests": {"cpu": "500m", "memory": "512Mi"},
                            "limits": {"nvidia.com/gpu": "1"}})"));
  EXPECT_EQ(executor["metadata"]["labels"]["tier"], "batch");
  EXPECT_FALSE(wl["spec"]["podSets"][1].contains("topologyRequest"));
  EXPECT_EQ(wl["metadata"]["name"].get<std::string>().rfind("sparkapplication-spark-pi-", 0), 0u);
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["kind"], "SparkApplication");
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["name"], "high");
  EXPECT_EQ(k.PodSetTemplateField(job, 1), "spec.executor");
}

TEST(SparkApplicationKind, StartStopRoundTrip) {
  SparkApplicationKind k;
  Json job = SparkSample();
  job["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  k.DefaultOnCreate(job);
  EXPECT_TRUE(k.IsSuspended(job));
  const Json before = job;
  PodSetPlacement driver{"driver", 1, {{"pool", "big"}}, Json::array()};
  driver.labels = {{"check", "ok"}};
  PodSetPlacement executor{
      "executor", 2, {{"pool", "big"}}, Json::array({{{"key", "big"}, {"operator", "Exists"}}})};
  const Json started = k.Start(job, {driver, executor});
  EXPECT_FALSE(k.IsSuspended(started));
  const Json& spec = started["spec"];
  // spec.nodeSelector moves into both roles, with the flavor's labels.
  EXPECT_FALSE(spec.contains("nodeSelector"));
  EXPECT_EQ(spec["driver"]["nodeSelector"], Json::parse(R"({"disk": "ssd", "pool": "big"})"));
  EXPECT_EQ(spec["executor"]["nodeSelector"], Json::parse(R"({"disk": "ssd", "pool": "big"})"));
  EXPECT_EQ(spec["executor"]["tolerations"][0]["key"], "big");
  EXPECT_EQ(spec["driver"]["labels"]["check"], "ok");
  EXPECT_EQ(SparkErrorOf(k.Validate(started)), "OK");
  EXPECT_EQ((*k.BuildWorkload(started))["spec"], (*k.BuildWorkload(before))["spec"]);
  const Json stopped = k.Stop(started);
  EXPECT_TRUE(k.IsSuspended(stopped));
  EXPECT_EQ(stopped["spec"], before["spec"]);
  EXPECT_FALSE(stopped["metadata"]["annotations"].contains(kOriginalPlacementAnnotation));
}

// A pod as the local runtime reports it.
Json SparkWithPhase(Json pod, const std::string& phase) {
  pod["status"] = {{"phase", phase}};
  return pod;
}

TEST(SparkApplicationKind, RunsTheDriverThenItsExecutors) {
  SparkApplicationKind k;
  Json job = k.Start(SparkSample(), {{"driver", 1, {{"pool", "big"}}, Json::array()},
                                     {"executor", 2, {{"pool", "big"}}, Json::array()}});
  const std::string now = "2024-05-01T10:01:00Z";
  // The driver first, alone.
  Result<GroupActions> a = ReconcileGroup(k, job, {}, now);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->create_pods.size(), 1u);
  Json driver = a->create_pods[0];
  EXPECT_EQ(driver["metadata"]["name"], "spark-pi-driver");
  job["status"] = *a->status;
  EXPECT_EQ(job["status"]["applicationState"]["state"], "SUBMITTED");
  EXPECT_EQ(job["status"]["submissionAttempts"], 1);
  EXPECT_EQ(job["status"]["executionAttempts"], 1);
  EXPECT_EQ(job["status"]["driverInfo"]["podName"], "spark-pi-driver");
  EXPECT_EQ(job["status"]["lastSubmissionAttemptTime"], now);
  const std::string app_id = job["status"]["sparkApplicationId"];
  EXPECT_EQ(app_id.size(), 6u + 32u);
  EXPECT_EQ(app_id, SparkApplicationKind::ApplicationId(job, 1));
  EXPECT_EQ(SparkLabel(driver, "spark-app-selector"), app_id);
  EXPECT_EQ(SparkLabel(driver, "spark-role"), "driver");
  EXPECT_EQ(SparkLabel(driver, "spark-app-name"), "spark-pi");
  EXPECT_EQ(SparkLabel(driver, "spark-version"), "4.0.0");
  EXPECT_EQ(SparkLabel(driver, "sparkoperator.k8s.io/app-name"), "spark-pi");
  EXPECT_EQ(SparkLabel(driver, "sparkoperator.k8s.io/submission-id"),
            job["status"]["submissionID"]);
  EXPECT_EQ(SparkLabel(driver, "team"), "a");
  EXPECT_EQ(SparkLabel(driver, "kueue.x-k8s.io/queue-name"), "<unset>");
  EXPECT_EQ(EnvValue(driver, "SPARK_APPLICATION_ID"), app_id);
  EXPECT_EQ(EnvValue(driver, "SPARK_DRIVER_BIND_ADDRESS"), "127.0.0.1");
  EXPECT_EQ(driver["spec"]["nodeSelector"]["pool"], "big");
  EXPECT_EQ(driver["spec"]["serviceAccountName"], "spark");
  EXPECT_EQ(driver["spec"]["restartPolicy"], "Never");
  const Json& c = driver["spec"]["containers"][0];
  EXPECT_EQ(c["name"], "spark-kubernetes-driver");
  EXPECT_EQ(c["image"], "spark:4.0.0");
  EXPECT_EQ(c["resources"]["requests"], Json::parse(R"({"cpu": "1", "memory": "1Gi"})"));
  // Without a command of its own the driver runs spark-submit in local mode.
  EXPECT_EQ(c["command"], Json::array({"spark-submit"}));
  EXPECT_EQ(c["args"], Json::parse(R"(["--master", "local[2]", "--deploy-mode", "client",
      "--name", "spark-pi", "--class", "org.apache.spark.examples.SparkPi",
      "--driver-memory", "1g", "/opt/spark/examples/jars/spark-examples.jar", "50000"])"));
  EXPECT_EQ(k.Info().columns[1].value(job), "SUBMITTED");

  // Once it runs, the executors.
  driver = SparkWithPhase(driver, "Running");
  a = ReconcileGroup(k, job, {driver}, now);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 2u);
  const Json& e1 = a->create_pods[1];
  EXPECT_EQ(e1["metadata"]["name"], "spark-pi-exec-2");
  EXPECT_EQ(SparkLabel(e1, "spark-role"), "executor");
  EXPECT_EQ(SparkLabel(e1, "spark-exec-id"), "2");
  EXPECT_EQ(SparkLabel(e1, "spark-app-selector"), app_id);
  EXPECT_EQ(EnvValue(e1, "SPARK_EXECUTOR_ID"), "2");
  EXPECT_EQ(EnvValue(e1, "SPARK_DRIVER_URL"), "spark://CoarseGrainedScheduler@127.0.0.1:7078");
  EXPECT_EQ(EnvValue(e1, "SPARK_EXECUTOR_CORES"), "1");
  EXPECT_EQ(EnvValue(e1, "SPARK_EXECUTOR_MEMORY"), "512m");
  EXPECT_EQ(EnvValue(e1, "SPARK_EXECUTOR_POD_NAME"), "spark-pi-exec-2");
  EXPECT_EQ(EnvValue(e1, "SPARK_APPLICATION_ID"), app_id);
  EXPECT_EQ(e1["spec"]["containers"][0]["command"], Json::parse(R"(["sleep", "infinity"])"));
  job["status"] = *a->status;
  EXPECT_EQ(job["status"]["applicationState"]["state"], "RUNNING");
  EXPECT_EQ(job["status"]["executorState"],
            Json::parse(R"({"spark-pi-exec-1": "PENDING", "spark-pi-exec-2": "PENDING"})"));
  EXPECT_FALSE(k.PodsReady(job));
  const Json e0 = SparkWithPhase(a->create_pods[0], "Running");
  const Json e1r = SparkWithPhase(e1, "Running");
  a = ReconcileGroup(k, job, {driver, e0, e1r}, now);
  ASSERT_TRUE(a.ok());
  job["status"] = *a->status;
  EXPECT_TRUE(k.PodsReady(job));

  // The driver succeeds: COMPLETED, the executors stopped.
  a = ReconcileGroup(k, job, {SparkWithPhase(driver, "Succeeded"), e0, e1r},
                     "2024-05-01T10:09:00Z");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->delete_pods, (std::vector<std::string>{"spark-pi-exec-1", "spark-pi-exec-2"}));
  job["status"] = *a->status;
  EXPECT_EQ(job["status"]["applicationState"]["state"], "COMPLETED");
  EXPECT_EQ(job["status"]["terminationTime"], "2024-05-01T10:09:00Z");
  EXPECT_EQ(job["status"]["executorState"]["spark-pi-exec-1"], "COMPLETED");
  bool ok = false;
  EXPECT_TRUE(k.IsFinished(job, &ok));
  EXPECT_TRUE(ok);
}

TEST(SparkApplicationKind, ADriverThatCannotStartFailsTheApplication) {
  SparkApplicationKind k;
  Json job = k.Start(SparkSample(), {});
  Result<GroupActions> a = ReconcileGroup(k, job, {}, "2024-05-01T10:01:00Z");
  ASSERT_TRUE(a.ok());
  job["status"] = *a->status;
  Json driver = a->create_pods[0];
  driver["status"] = Json::parse(R"({"phase": "Failed", "containerStatuses": [{
      "name": "spark-kubernetes-driver", "state": {"terminated": {"exitCode": 128,
      "reason": "StartError", "message": "executable \"spark-submit\" not found in PATH"}}}]})");
  a = ReconcileGroup(k, job, {driver}, "2024-05-01T10:02:00Z");
  ASSERT_TRUE(a.ok());
  job["status"] = *a->status;
  EXPECT_EQ(job["status"]["applicationState"]["state"], "FAILED");
  EXPECT_EQ(job["status"]["applicationState"]["errorMessage"],
            "driver container spark-kubernetes-driver: exit code 128, StartError: executable "
            "\"spark-submit\" not found in PATH");
  bool ok = true;
  EXPECT_TRUE(k.IsFinished(job, &ok));
  EXPECT_FALSE(ok);
}

TEST(SparkApplicationKind, RestartPolicyReruns) {
  SparkApplicationKind k;
  Json job = SparkSample();
  job["spec"]["restartPolicy"] = {{"type", "OnFailure"}, {"onFailureRetries", 1}};
  job["status"] = {{"applicationState", {{"state", "RUNNING"}}}, {"executionAttempts", 1}};
  const PodSetDef driver = k.PodSets(job)[0];
  const PodSetDef executor = k.PodSets(job)[1];
  EXPECT_EQ(k.OnPodEvent(job, driver, PodEvent::kFailed), GroupAction::kRestartJob);
  EXPECT_EQ(k.OnPodEvent(job, driver, PodEvent::kSucceeded), GroupAction::kCompleteJob);
  EXPECT_EQ(k.OnPodEvent(job, executor, PodEvent::kFailed), GroupAction::kRestartPod);
  job["status"]["executionAttempts"] = 2;
  EXPECT_EQ(k.OnPodEvent(job, driver, PodEvent::kFailed), GroupAction::kFailJob);
  job["spec"]["restartPolicy"] = {{"type", "Never"}};
  EXPECT_EQ(k.OnPodEvent(job, driver, PodEvent::kEvicted), GroupAction::kFailJob);
  EXPECT_EQ(k.MaxRestarts(job), 4);  // Spark's max(2 x 2 executors, 3) executor failures
}

TEST(SparkApplicationKind, SuspendedAndResumedIsANewSubmission) {
  SparkApplicationKind k;
  Json job = SparkSample();
  k.DefaultOnCreate(job);
  GroupObservation seen = Seen({{}, {}}, "2024-05-01T10:00:01Z", true);
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["applicationState"]["state"], "SUSPENDED");
  EXPECT_EQ(k.Info().columns[0].value(job), true);
  job = k.Start(job, {});
  seen.suspended = false;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["submissionAttempts"], 1);
  const std::string first = job["status"]["sparkApplicationId"];
  // Preempted, then admitted again.
  job = k.Stop(job);
  seen.suspended = true;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["applicationState"]["state"], "SUSPENDED");
  EXPECT_EQ(SparkApplicationKind::Submission(job), 2);
  job = k.Start(job, {});
  seen.suspended = false;
  job["status"] = k.NextStatus(job, seen);
  EXPECT_EQ(job["status"]["applicationState"]["state"], "SUBMITTED");
  EXPECT_EQ(job["status"]["submissionAttempts"], 2);
  EXPECT_EQ(job["status"]["executionAttempts"], 2);
  EXPECT_NE(job["status"]["sparkApplicationId"], first);
  EXPECT_EQ(k.Info().columns[2].value(job), 2);
}

TEST(SparkApplicationKind, TheTemplatesCommandRuns) {
  Json job = SparkSample();
  job["spec"]["driver"]["template"] = Json::parse(R"({
      "metadata": {"labels": {"app": "pi"}},
      "spec": {"containers": [{"name": "main", "image": "probe", "command": ["python3", "p.py"],
                               "env": [{"name": "A", "value": "1"}]}]}})");
  job["spec"]["driver"]["envVars"] = {{"B", "2"}};
  job["spec"]["sparkConf"] = {{"spark.kubernetes.driverEnv.C", "3"}};
  const Json pod = spark::LocalPodTemplate(job, spark::kDriverRole);
  const Json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["command"], Json::parse(R"(["python3", "p.py"])"));
  EXPECT_FALSE(c.contains("args"));
  EXPECT_EQ(c["image"], "spark:4.0.0");  // Spark sets the application's image
  EXPECT_EQ(c["env"], Json::parse(R"([{"name": "A", "value": "1"}, {"name": "B", "value": "2"},
                                      {"name": "C", "value": "3"}])"));
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "pi");
}

}  // namespace
}  // namespace kuota::jobs
