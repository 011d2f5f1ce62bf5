// Discovery, OpenAPI, CRUD, selectors, pagination, the status subresource and
// every error class, over real HTTP against a real store.
#include <set>
#include <string>
#include <vector>

#include "server/test_server.h"

namespace kuota::server {
namespace {

using ApiServerTest = ServerTest;

TEST_F(ApiServerTest, HealthAndVersion) {
  for (const char* path : {"/healthz", "/readyz", "/livez"}) {
    Reply r = Get(path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.raw, "ok");
  }
  Reply v = Get("/version");
  ASSERT_EQ(v.status, 200);
  EXPECT_EQ(v.body["gitVersion"], "v1.32.0-kuota");
  EXPECT_EQ(v.body["major"], "1");
}

TEST_F(ApiServerTest, LegacyDiscovery) {
  Reply api = Get("/api");
  ASSERT_EQ(api.status, 200);
  EXPECT_EQ(api.body["kind"], "APIVersions");
  EXPECT_EQ(api.body["versions"], Json::array({"v1"}));
  EXPECT_EQ(api.content_type, "application/json");

  Reply apis = Get("/apis");
  ASSERT_EQ(apis.status, 200);
  EXPECT_EQ(apis.body["kind"], "APIGroupList");
  std::set<std::string> groups;
  for (const Json& g : apis.body["groups"]) groups.insert(g["name"].get<std::string>());
  EXPECT_EQ(groups, (std::set<std::string>{"admissionregistration.k8s.io",
                                           "apiextensions.k8s.io",
                                           "apiregistration.k8s.io",
                                           "apps",
                                           "autoscaling.x-k8s.io",
                                           "batch",
                                           "batch.volcano.sh",
                                           "coordination.k8s.io",
                                           "jobset.x-k8s.io",
                                           "kubeflow.org",
                                           "kueue.x-k8s.io",
                                           "leaderworkerset.x-k8s.io",
                                           "ray.io",
                                           "rbac.authorization.k8s.io",
                                           "scheduling.k8s.io",
                                           "scheduling.volcano.sh",
                                           "sparkoperator.k8s.io",
                                           "trainer.kubeflow.org",
                                           "visibility.kueue.x-k8s.io",
                                           "workload.codeflare.dev"}));

  Reply group = Get("/apis/kueue.x-k8s.io");
  ASSERT_EQ(group.status, 200);
  EXPECT_EQ(group.body["preferredVersion"]["groupVersion"], "kueue.x-k8s.io/v1beta2");

  Reply kueue = Get(kKueue);
  ASSERT_EQ(kueue.status, 200);
  EXPECT_EQ(kueue.body["kind"], "APIResourceList");
  EXPECT_EQ(kueue.body["groupVersion"], "kueue.x-k8s.io/v1beta1");
  bool found_cq = false, found_cq_status = false, found_lq = false;
  for (const Json& r : kueue.body["resources"]) {
    if (r["name"] == "clusterqueues") {
      found_cq = true;
      EXPECT_EQ(r["kind"], "ClusterQueue");
      EXPECT_EQ(r["namespaced"], false);
      EXPECT_EQ(r["singularName"], "clusterqueue");
      EXPECT_EQ(r["shortNames"], Json::array({"cq"}));
      EXPECT_EQ(r["categories"], Json::array({"kueue"}));
      EXPECT_EQ(r["verbs"].size(), 8u);
    }
    if (r["name"] == "clusterqueues/status") {
      found_cq_status = true;
      EXPECT_EQ(r["verbs"], Json::array({"get", "patch", "update"}));
    }
    if (r["name"] == "localqueues") {
      found_lq = true;
      EXPECT_EQ(r["namespaced"], true);
      EXPECT_EQ(r["shortNames"], Json::array({"lq", "queue", "queues"}));
    }
    EXPECT_NE(r["name"], "workloadpriorityclasses/status");
  }
  EXPECT_TRUE(found_cq && found_cq_status && found_lq);

  Reply core = Get("/api/v1");
  ASSERT_EQ(core.status, 200);
  std::set<std::string> names;
  for (const Json& r : core.body["resources"]) names.insert(r["name"].get<std::string>());
  for (const char* n : {"namespaces", "namespaces/status", "pods", "pods/status", "events", "nodes",
                        "nodes/status"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  EXPECT_EQ(names.count("events/status"), 0u);
  EXPECT_EQ(Get("/apis/batch/v1").body["resources"][0]["categories"], Json::array({"all"}));
}

TEST_F(ApiServerTest, AggregatedDiscovery) {
  const std::string accept =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
      "application/json";
  Reply apis = Get("/apis", accept);
  ASSERT_EQ(apis.status, 200);
  EXPECT_EQ(apis.content_type,
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(apis.body["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(apis.body["apiVersion"], "apidiscovery.k8s.io/v2");
  bool found = false;
  for (const Json& item : apis.body["items"]) {
    if (item["metadata"]["name"] != "kueue.x-k8s.io") continue;
    for (const Json& res : item["versions"][0]["resources"]) {
      if (res["resource"] != "workloads") continue;
      found = true;
      EXPECT_EQ(res["scope"], "Namespaced");
      EXPECT_EQ(res["responseKind"]["kind"], "Workload");
      EXPECT_EQ(res["shortNames"], Json::array({"wl"}));
      EXPECT_EQ(res["subresources"][0]["subresource"], "status");
    }
  }
  EXPECT_TRUE(found);
  Reply api = Get("/api", accept);
  ASSERT_EQ(api.status, 200);
  ASSERT_EQ(api.body["items"].size(), 1u);
  EXPECT_FALSE(api.body["items"][0]["metadata"].contains("name"));
  EXPECT_EQ(api.body["items"][0]["versions"][0]["version"], "v1");
  // Without the aggregated media type, the legacy documents.
  EXPECT_EQ(Get("/apis", "application/json").body["kind"], "APIGroupList");
}

TEST_F(ApiServerTest, OpenApiV3) {
  Reply index = Get("/openapi/v3");
  ASSERT_EQ(index.status, 200);
  for (const char* key :
       {"api/v1", "apis/batch/v1", "apis/kueue.x-k8s.io/v1beta1", "apis/scheduling.k8s.io/v1"}) {
    ASSERT_TRUE(index.body["paths"].contains(key)) << key;
  }
  std::string url = index.body["paths"]["apis/kueue.x-k8s.io/v1beta1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/apis/kueue.x-k8s.io/v1beta1?hash=", 0), 0u) << url;
  Reply doc = Get(url);
  ASSERT_EQ(doc.status, 200);
  const Json& patch =
      doc.body["paths"]["/apis/kueue.x-k8s.io/v1beta1/clusterqueues/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"]["kind"], "ClusterQueue");
  bool field_validation = false;
  for (const Json& p : patch["parameters"]) field_validation |= p["name"] == "fieldValidation";
  EXPECT_TRUE(field_validation);
  const Json& schema = doc.body["components"]["schemas"]["io.x-k8s.kueue.v1beta1.ClusterQueue"];
  EXPECT_EQ(schema["x-kubernetes-group-version-kind"][0]["kind"], "ClusterQueue");
  EXPECT_TRUE(Get("/openapi/v3/api/v1")
                  .body["paths"]
                  .contains("/api/v1/namespaces/{namespace}/pods/{name}/status"));
  EXPECT_EQ(Get("/openapi/v2").status, 200);
  EXPECT_EQ(Get("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").status,
            404);
}

// The training-operator's JAXJob, PaddleJob and XGBoostJob: listed by
// discovery with a status subresource, in OpenAPI, and printed with their
// CRDs' columns (State, Age).
TEST_F(ApiServerTest, TrainingOperatorKindsAreServed) {
  Reply kf = Get("/apis/kubeflow.org/v1");
  ASSERT_EQ(kf.status, 200);
  std::set<std::string> names;
  for (const Json& r : kf.body["resources"]) {
    names.insert(r["name"].get<std::string>());
    if (r["name"] == "xgboostjobs") {
      EXPECT_EQ(r["kind"], "XGBoostJob");
      EXPECT_EQ(r["singularName"], "xgboostjob");
      EXPECT_EQ(r["namespaced"], true);
    }
  }
  for (const char* n : {"jaxjobs", "jaxjobs/status", "paddlejobs", "paddlejobs/status",
                        "xgboostjobs", "xgboostjobs/status"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  Reply index = Get("/openapi/v3");
  ASSERT_TRUE(index.body["paths"].contains("apis/kubeflow.org/v1"));
  Reply doc = Get(index.body["paths"]["apis/kubeflow.org/v1"]["serverRelativeURL"]);
  for (const char* p : {"/apis/kubeflow.org/v1/namespaces/{namespace}/jaxjobs/{name}",
                        "/apis/kubeflow.org/v1/namespaces/{namespace}/paddlejobs/{name}/status",
                        "/apis/kubeflow.org/v1/namespaces/{namespace}/xgboostjobs"}) {
    EXPECT_TRUE(doc.body["paths"].contains(p)) << p;
  }

  const Json job = Json::parse(R"({
    "apiVersion": "kubeflow.org/v1", "kind": "JAXJob",
    "metadata": {"name": "jax", "namespace": "default"},
    "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {
      "containers": [{"name": "jax", "image": "img:1"}]}}}}}})");
  const std::string jobs = "/apis/kubeflow.org/v1/namespaces/default/jaxjobs";
  ASSERT_EQ(Post(jobs, job).status, 201);
  Reply st = MergePatch(jobs + "/jax/status",
                        R"({"status":{"conditions":[{"type":"Created","status":"True"},)"
                        R"({"type":"Running","status":"True"}]}})");
  ASSERT_EQ(st.status, 200) << st.raw;
  Reply table = Get(jobs, "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200) << table.raw;
  std::vector<std::string> columns;
  for (const Json& c : table.body["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "State", "Age"}));
  ASSERT_EQ(table.body["rows"].size(), 1u);
  EXPECT_EQ(table.body["rows"][0]["cells"][0], "jax");
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "Running");
}

// The Spark operator's SparkApplication: listed by discovery (short name
// sparkapp, status subresource), in OpenAPI, and printed with its CRD's
// columns (kuotad's admission, which refuses invalid ones, is not here:
// job_kinds_test.sh checks its 422s).
TEST_F(ApiServerTest, SparkApplicationsAreServed) {
  Reply group = Get("/apis/sparkoperator.k8s.io/v1beta2");
  ASSERT_EQ(group.status, 200) << group.raw;
  std::set<std::string> names;
  for (const Json& r : group.body["resources"]) {
    names.insert(r["name"].get<std::string>());
    if (r["name"] == "sparkapplications") {
      EXPECT_EQ(r["kind"], "SparkApplication");
      EXPECT_EQ(r["shortNames"], Json::array({"sparkapp"}));
      EXPECT_EQ(r["namespaced"], true);
    }
  }
  EXPECT_EQ(names.count("sparkapplications"), 1u);
  EXPECT_EQ(names.count("sparkapplications/status"), 1u);
  Reply index = Get("/openapi/v3");
  ASSERT_TRUE(index.body["paths"].contains("apis/sparkoperator.k8s.io/v1beta2"));
  Reply doc = Get(index.body["paths"]["apis/sparkoperator.k8s.io/v1beta2"]["serverRelativeURL"]);
  EXPECT_TRUE(doc.body["paths"].contains(
      "/apis/sparkoperator.k8s.io/v1beta2/namespaces/{namespace}/sparkapplications/{name}"));

  Json app = Json::parse(R"({
    "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
    "metadata": {"name": "spark-pi", "namespace": "default"},
    "spec": {"type": "Scala", "mode": "cluster", "sparkVersion": "3.5.0",
             "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
             "driver": {"coreRequest": "100m", "memory": "512m"},
             "executor": {"instances": 1, "coreRequest": "100m", "memory": "512m"}}})");
  const std::string apps =
      "/apis/sparkoperator.k8s.io/v1beta2/namespaces/default/sparkapplications";
  Reply created = Post(apps, app);
  ASSERT_EQ(created.status, 201) << created.raw;
  Reply st =
      MergePatch(apps + "/spark-pi/status", R"({"status":{"applicationState":{"state":"RUNNING"},)"
                                            R"("executionAttempts":1}})");
  ASSERT_EQ(st.status, 200) << st.raw;
  Reply table = Get(apps, "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200) << table.raw;
  std::vector<std::string> columns;
  for (const Json& c : table.body["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Suspend", "Status", "Attempts", "Start",
                                               "Finish", "Age"}));
  ASSERT_EQ(table.body["rows"].size(), 1u);
  EXPECT_EQ(table.body["rows"][0]["cells"][0], "spark-pi");
  EXPECT_EQ(table.body["rows"][0]["cells"][2], "RUNNING");
}

// CodeFlare's AppWrapper: listed by discovery (short name aw, status
// subresource), in OpenAPI, and printed with its CRD's columns (Status,
// Quota Reserved, Resources Deployed, Unhealthy, Age).
TEST_F(ApiServerTest, AppWrappersAreServed) {
  Reply group = Get("/apis/workload.codeflare.dev/v1beta2");
  ASSERT_EQ(group.status, 200) << group.raw;
  std::set<std::string> names;
  for (const Json& r : group.body["resources"]) {
    names.insert(r["name"].get<std::string>());
    if (r["name"] == "appwrappers") {
      EXPECT_EQ(r["kind"], "AppWrapper");
      EXPECT_EQ(r["shortNames"], Json::array({"aw"}));
      EXPECT_EQ(r["namespaced"], true);
    }
  }
  EXPECT_EQ(names.count("appwrappers"), 1u);
  EXPECT_EQ(names.count("appwrappers/status"), 1u);
  Reply index = Get("/openapi/v3");
  ASSERT_TRUE(index.body["paths"].contains("apis/workload.codeflare.dev/v1beta2"));
  Reply doc = Get(index.body["paths"]["apis/workload.codeflare.dev/v1beta2"]["serverRelativeURL"]);
  EXPECT_TRUE(doc.body["paths"].contains(
      "/apis/workload.codeflare.dev/v1beta2/namespaces/{namespace}/appwrappers/{name}/status"));

  const Json aw = Json::parse(R"({
    "apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
    "metadata": {"name": "wrapped", "namespace": "default"},
    "spec": {"components": [{"template": {
      "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}]}})");
  const std::string aws = "/apis/workload.codeflare.dev/v1beta2/namespaces/default/appwrappers";
  Reply created = Post(aws, aw);
  ASSERT_EQ(created.status, 201) << created.raw;
  Reply st = MergePatch(aws + "/wrapped/status", R"({"status":{"phase":"Running","conditions":[)"
                                                 R"({"type":"QuotaReserved","status":"True"},)"
                                                 R"({"type":"Unhealthy","status":"False"}]}})");
  ASSERT_EQ(st.status, 200) << st.raw;
  Reply table = Get(aws, "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200) << table.raw;
  std::vector<std::string> columns;
  for (const Json& c : table.body["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Status", "Quota Reserved",
                                               "Resources Deployed", "Unhealthy", "Age"}));
  ASSERT_EQ(table.body["rows"].size(), 1u);
  EXPECT_EQ(table.body["rows"][0]["cells"][1], "Running");
  EXPECT_EQ(table.body["rows"][0]["cells"][2], "True");
  EXPECT_EQ(table.body["rows"][0]["cells"][4], "False");
}

TEST_F(ApiServerTest, DefaultNamespacesExist) {
  Reply list = Get("/api/v1/namespaces");
  ASSERT_EQ(list.status, 200);
  std::set<std::string> names;
  for (const Json& ns : list.body["items"]) names.insert(ns["metadata"]["name"].get<std::string>());
  EXPECT_TRUE(names.count("default") && names.count("kube-system"));
  EXPECT_EQ(Get("/api/v1/namespaces/default").body["status"]["phase"], "Active");
}

TEST_F(ApiServerTest, ClusterScopedCrud) {
  Reply created = Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("cq1", "all"));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["metadata"]["name"], "cq1");
  EXPECT_FALSE(created.body["metadata"]["uid"].get<std::string>().empty());
  std::string rv = created.body["metadata"]["resourceVersion"];

  Reply got = Get(std::string(kKueue) + "/clusterqueues/cq1");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body["spec"]["cohort"], "all");

  Json updated = got.body;
  updated["spec"]["cohort"] = "other";
  Reply put = Put(std::string(kKueue) + "/clusterqueues/cq1", updated);
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body["spec"]["cohort"], "other");
  EXPECT_NE(put.body["metadata"]["resourceVersion"], rv);

  // A stale resourceVersion conflicts.
  Reply stale = Put(std::string(kKueue) + "/clusterqueues/cq1", updated);
  ExpectStatus(stale, 409, "Conflict");
  EXPECT_NE(stale.body["message"].get<std::string>().find(
                "Operation cannot be fulfilled on clusterqueues.kueue.x-k8s.io \"cq1\""),
            std::string::npos);

  Reply list = Get(std::string(kKueue) + "/clusterqueues");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["kind"], "ClusterQueueList");
  EXPECT_EQ(list.body["items"].size(), 1u);
  EXPECT_FALSE(list.body["metadata"]["resourceVersion"].get<std::string>().empty());

