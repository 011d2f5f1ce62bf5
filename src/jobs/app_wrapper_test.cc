#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jobs/app_wrapper.h"
#include "jobs/jobs_test_util.h"
#include "jobs/registry.h"

namespace kuota::jobs {
namespace {

// The AppWrapper project's samples/wrapped-pytorch-job.yaml, queued, with a
// batch Job beside it whose pod set is declared.
Json AwSample() {
  return Json::parse(R"({
    "apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
    "metadata": {"name": "sample-pytorch-job", "namespace": "team-a", "uid": "aw-1",
                 "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
    "spec": {"components": [
      {"template": {
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": "sample-pytorch-job"},
        "spec": {"pytorchReplicaSpecs": {
          "Master": {"replicas": 1, "restartPolicy": "OnFailure", "template": {"spec": {
            "containers": [{"name": "pytorch", "image": "docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-fc858d1",
                            "resources": {"requests": {"cpu": "1"}}}]}}},
          "Worker": {"replicas": 2, "restartPolicy": "OnFailure", "template": {
            "metadata": {"labels": {"role": "worker"}},
            "spec": {"priorityClassName": "high",
                     "containers": [{"name": "pytorch", "image": "x",
                                     "resources": {"requests": {"cpu": "1"}}}]}}}}}}},
      {"podSets": [{"replicas": 3, "path": "template.spec.template"}],
       "template": {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "side"},
        "spec": {"parallelism": 3, "completions": 3, "template": {"spec": {
          "restartPolicy": "Never",
          "containers": [{"name": "c", "image": "busybox"}]}}}}}
    ]}
  })");
}

std::string AwErrorOf(const Status& st) { return st.ok() ? "OK" : st.message(); }

TEST(AppWrapperKind, Info) {
  const JobKind* k = FindFramework("workload.codeflare.dev/appwrapper");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->Resource(), "appwrappers.workload.codeflare.dev");
  EXPECT_EQ(k->ApiVersion(), "workload.codeflare.dev/v1beta2");
  EXPECT_EQ(k->Info().short_names, std::vector<std::string>{"aw"});
  std::vector<std::string> shown;
  for (const PrinterColumn& c : k->Info().columns) shown.push_back(c.name);
  EXPECT_EQ(shown, (std::vector<std::string>{"Status", "Quota Reserved", "Resources Deployed",
                                             "Unhealthy", "Age"}));
  Json aw = AwSample();
  aw["status"] = Json::parse(
      R"({"phase": "Running", "conditions": [{"type": "QuotaReserved", "status": "True"}]})");
  EXPECT_EQ(k->Info().columns[0].value(aw), "Running");
  EXPECT_EQ(k->Info().columns[1].value(aw), "True");
  EXPECT_TRUE(k->Info().columns[2].value(aw).is_null());
}

TEST(AppWrapperKind, PathPointer) {
  EXPECT_EQ(AppWrapperPathPointer("template.spec.replicatedJobs[0].template")->to_string(),
            "/template/spec/replicatedJobs/0/template");
  EXPECT_EQ(AppWrapperPathPointer("template")->to_string(), "/template");
  EXPECT_EQ(AwErrorOf(AppWrapperPathPointer("spec.template").status()),
            "first element of the path must be 'template'");
  EXPECT_EQ(AwErrorOf(AppWrapperPathPointer("template.a[x]").status()),
            "at path position 'template.a' invalid index expression 'x'");
}

TEST(AppWrapperKind, ValidatesTheSample) {
  EXPECT_EQ(AwErrorOf(AppWrapperKind().Validate(AwSample())), "OK");
}

