// The admission webhooks' AdmissionReview handling: Kueue's paths, the
// JSONPatch a queued job or pod gets, refusals with Kueue's messages (403),
// updates read with the old object, dryRun, and malformed reviews (400).
#include "kube/admission_webhook.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "auth/base64.h"

namespace kuota::kube {
namespace {

using Json = nlohmann::json;

const AdmissionEndpoint& AwEndpoint(const std::string& path) {
  for (const AdmissionEndpoint& e : AdmissionEndpoints()) {
    if (e.path == path) return e;
  }
  ADD_FAILURE() << "no endpoint " << path;
  return AdmissionEndpoints().front();
}

Json AwRequest(const std::string& op, const std::string& group, const std::string& version,
               const std::string& plural, Json object, Json old_object = nullptr) {
  Json request = {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
                  {"resource", {{"group", group}, {"version", version}, {"resource", plural}}},
                  {"operation", op},
                  {"namespace", "team-a"},
                  {"object", std::move(object)},
                  {"dryRun", false}};
  if (!old_object.is_null()) request["oldObject"] = std::move(old_object);
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

Json AwJob(bool queued, bool suspend_set = false) {
  Json job = Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "sample", "namespace": "team-a"},
    "spec": {"parallelism": 1, "completions": 1,
      "template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox",
                        "resources": {"requests": {"cpu": "1"}}}]}}}})");
  if (queued) job["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "user-queue"}};
  if (suspend_set) job["spec"]["suspend"] = false;
  return job;
}

Json AwPod(bool queued) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "team-a"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  if (queued) pod["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "user-queue"}};
  return pod;
}

Json AwClusterQueue(const std::string& flavor_resource) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
          {"kind", "ClusterQueue"},
          {"metadata", {{"name", "cq"}}},
          {"spec",
           {{"namespaceSelector", Json::object()},
            {"resourceGroups",
             {{{"coveredResources", {"cpu"}},
               {"flavors",
                {{{"name", "default"},
                  {"resources", {{{"name", flavor_resource}, {"nominalQuota", "4"}}}}}}}}}}}}};
}

Json AwReview(const AdmissionWebhook& webhook, const std::string& path, const Json& review) {
  return webhook.Review(AwEndpoint(path), "application/json", review.dump());
}

// The object after the response's JSONPatch (the object itself when none).
Json AwPatched(const Json& object, const Json& response) {
  if (!response.contains("patch")) return object;
  EXPECT_EQ(response.value("patchType", ""), "JSONPatch");
  std::optional<std::string> text = auth::Base64Decode(response["patch"].get<std::string>());
  EXPECT_TRUE(text.has_value());
  if (!text) return object;
  return object.patch(Json::parse(*text));
}

control::JobManagement AwManagement(bool pods, bool without_queue_name) {
  api::Configuration config;
  config.integrations.frameworks = std::vector<std::string>{"batch/job"};
  if (pods) config.integrations.frameworks->push_back("pod");
  config.manage_jobs_without_queue_name = without_queue_name;
  return control::JobManagement::FromConfig(config).value();
}

TEST(AdmissionWebhookTest, ServesKueuePathsForEveryIntegrationAndKueueKind) {
  std::vector<std::string> paths;
  for (const AdmissionEndpoint& e : AdmissionEndpoints()) paths.push_back(e.path);
  for (const char* want :
       {"/mutate-batch-v1-job", "/validate-batch-v1-job", "/mutate--v1-pod", "/validate--v1-pod",
        "/mutate-kubeflow-org-v1-pytorchjob", "/validate-kubeflow-org-v1-tfjob",
        "/mutate-kubeflow-org-v2beta1-mpijob", "/mutate-ray-io-v1-rayjob",
        "/validate-ray-io-v1-raycluster", "/mutate-jobset-x-k8s-io-v1alpha2-jobset",
        "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
        "/mutate-kueue-x-k8s-io-v1beta2-resourceflavor", "/mutate-kueue-x-k8s-io-v1beta2-workload",
        "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", "/validate-kueue-x-k8s-io-v1beta2-cohort",
        "/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
        "/validate-kueue-x-k8s-io-v1beta2-workload"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), want), paths.end()) << want;
  }
  // The training-operator's JAX, Paddle and XGBoost kinds.
  for (const char* want :
       {"/mutate-kubeflow-org-v1-jaxjob", "/validate-kubeflow-org-v1-paddlejob",
        "/validate-kubeflow-org-v1-xgboostjob", "/mutate-trainer-kubeflow-org-v1alpha1-trainjob",
        "/validate-trainer-kubeflow-org-v1alpha1-trainjob",
        "/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset",
        "/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset"}) {
    EXPECT_NE(std::find(paths.begin(), paths.end(), want), paths.end()) << want;
  }
  std::vector<std::string> sorted = paths;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a path twice";
}