  Reply del =
      Delete(std::string(kKueue) + "/clusterqueues/cq1",
             R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})");
  EXPECT_EQ(del.status, 200) << del.raw;
  ExpectStatus(Get(std::string(kKueue) + "/clusterqueues/cq1"), 404, "NotFound");
}

TEST_F(ApiServerTest, NamespacedCrudAndAllNamespacesList) {
  ASSERT_EQ(Post("/api/v1/namespaces", Namespace("team-a")).status, 201);
  ASSERT_EQ(
      Post(std::string(kKueue) + "/namespaces/team-a/localqueues", LocalQueue("", "lq", "cq1"))
          .status,
      201);
  Reply lq = Post(std::string(kKueue) + "/namespaces/default/localqueues",
                  LocalQueue("default", "lq", "cq1"));
  ASSERT_EQ(lq.status, 201) << lq.raw;
  EXPECT_EQ(lq.body["metadata"]["namespace"], "default");
  EXPECT_EQ(
      Get(std::string(kKueue) + "/namespaces/team-a/localqueues/lq").body["metadata"]["namespace"],
      "team-a");
  EXPECT_EQ(Get(std::string(kKueue) + "/namespaces/team-a/localqueues").body["items"].size(), 1u);
  EXPECT_EQ(Get(std::string(kKueue) + "/localqueues").body["items"].size(), 2u);
  // A namespaced object has no cluster-scoped URL.
  ExpectStatus(Get(std::string(kKueue) + "/localqueues/lq"), 404, "NotFound");
}