TEST(AppWrapperKind, ValidationErrors) {
  const std::vector<EditCase> cases = {
      {"no spec", [](Json& j) { j.erase("spec"); }, "spec: Required value"},
      {"no components", [](Json& j) { j["spec"].erase("components"); },
       "spec.components: Required value"},
      {"no pod sets",
       [](Json& j) {
         j["spec"]["components"] = Json::parse(
             R"([{"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}}])");
       },
       "spec.components: Invalid value: \"array\": components contains no podspecs"},
      {"template without kind",
       [](Json& j) { j["spec"]["components"][0]["template"].erase("kind"); },
       "spec.components[0].template.kind: Required value"},
      {"nested",
       [](Json& j) {
         j["spec"]["components"][1]["template"]["apiVersion"] = "workload.codeflare.dev/v1beta2";
         j["spec"]["components"][1]["template"]["kind"] = "AppWrapper";
       },
       "spec.components[1].template: Forbidden: Nested AppWrappers are forbidden"},
      {"other namespace",
       [](Json& j) { j["spec"]["components"][0]["template"]["metadata"]["namespace"] = "team-b"; },
       "spec.components[0].template.metadata.namespace: Forbidden: AppWrappers cannot create "
       "objects in other namespaces"},
      {"declared path missing",
       [](Json& j) { j["spec"]["components"][1]["podSets"][0]["path"] = "template.spec.tmpl"; },
       "spec.components[1].podSets[0].path: Invalid value: \"template.spec.tmpl\": path does not "
       "refer to a v1.PodSpecTemplate: at path position 'template.spec.tmpl' missing field"},
      {"declared path empty",
       [](Json& j) { j["spec"]["components"][1]["podSets"][0].erase("path"); },
       "spec.components[1].podSets[0].path: Required value: podspec must specify path"},
      {"declared replicas differ",
       [](Json& j) { j["spec"]["components"][1]["podSets"][0]["replicas"] = 2; },
       "spec.components[1].podSets: Invalid value: [{\"path\":\"template.spec.template\","
       "\"replicas\":2}]: replica count 2 differs from inferred count 3 for PodSet at path "
       "position 'template.spec.template'"},
      {"inferred replicas not an integer",
       [](Json& j) {
         j["spec"]["components"][0]["template"]["spec"]["pytorchReplicaSpecs"]["Worker"]
          ["replicas"] = "two";
       },
       "spec.components[0].template: Invalid value: \"PyTorchJob\": error inferring PodSets: at "
       "path position 'template.spec.pytorchReplicaSpecs.Worker.replicas' non-int value \"two\""},
      {"nine pod sets",
       [](Json& j) {
         Json c = j["spec"]["components"][1];
         for (int i = 0; i < 6; ++i) j["spec"]["components"].push_back(c);
       },
       "spec.components: Invalid value: \"array\": components contains 9 podspecs; at most 8 are "
       "allowed"},
      {"topology annotation on a queued AppWrapper",
       [](Json& j) {
         j["spec"]["components"][1]["template"]["spec"]["template"]["metadata"]["annotations"] = {
             {"kueue.x-k8s.io/podset-required-topology", "rack"},
             {"kueue.x-k8s.io/podset-preferred-topology", "host"}};
       },
       "spec.components[1].template.spec.template.metadata"},
  };
  testing::ExpectEditErrors(AppWrapperKind(), AwSample(), cases, testing::Match::kPrefix);
}

TEST(AppWrapperKind, UpdateKeepsComponentsImmutable) {
  AppWrapperKind k;
  const Json old = AwSample();
  Json changed = old;
  changed["spec"]["components"][1]["template"]["spec"]["parallelism"] = 1;
  EXPECT_EQ(AwErrorOf(k.ValidateUpdate(old, changed)),
            "spec.components[1].template.raw: Forbidden: attempt to change immutable field");
  changed = old;
  changed["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  EXPECT_EQ(AwErrorOf(k.ValidateUpdate(old, changed)),
            "spec.managedBy: Forbidden: attempt to change immutable field");
  // What Kueue writes on start is not the user's to keep still.
  changed = k.Start(old, {});
  EXPECT_EQ(AwErrorOf(k.ValidateUpdate(old, changed)), "OK");
}

TEST(AppWrapperKind, DefaultLabelsTheSubmitter) {
  AppWrapperKind k;
  Json aw = AwSample();
  aw["metadata"]["labels"]["workload.codeflare.dev/user"] = "someone-else";
  aw["metadata"]["annotations"] = {{"kuota.dev/submitted-by", "alice@lab"},
                                   {"kuota.dev/submitter-uid", "1001"}};
  k.Default(aw);
  EXPECT_EQ(aw["metadata"]["labels"]["workload.codeflare.dev/user"], "alice_lab");
  EXPECT_EQ(aw["metadata"]["labels"]["workload.codeflare.dev/userid"], "1001");
  Json changed = aw;
  changed["metadata"]["labels"]["workload.codeflare.dev/user"] = "bob";
  EXPECT_EQ(AwErrorOf(k.ValidateUpdate(aw, changed)),
            "metadata.labels[workload.codeflare.dev/user]: Forbidden: attempt to change "
            "immutable field");
  // Nothing recorded (a cluster's webhook request has the user instead): no labels.
  Json plain = AwSample();
  k.Default(plain);
  EXPECT_FALSE(plain["metadata"]["labels"].contains("workload.codeflare.dev/userid"));
}