TEST(AdmissionWebhookTest, QueuedJobIsSuspendedByThePatch) {
  AdmissionWebhook webhook(AwManagement(false, false));
  for (bool suspend_set : {false, true}) {
    Json job = AwJob(true, suspend_set);
    Json review =
        AwReview(webhook, "/mutate-batch-v1-job", AwRequest("CREATE", "batch", "v1", "jobs", job));
    EXPECT_EQ(review["apiVersion"], "admission.k8s.io/v1");
    EXPECT_EQ(review["kind"], "AdmissionReview");
    const Json& response = review["response"];
    EXPECT_EQ(response["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    EXPECT_EQ(response["allowed"], true);
    ASSERT_TRUE(response.contains("patch")) << response.dump();
    Json patched = AwPatched(job, response);
    EXPECT_EQ(patched["spec"]["suspend"], true);
    // Kueue's change alone: the template is as it came.
    EXPECT_EQ(patched["spec"]["template"], job["spec"]["template"]);
  }
}

// Kueue's Job webhooks on an elastic Job (ElasticJobsViaWorkloadSlices): its
// pods are gated from the start, and its parallelism changes while it runs.
TEST(AdmissionWebhookTest, ElasticJobIsGatedAndScalesWhileRunning) {
  AdmissionWebhook webhook(AwManagement(false, false));
  Json job = AwJob(true);
  job["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] = "true";
  job["spec"].erase("completions");
  Json response = AwReview(webhook, "/mutate-batch-v1-job",
                           AwRequest("CREATE", "batch", "v1", "jobs", job))["response"];
  ASSERT_EQ(response["allowed"], true) << response.dump();
  Json patched = AwPatched(job, response);
  EXPECT_EQ(patched["spec"]["suspend"], true);
  EXPECT_EQ(patched["spec"]["template"]["spec"]["schedulingGates"],
            Json::parse(R"([{"name": "kueue.x-k8s.io/elastic-job"}])"));
  Json running = patched;
  running["spec"]["suspend"] = false;
  Json scaled = running;
  scaled["spec"]["parallelism"] = 4;
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", scaled, running))["response"];
  EXPECT_EQ(response["allowed"], true) << response.dump();
  Json plain = scaled;
  plain["metadata"]["annotations"].erase("kueue.x-k8s.io/elastic-job");
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", plain, scaled))["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["message"],
            "metadata.annotations[kueue.x-k8s.io/elastic-job]: Invalid value: false: field is "
            "immutable");
}

TEST(AdmissionWebhookTest, UnqueuedJobIsLeftAloneUnlessManagedWithoutQueueName) {
  Json job = AwJob(false);
  Json review = AwRequest("CREATE", "batch", "v1", "jobs", job);
  AdmissionWebhook plain(AwManagement(false, false));
  Json response = AwReview(plain, "/mutate-batch-v1-job", review)["response"];
  EXPECT_EQ(response["allowed"], true);
  EXPECT_FALSE(response.contains("patch"));

  AdmissionWebhook all(AwManagement(false, true));
  response = AwReview(all, "/mutate-batch-v1-job", review)["response"];
  EXPECT_EQ(AwPatched(job, response)["spec"]["suspend"], true);
}

TEST(AdmissionWebhookTest, QueuedPodIsGatedWhenThePodIntegrationIsOn) {
  Json pod = AwPod(true);
  Json review = AwRequest("CREATE", "", "v1", "pods", pod);
  AdmissionWebhook with_pods(AwManagement(true, false));
  Json response = AwReview(with_pods, "/mutate--v1-pod", review)["response"];
  Json patched = AwPatched(pod, response);
  ASSERT_TRUE(patched["spec"].contains("schedulingGates")) << response.dump();
  EXPECT_EQ(patched["spec"]["schedulingGates"],
            Json::array({{{"name", "kueue.x-k8s.io/admission"}}}));
  EXPECT_EQ(patched["metadata"]["labels"]["kueue.x-k8s.io/managed"], "true");

  AdmissionWebhook without_pods(AwManagement(false, false));
  response = AwReview(without_pods, "/mutate--v1-pod", review)["response"];
  EXPECT_EQ(response["allowed"], true);
  EXPECT_FALSE(response.contains("patch"));
  // A pod Kueue does not manage is never checked (the cluster validates it).
  Json odd = AwPod(false);
  odd["spec"]["containers"] = Json::array();
  response = AwReview(with_pods, "/validate--v1-pod",
                      AwRequest("CREATE", "", "v1", "pods", odd))["response"];
  EXPECT_EQ(response["allowed"], true);
}

TEST(AdmissionWebhookTest, RefusedClusterQueueIsDeniedWithKueuesMessage) {
  AdmissionWebhook webhook(AwManagement(false, false));
  Json review =
      AwRequest("CREATE", "kueue.x-k8s.io", "v1beta2", "clusterqueues", AwClusterQueue("memory"));
  Json response =
      AwReview(webhook, "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", review)["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["code"], 403);
  EXPECT_EQ(response["status"]["reason"], "Forbidden");
  EXPECT_EQ(response["status"]["message"],
            "spec.resourceGroups[0].flavors[0].resources[0].name: Invalid value: \"memory\": must "
            "match the name in coveredResources");

  review = AwRequest("CREATE", "kueue.x-k8s.io", "v1beta2", "clusterqueues", AwClusterQueue("cpu"));
  response = AwReview(webhook, "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", review)["response"];
  EXPECT_EQ(response["allowed"], true) << response.dump();
}

TEST(AdmissionWebhookTest, ClusterQueueDefaultsArePatchedInV1beta2) {
  AdmissionWebhook webhook(AwManagement(false, false));
  Json cq = AwClusterQueue("cpu");
  Json response =
      AwReview(webhook, "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
               AwRequest("CREATE", "kueue.x-k8s.io", "v1beta2", "clusterqueues", cq))["response"];
  EXPECT_EQ(response["allowed"], true);
  Json patched = AwPatched(cq, response);
  EXPECT_EQ(patched["apiVersion"], "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(patched["spec"]["queueingStrategy"], "BestEffortFIFO");
  EXPECT_EQ(patched["spec"]["preemption"]["withinClusterQueue"], "Never");
  EXPECT_EQ(patched["spec"]["resourceGroups"], cq["spec"]["resourceGroups"]);
}

TEST(AdmissionWebhookTest, InvalidQueuedJobIsDeniedOnCreateAndUpdate) {
  AdmissionWebhook webhook(AwManagement(false, false));
  Json bad = AwJob(true);
  bad["spec"]["template"]["spec"]["restartPolicy"] = "Always";
  Json response = AwReview(webhook, "/validate-batch-v1-job",
                           AwRequest("CREATE", "batch", "v1", "jobs", bad))["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["code"], 403);
  EXPECT_NE(
      response["status"]["message"].get<std::string>().find("spec.template.spec.restartPolicy"),
      std::string::npos)
      << response.dump();
  // The mutating webhook leaves the refusal to the validating one.
  response = AwReview(webhook, "/mutate-batch-v1-job",
                      AwRequest("CREATE", "batch", "v1", "jobs", bad))["response"];
  EXPECT_EQ(response["allowed"], true);

  Json old_job = AwJob(true);
  old_job["spec"]["suspend"] = true;
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", bad, old_job))["response"];
  EXPECT_EQ(response["allowed"], false);
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", old_job, old_job))["response"];
  EXPECT_EQ(response["allowed"], true) << response.dump();
  // Kueue's update rules read the old object: a running job keeps its queue.
  Json running = AwJob(true, /*suspend_set=*/true);
  Json moved = running;
  moved["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "other-queue";
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", moved, running))["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["message"],
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"other-queue\": field is "
            "immutable");
  moved["spec"]["suspend"] = true;
  response = AwReview(webhook, "/validate-batch-v1-job",
                      AwRequest("UPDATE", "batch", "v1", "jobs", moved, running))["response"];
  EXPECT_EQ(response["allowed"], true) << "a suspended job may move: " << response.dump();
  // An UPDATE without the old object is a bad review.
  Json no_old = AwRequest("UPDATE", "batch", "v1", "jobs", old_job);
  response = AwReview(webhook, "/validate-batch-v1-job", no_old)["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["status"]["code"], 400);
}

TEST(AdmissionWebhookTest, DryRunIsAnsweredAlike) {
  AdmissionWebhook webhook(AwManagement(false, false));
  Json job = AwJob(true);
  Json review = AwRequest("CREATE", "batch", "v1", "jobs", job);
  Json dry = review;
  dry["request"]["dryRun"] = true;
  EXPECT_EQ(AwReview(webhook, "/mutate-batch-v1-job", dry),
            AwReview(webhook, "/mutate-batch-v1-job", review));
}

TEST(AdmissionWebhookTest, MalformedReviewsAreAnswered400) {
  AdmissionWebhook webhook(AwManagement(false, false));
  const AdmissionEndpoint& e = AwEndpoint("/validate-batch-v1-job");
  struct Case {
    const char* name;
    std::string content_type;
    std::string body;
    std::string want;  // part of the message
  };
  Json wrong_resource = AwRequest("CREATE", "kubeflow.org", "v1", "pytorchjobs", AwJob(true));
  Json no_object = AwRequest("CREATE", "batch", "v1", "jobs", AwJob(true));
  no_object["request"].erase("object");
  Json no_uid = AwRequest("CREATE", "batch", "v1", "jobs", AwJob(true));
  no_uid["request"].erase("uid");
  Json bad_op = AwRequest("PATCH", "batch", "v1", "jobs", AwJob(true));
  const Case cases[] = {
      {"empty", "application/json", "", "request body is empty"},
      {"not json", "application/json", "{not json", "not a JSON AdmissionReview"},
      {"yaml", "application/yaml", "{}", "expected application/json"},
      {"no request", "application/json", R"({"kind":"AdmissionReview"})", "request: Required"},
      {"other review version", "application/json",
       R"({"apiVersion":"admission.k8s.io/v2","request":{}})", "apiVersion: Unsupported value"},
      {"no uid", "application/json", no_uid.dump(), "request.uid: Required"},
      {"other resource", "application/json", wrong_resource.dump(), "request.resource"},
      {"no object", "application/json", no_object.dump(), "request.object: Required"},
      {"bad operation", "application/json", bad_op.dump(), "request.operation"},
  };
  for (const Case& c : cases) {
    Json review = webhook.Review(e, c.content_type, c.body);
    EXPECT_EQ(review["kind"], "AdmissionReview") << c.name;
    const Json& response = review["response"];
    EXPECT_EQ(response["allowed"], false) << c.name;
    EXPECT_EQ(response["status"]["code"], 400) << c.name;
    EXPECT_NE(response["status"]["message"].get<std::string>().find(c.want), std::string::npos)
        << c.name << ": " << response.dump();
  }
}

// Kueue's appwrapper webhook on a cluster: a queued AppWrapper is suspended
// on create; the components the AppWrapper controller creates (a Job it
// controls) are left alone, as Kueue leaves a child of a managed parent, even
// with a queue name of their own.
TEST(AdmissionWebhookTest, QueuedAppWrapperIsSuspendedAndItsComponentsAreNot) {
  api::Configuration config;
  config.integrations.frameworks =
      std::vector<std::string>{"batch/job", "workload.codeflare.dev/appwrapper"};
  AdmissionWebhook webhook(control::JobManagement::FromConfig(config).value());
  Json aw = Json::parse(R"({
    "apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
    "metadata": {"name": "aw", "namespace": "team-a",
                 "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
    "spec": {"components": [{"template": {
      "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "side"},
      "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox"}]}}}}}]}})");
  const std::string path = "/mutate-workload-codeflare-dev-v1beta2-appwrapper";
  Json review = AwReview(
      webhook, path, AwRequest("CREATE", "workload.codeflare.dev", "v1beta2", "appwrappers", aw));
  ASSERT_EQ(review["response"]["allowed"], true) << review.dump();
  EXPECT_EQ(AwPatched(aw, review["response"])["spec"]["suspend"], true);

  Json bad = aw;
  bad["spec"]["components"][0]["template"]["metadata"]["namespace"] = "team-b";
  review = AwReview(webhook, "/validate-workload-codeflare-dev-v1beta2-appwrapper",
                    AwRequest("CREATE", "workload.codeflare.dev", "v1beta2", "appwrappers", bad));
  EXPECT_EQ(review["response"]["allowed"], false);
  EXPECT_NE(review["response"]["status"]["message"].get<std::string>().find(
                "spec.components[0].template.metadata.namespace: Forbidden"),
            std::string::npos)
      << review.dump();

  Json child = AwJob(true);
  child["metadata"]["ownerReferences"] = Json::parse(R"([{
    "apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper", "name": "aw",
    "uid": "aw-uid", "controller": true, "blockOwnerDeletion": true}])");
  review =
      AwReview(webhook, "/mutate-batch-v1-job", AwRequest("CREATE", "batch", "v1", "jobs", child));
  ASSERT_EQ(review["response"]["allowed"], true) << review.dump();
  EXPECT_FALSE(AwPatched(child, review["response"])["spec"].contains("suspend"));
  // The same Job without the owner is queued.
  review = AwReview(webhook, "/mutate-batch-v1-job",
                    AwRequest("CREATE", "batch", "v1", "jobs", AwJob(true)));
  EXPECT_EQ(AwPatched(AwJob(true), review["response"])["spec"]["suspend"], true);
}