TEST_F(ApiServerTest, GenerateNameAndDryRun) {
  Json job = Job("default", "");
  job["metadata"].erase("name");
  job["metadata"]["generateName"] = "train-";
  Reply created = Post("/apis/batch/v1/namespaces/default/jobs", job);
  ASSERT_EQ(created.status, 201) << created.raw;
  std::string name = created.body["metadata"]["name"];
  EXPECT_EQ(name.rfind("train-", 0), 0u);
  EXPECT_EQ(name.size(), 11u);

  Reply dry = Post(std::string(kKueue) + "/clusterqueues", ClusterQueue("dry"), "?dryRun=All");
  EXPECT_EQ(dry.status, 201) << dry.raw;
  ExpectStatus(Get(std::string(kKueue) + "/clusterqueues/dry"), 404, "NotFound");
}

TEST_F(ApiServerTest, StatusSubresourceIsSeparate) {
  Json cq = ClusterQueue("cq");
  cq["status"] = {{"pendingWorkloads", 9}};
  Reply created = Post(std::string(kKueue) + "/clusterqueues", cq);
  ASSERT_EQ(created.status, 201);
  EXPECT_FALSE(created.body.contains("status")) << "status is dropped on create";

  // PUT /status changes status only.
  // `object` with `pending` workloads in its status and `cohort` in its spec.
  auto with = [](Json object, int pending, const char* cohort) {
    object["status"] = {{"pendingWorkloads", pending}};
    object["spec"]["cohort"] = cohort;
    return object;
  };
  Reply st =
      Put(std::string(kKueue) + "/clusterqueues/cq/status", with(created.body, 3, "ignored"));
  ASSERT_EQ(st.status, 200) << st.raw;
  EXPECT_EQ(st.body["status"]["pendingWorkloads"], 3);
  EXPECT_FALSE(st.body["spec"].contains("cohort"));
  EXPECT_EQ(
      Get(std::string(kKueue) + "/clusterqueues/cq/status").body["status"]["pendingWorkloads"], 3);

  // PUT on the main resource keeps the stored status.
  Reply put = Put(std::string(kKueue) + "/clusterqueues/cq", with(st.body, 100, "c"));
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body["status"]["pendingWorkloads"], 3);
  EXPECT_EQ(put.body["spec"]["cohort"], "c");

  // PATCH /status.
  Reply patched = MergePatch(std::string(kKueue) + "/clusterqueues/cq/status",
                             R"({"status":{"admittedWorkloads":2},"spec":{"cohort":"x"}})");
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(patched.body["status"]["admittedWorkloads"], 2);
  EXPECT_EQ(patched.body["status"]["pendingWorkloads"], 3);
  EXPECT_EQ(patched.body["spec"]["cohort"], "c");

  // Kinds without status have no /status.
  ExpectStatus(Get("/apis/kueue.x-k8s.io/v1beta1/workloadpriorityclasses/x/status"), 404,
               "NotFound");
}