TEST(AppWrapperKind, WorkloadHasOnePodSetPerAppWrapperPodSet) {
  AppWrapperKind k;
  const Json wl = testing::WorkloadOf(k, AwSample());
  const Json& sets = wl["spec"]["podSets"];
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0]["name"], "sample-pytorch-job-0");
  EXPECT_EQ(sets[0]["count"], 1);
  EXPECT_EQ(sets[1]["name"], "sample-pytorch-job-1");
  EXPECT_EQ(sets[1]["count"], 2);
  EXPECT_EQ(sets[1]["template"]["metadata"]["labels"]["role"], "worker");
  EXPECT_EQ(sets[2]["count"], 3);
  EXPECT_FALSE(sets[0].contains("minCount"));
  // The inferred pod sets name the kinds' index labels for topology.
  EXPECT_EQ(sets[0]["topologyRequest"]["podIndexLabel"], "training.kubeflow.org/replica-index");
  // A declared pod set without annotations has none.
  EXPECT_FALSE(sets[2].contains("topologyRequest"));
  EXPECT_EQ(wl["spec"]["queueName"], "user-queue");
  EXPECT_EQ(wl["metadata"]["ownerReferences"][0]["kind"], "AppWrapper");
  // No kueue priority label: the first template's priorityClassName.
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["name"], "high");
  EXPECT_EQ(wl["spec"]["priorityClassRef"]["kind"], "PriorityClass");
  EXPECT_EQ(k.PodSetTemplateField(AwSample(), 1),
            "spec.components[0].template.spec.pytorchReplicaSpecs.Worker.template");
}

TEST(AppWrapperKind, StartWritesPodSetInfosAndStopClearsThem) {
  AppWrapperKind k;
  Json aw = AwSample();
  k.DefaultOnCreate(aw);
  EXPECT_TRUE(k.IsSuspended(aw));
  PodSetPlacement worker;
  worker.name = "sample-pytorch-job-1";
  worker.node_selector = {{"pool", "big"}};
  worker.tolerations = Json::parse(R"([{"key": "big", "operator": "Exists"}])");
  PodSetPlacement side;
  side.name = "sample-pytorch-job-2";
  side.node_selector = {{"pool", "tiny"}};
  const Json started = k.Start(aw, {worker, side});
  EXPECT_FALSE(k.IsSuspended(started));
  const Json& comps = started["spec"]["components"];
  ASSERT_EQ(comps[0]["podSetInfos"].size(), 2u);
  EXPECT_EQ(comps[0]["podSetInfos"][0], Json::object());
  EXPECT_EQ(comps[0]["podSetInfos"][1]["nodeSelector"]["pool"], "big");
  EXPECT_EQ(comps[1]["podSetInfos"][0]["nodeSelector"]["pool"], "tiny");
  // The Workload is built from the templates, which Start left alone.
  EXPECT_EQ(testing::WorkloadOf(k, started)["spec"]["podSets"],
            testing::WorkloadOf(k, aw)["spec"]["podSets"]);

  // The controller creates each component with its placement injected.
  Json with_uid = started;
  Result<Json> pt = AppWrapperKind::ComponentObject(with_uid, 0);
  ASSERT_TRUE(pt.ok()) << pt.status().message();
  EXPECT_EQ((*pt)["metadata"]["namespace"], "team-a");
  EXPECT_EQ((*pt)["metadata"]["labels"][kAppWrapperLabel], "sample-pytorch-job");
  EXPECT_EQ((*pt)["metadata"]["ownerReferences"][0]["uid"], "aw-1");
  EXPECT_EQ((*pt)["metadata"]["ownerReferences"][0]["controller"], true);
  const Json& w = (*pt)["spec"]["pytorchReplicaSpecs"]["Worker"]["template"];
  EXPECT_EQ(w["spec"]["nodeSelector"]["pool"], "big");
  EXPECT_EQ(w["spec"]["tolerations"][0]["key"], "big");
  EXPECT_EQ(w["metadata"]["labels"][kAppWrapperLabel], "sample-pytorch-job");
  EXPECT_EQ(w["metadata"]["labels"]["role"], "worker");
  const Json& m = (*pt)["spec"]["pytorchReplicaSpecs"]["Master"]["template"];
  EXPECT_FALSE(m["spec"].contains("nodeSelector"));
  EXPECT_EQ(m["metadata"]["labels"][kAppWrapperLabel], "sample-pytorch-job");

  // A template whose nodeSelector says otherwise is refused, as the
  // AppWrapper controller refuses it.
  Json clash = started;
  clash["spec"]["components"][1]["template"]["spec"]["template"]["spec"]["nodeSelector"] = {
      {"pool", "other"}};
  EXPECT_EQ(AwErrorOf(AppWrapperKind::ComponentObject(clash, 1).status()),
            "conflict updating nodeSelector: key \"pool\" conflict: \"other\" vs \"tiny\"");

  const Json stopped = k.Stop(started);
  EXPECT_TRUE(k.IsSuspended(stopped));
  EXPECT_FALSE(stopped["spec"]["components"][0].contains("podSetInfos"));
}