// Kueue's sparkapplication webhooks on a cluster (Kueue's paths): a queued
// SparkApplication is suspended on create, and refused in client mode.
TEST(AdmissionWebhookTest, QueuedSparkApplicationIsSuspendedAndClientModeRefused) {
  api::Configuration config;
  config.integrations.frameworks =
      std::vector<std::string>{"batch/job", "sparkoperator.k8s.io/sparkapplication"};
  AdmissionWebhook webhook(control::JobManagement::FromConfig(config).value());
  Json app = Json::parse(R"({
    "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
    "metadata": {"name": "spark-pi", "namespace": "team-a",
                 "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
    "spec": {"type": "Scala", "mode": "cluster", "sparkVersion": "4.0.0",
             "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
             "driver": {"coreRequest": "1", "memory": "1g"},
             "executor": {"instances": 2, "coreRequest": "1", "memory": "1g"}}})");
  Json review =
      AwReview(webhook, "/mutate-sparkoperator-k8s-io-v1beta2-sparkapplication",
               AwRequest("CREATE", "sparkoperator.k8s.io", "v1beta2", "sparkapplications", app));
  ASSERT_EQ(review["response"]["allowed"], true) << review.dump();
  EXPECT_EQ(AwPatched(app, review["response"])["spec"]["suspend"], true);

  Json client = app;
  client["spec"]["mode"] = "client";
  review =
      AwReview(webhook, "/validate-sparkoperator-k8s-io-v1beta2-sparkapplication",
               AwRequest("CREATE", "sparkoperator.k8s.io", "v1beta2", "sparkapplications", client));
  EXPECT_EQ(review["response"]["allowed"], false);
  EXPECT_NE(review["response"]["status"]["message"].get<std::string>().find(
                "spec.mode: Invalid value: \"client\": only Cluster mode is supported for a "
                "kueue managed job"),
            std::string::npos)
      << review.dump();
}

}  // namespace
}  // namespace kuota::kube