TEST_F(ApiServerTest, SelectorsAndPagination) {
  for (int i = 0; i < 5; ++i) {
    Json wl = Workload("default", "wl-" + std::to_string(i),
                       {{"team", i % 2 == 0 ? "a" : "b"}, {"index", std::to_string(i)}});
    ASSERT_EQ(Post(std::string(kKueue) + "/namespaces/default/workloads", wl).status, 201);
  }
  const std::string base = std::string(kKueue) + "/namespaces/default/workloads";
  EXPECT_EQ(Get(base + "?labelSelector=team%3Da").body["items"].size(), 3u);
  EXPECT_EQ(Get(base + "?labelSelector=team%20in%20(a,b),index!%3D0").body["items"].size(), 4u);
  Reply by_name = Get(base + "?fieldSelector=metadata.name%3Dwl-3");
  ASSERT_EQ(by_name.body["items"].size(), 1u);
  EXPECT_EQ(by_name.body["items"][0]["metadata"]["name"], "wl-3");
  ExpectStatus(Get(base + "?labelSelector=team%20in%20a"), 400, "BadRequest");

  std::vector<std::string> seen;
  std::string cont;
  for (int page = 0; page < 10; ++page) {
    Reply r = Get(base + "?limit=2" + (cont.empty() ? "" : "&continue=" + cont));
    ASSERT_EQ(r.status, 200) << r.raw;
    for (const Json& item : r.body["items"]) seen.push_back(item["metadata"]["name"]);
    cont = r.body["metadata"].value("continue", "");
    if (cont.empty()) break;
    EXPECT_GT(r.body["metadata"].value("remainingItemCount", 0), 0);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"wl-0", "wl-1", "wl-2", "wl-3", "wl-4"}));

  // deletecollection with a selector.
  Reply deleted = Delete(base + "?labelSelector=team%3Db");
  ASSERT_EQ(deleted.status, 200) << deleted.raw;
  EXPECT_EQ(deleted.body["items"].size(), 2u);
  EXPECT_EQ(Get(base).body["items"].size(), 3u);
}