TEST(AppWrapperKind, FinishedAndPodsReadyFromTheControllersStatus) {
  AppWrapperKind k;
  Json aw = AwSample();
  bool ok = false;
  EXPECT_FALSE(k.IsFinished(aw, &ok));
  aw["status"] = Json::parse(
      R"({"phase": "Running", "conditions": [{"type": "PodsReady", "status": "True"}]})");
  EXPECT_TRUE(k.PodsReady(aw));
  EXPECT_FALSE(k.IsFinished(aw, &ok));
  aw["status"]["phase"] = "Succeeded";
  EXPECT_TRUE(k.IsFinished(aw, &ok));
  EXPECT_TRUE(ok);
  // Failed, but its resources are still being deleted: not finished yet.
  aw["status"] = Json::parse(
      R"({"phase": "Failed", "conditions": [{"type": "ResourcesDeployed", "status": "True"}]})");
  EXPECT_FALSE(k.IsFinished(aw, &ok));
  aw["status"]["conditions"][0]["status"] = "False";
  EXPECT_TRUE(k.IsFinished(aw, &ok));
  EXPECT_FALSE(ok);
}

TEST(AppWrapperKind, InfersTheKnownKinds) {
  Json aw = AwSample();
  aw["spec"]["components"] = Json::parse(R"([
    {"template": {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "rc"},
      "spec": {"headGroupSpec": {"template": {"spec": {"containers": [{"name": "h", "image": "r"}]}}},
               "workerGroupSpecs": [{"replicas": 4, "template": {"spec": {"containers": [{"name": "w", "image": "r"}]}}}]}}},
    {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
    {"template": {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
      "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {"parallelism": 3,
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}}]}}}
  ])");
  Result<std::vector<AppWrapperPodSet>> sets = AppWrapperKind::PodSets(aw);
  ASSERT_TRUE(sets.ok()) << sets.status().message();
  ASSERT_EQ(sets->size(), 4u);
  EXPECT_EQ((*sets)[0].path, "template.spec.headGroupSpec.template");
  EXPECT_EQ((*sets)[1].path, "template.spec.workerGroupSpecs[0].template");
  EXPECT_EQ((*sets)[1].replicas, 4);
  EXPECT_EQ((*sets)[2].path, "template");
  EXPECT_EQ((*sets)[3].replicas, 6);
  const Json wl = testing::WorkloadOf(AppWrapperKind(), aw);
  EXPECT_EQ(wl["spec"]["podSets"][3]["topologyRequest"]["subGroupCount"], 2);
  EXPECT_EQ(wl["spec"]["podSets"][3]["topologyRequest"]["subGroupIndexLabel"],
            "jobset.sigs.k8s.io/job-index");
  // A pod component gets the AppWrapper's label on the pod itself.
  Result<Json> pod = AppWrapperKind::ComponentObject(aw, 1);
  ASSERT_TRUE(pod.ok()) << pod.status().message();
  EXPECT_EQ((*pod)["metadata"]["labels"][kAppWrapperLabel], "sample-pytorch-job");
}

}  // namespace
}  // namespace kuota::jobs