TEST_F(ApiServerTest, DeletePreconditionsAndNamespaceCascade) {
  ASSERT_EQ(Post("/api/v1/namespaces", Namespace("team-b")).status, 201);
  Reply wl = Post(std::string(kKueue) + "/namespaces/team-b/workloads", Workload("team-b", "w"));
  ASSERT_EQ(wl.status, 201);
  Reply bad = Delete(std::string(kKueue) + "/namespaces/team-b/workloads/w",
                     R"({"preconditions":{"uid":"not-the-uid"}})");
  ExpectStatus(bad, 409, "Conflict");
  Reply del_ns = Delete("/api/v1/namespaces/team-b");
  ASSERT_EQ(del_ns.status, 200) << del_ns.raw;
  ExpectStatus(Get(std::string(kKueue) + "/namespaces/team-b/workloads/w"), 404, "NotFound");
  ExpectStatus(Delete("/api/v1/namespaces/default"), 403, "Forbidden");
}

// Creates check their namespace from a cache (NamespaceCache); every change
// to the Namespace must show in the very next create, with no window.
TEST_F(ApiServerTest, CreatesSeeTheirNamespaceChangeAtOnce) {
  const std::string lqs = std::string(kKueue) + "/namespaces/team-c/localqueues";
  Json ns = Namespace("team-c");
  ns["metadata"]["finalizers"] = {"example.com/hold"};
  ASSERT_EQ(Post("/api/v1/namespaces", ns).status, 201);
  ASSERT_EQ(Post(lqs, LocalQueue("team-c", "a", "cq")).status, 201);  // cached as active
  ASSERT_EQ(Post(lqs, LocalQueue("team-c", "b", "cq")).status, 201);

  Reply terminating = Delete("/api/v1/namespaces/team-c");
  ASSERT_EQ(terminating.status, 200) << terminating.raw;
  ASSERT_TRUE(terminating.body["metadata"].contains("deletionTimestamp")) << terminating.raw;
  Reply refused = Post(lqs, LocalQueue("team-c", "c", "cq"));
  ExpectStatus(refused, 403, "Forbidden");
  EXPECT_NE(refused.body["message"].get<std::string>().find("is being terminated"),
            std::string::npos)
      << refused.raw;

  Reply released = MergePatch("/api/v1/namespaces/team-c", R"({"metadata":{"finalizers":null}})");
  ASSERT_EQ(released.status, 200) << released.raw;
  ExpectStatus(Get("/api/v1/namespaces/team-c"), 404, "NotFound");
  ExpectStatus(Post(lqs, LocalQueue("team-c", "d", "cq")), 404, "NotFound");

  ASSERT_EQ(Post("/api/v1/namespaces", Namespace("team-c")).status, 201);
  Reply again = Post(lqs, LocalQueue("team-c", "e", "cq"));
  EXPECT_EQ(again.status, 201) << again.raw;
}

TEST_F(ApiServerTest, WriteRepliesAreTheObjectAsStored) {
  // Creates, updates and patches answer with the text the store wrote (no
  // second dump): byte for byte what a GET of the object returns after.
  ASSERT_EQ(Post("/api/v1/namespaces", Namespace("team-d")).status, 201);
  const std::string lqs = std::string(kKueue) + "/namespaces/team-d/localqueues";
  Reply created = Post(lqs, LocalQueue("team-d", "a", "cq"));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.raw, Get(lqs + "/a").raw);

  Reply patched = MergePatch(lqs + "/a", R"({"metadata":{"labels":{"team":"d"}}})");
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(patched.body["metadata"]["labels"]["team"], "d");
  EXPECT_EQ(patched.raw, Get(lqs + "/a").raw);

  Json replacement = patched.body;
  replacement["metadata"]["annotations"]["note"] = "replaced";
  Reply put = Put(lqs + "/a", replacement);
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body["metadata"]["annotations"]["note"], "replaced");
  EXPECT_NE(put.body["metadata"]["resourceVersion"], patched.body["metadata"]["resourceVersion"]);
  EXPECT_EQ(put.raw, Get(lqs + "/a").raw);

  // A patch that changes nothing writes nothing and answers the object as it is.
  Reply unchanged = MergePatch(lqs + "/a", "{}");
  ASSERT_EQ(unchanged.status, 200) << unchanged.raw;
  EXPECT_EQ(unchanged.raw, put.raw);
}

TEST_F(ApiServerTest, ErrorClasses) {
  const std::string cqs = std::string(kKueue) + "/clusterqueues";
  // 400: malformed JSON, mismatched apiVersion / kind, mismatched namespace.
  ExpectStatus(PostRaw(cqs, "{not json", "application/json"), 400, "BadRequest");
  Json wrong_version = ClusterQueue("x");
  wrong_version["apiVersion"] = "kueue.x-k8s.io/v1alpha1";
  Reply r = Post(cqs, wrong_version);
  ExpectStatus(r, 400, "BadRequest");
  EXPECT_EQ(r.body["message"],
            "the API version in the data (kueue.x-k8s.io/v1alpha1) does not match the expected "
            "API version (kueue.x-k8s.io/v1beta1)");
  Json wrong_kind = ClusterQueue("x");
  wrong_kind["kind"] = "LocalQueue";
  ExpectStatus(Post(cqs, wrong_kind), 400, "BadRequest");
  ExpectStatus(Post(std::string(kKueue) + "/namespaces/default/localqueues",
                    LocalQueue("other", "lq", "cq")),
               400, "BadRequest");
  Json with_rv = ClusterQueue("x");
  with_rv["metadata"]["resourceVersion"] = "5";
  ExpectStatus(Post(cqs, with_rv), 400, "BadRequest");

  // 404: unknown group, resource, object, namespace.
  ExpectStatus(Get("/apis/example.com/v1/things"), 404, "NotFound");
  ExpectStatus(Get(std::string(kKueue) + "/things"), 404, "NotFound");
  Reply missing = Get(cqs + "/nope");
  ExpectStatus(missing, 404, "NotFound");
  EXPECT_EQ(missing.body["message"], "clusterqueues.kueue.x-k8s.io \"nope\" not found");
  EXPECT_EQ(missing.body["details"]["name"], "nope");
  EXPECT_EQ(missing.body["details"]["group"], "kueue.x-k8s.io");
  EXPECT_EQ(missing.body["details"]["kind"], "clusterqueues");
  ExpectStatus(Get(cqs + "/%FF%FE"), 404, "NotFound");  // not UTF-8: still a Status body
  ExpectStatus(Get(cqs + "/a/b/c/d"), 404, "NotFound");
  Reply no_ns =
      Post(std::string(kKueue) + "/namespaces/ghost/localqueues", LocalQueue("ghost", "lq", "cq"));
  ExpectStatus(no_ns, 404, "NotFound");
  EXPECT_EQ(no_ns.body["message"], "namespaces \"ghost\" not found");

  // 405: POST to an object, PUT to a collection.
  ExpectStatus(Post(cqs + "/x", ClusterQueue("x")), 405, "MethodNotAllowed");
  ExpectStatus(Put(cqs, ClusterQueue("x")), 405, "MethodNotAllowed");

  // 409: AlreadyExists.
  ASSERT_EQ(Post(cqs, ClusterQueue("dup")).status, 201);
  Reply dup = Post(cqs, ClusterQueue("dup"));
  ExpectStatus(dup, 409, "AlreadyExists");
  EXPECT_EQ(dup.body["message"], "clusterqueues.kueue.x-k8s.io \"dup\" already exists");

  // 413: a body over the limit.
  std::string huge = R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",)"
                     R"("metadata":{"name":"big"},"spec":{"x":")" +
                     std::string(4u << 20, 'a') + "\"}}";
  ExpectStatus(PostRaw(cqs, huge, "application/json"), 413, "RequestEntityTooLarge");

  // 415: strategic merge patch on a Kueue kind; YAML bodies.
  ExpectStatus(
      Patch(cqs + "/dup", R"({"spec":{"cohort":"x"}})", "application/strategic-merge-patch+json"),
      415, "UnsupportedMediaType");
  ExpectStatus(PostRaw(cqs, "apiVersion: v1\n", "application/yaml"), 415, "UnsupportedMediaType");

  // 422: invalid names.
  Reply bad_name = Post(cqs, ClusterQueue("Bad_Name"));
  ExpectStatus(bad_name, 422, "Invalid");
  EXPECT_EQ(bad_name.body["message"].get<std::string>().rfind(
                "ClusterQueue.kueue.x-k8s.io \"Bad_Name\" is invalid: metadata.name: Invalid "
                "value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of",
                0),
            0u)
      << bad_name.raw;
  EXPECT_EQ(bad_name.body["details"]["kind"], "ClusterQueue");
  ExpectStatus(Post("/api/v1/namespaces", Namespace("has.dot")), 422, "Invalid");
  Json no_name = ClusterQueue("");
  ExpectStatus(Post(cqs, no_name), 422, "Invalid");
}

// A hook that records calls, defaults an annotation and rejects on a label.
class RecordingHook : public AdmissionHook {
 public:
  Status Admit(const ResourceInfo& resource, Operation op, const Json* old_object,
               Json* object) override {
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back(resource.kind + ":" + std::to_string(static_cast<int>(op)) + ":" +
                    (old_object == nullptr ? "new" : "old"));
    if (op != Operation::kDelete) (*object)["metadata"]["annotations"]["admitted"] = "yes";
    const Json& labels = (*object)["metadata"].value("labels", Json::object());
    if (labels.value("reject", "") == "true") {
      return Status::Invalid("spec.cohort: Invalid value: \"x\": rejected by test hook");
    }
    return Status::Ok();
  }
  std::mutex mu;
  std::vector<std::string> calls;
};

class AdmissionTest : public ServerTest {
 protected:
  AdmissionHook* Hook() override { return &hook_; }
  RecordingHook hook_;
};

TEST_F(AdmissionTest, HookRunsOnEveryWrite) {
  const std::string cqs = std::string(kKueue) + "/clusterqueues";
  Reply created = Post(cqs, ClusterQueue("cq"));
  ASSERT_EQ(created.status, 201);
  EXPECT_EQ(created.body["metadata"]["annotations"]["admitted"], "yes");
  Reply patched = MergePatch(cqs + "/cq", R"({"spec":{"cohort":"c"}})");
  ASSERT_EQ(patched.status, 200);
  EXPECT_EQ(Delete(cqs + "/cq").status, 200);
  {
    std::lock_guard<std::mutex> lock(hook_.mu);
    EXPECT_EQ(hook_.calls, (std::vector<std::string>{"ClusterQueue:0:new", "ClusterQueue:1:old",
                                                     "ClusterQueue:2:old"}));
  }
  Json rejected = ClusterQueue("bad");
  rejected["metadata"]["labels"] = {{"reject", "true"}};
  Reply r = Post(cqs, rejected);
  ExpectStatus(r, 422, "Invalid");
  EXPECT_EQ(r.body["message"],
            "ClusterQueue.kueue.x-k8s.io \"bad\" is invalid: spec.cohort: Invalid value: \"x\": "
            "rejected by test hook");
  // A patch is admitted after it is applied.
  ASSERT_EQ(Post(cqs, ClusterQueue("ok")).status, 201);
  ExpectStatus(MergePatch(cqs + "/ok", R"({"metadata":{"labels":{"reject":"true"}}})"), 422,
               "Invalid");
}

// A store whose every call fails as an I/O error would.
class FailingStore : public store::ObjectStore {
 public:
  Result<Json> Create(const std::string&, Json) override { return Fail(); }
  Result<Json> Get(const std::string& resource, const std::string&, const std::string&) override {
    if (resource == "namespaces") return Json{{"metadata", {{"name", "default"}}}};
    return Fail();
  }
  Result<store::ListResult> List(const std::string&, const store::ListOptions&) override {
    return Fail();
  }
  Result<Json> Update(const std::string&, Json, const store::UpdateOptions&) override {
    return Fail();
  }
  Result<Json> Delete(const std::string&, const std::string&, const std::string&,
                      const store::DeleteOptions&) override {
    return Fail();
  }
  Result<std::unique_ptr<store::Watcher>> Watch(const std::string&, const std::string&,
                                                int64_t) override {
    return Fail();
  }
  int64_t CurrentResourceVersion() override { return 0; }

 private:
  static Status Fail() { return Status::Unavailable("disk I/O error"); }
};

TEST(ApiServerStoreFailure, IoErrorsAre500) {
  FailingStore store;
  ApiServer server(store, nullptr, ServerOptions{});
  ASSERT_TRUE(server.Start().ok());
  httplib::Client client("127.0.0.1", server.port());
  auto check = [](const httplib::Result& res) {
    testing::Reply r = testing::ToReply(res);
    ExpectStatus(r, 500, "InternalError");
    EXPECT_NE(r.raw.find("disk I/O error"), std::string::npos);
  };
  check(client.Get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues"));
  check(client.Get("/apis/kueue.x-k8s.io/v1beta1/clusterqueues/x"));
  check(client.Post("/apis/kueue.x-k8s.io/v1beta1/clusterqueues", ClusterQueue("x").dump(),
                    "application/json"));
  server.Stop();
  server.Stop();  // idempotent
}

}  // namespace
}  // namespace kuota::server
