// KubeObjectStore (store::ObjectStore over a kube-apiserver) against
// recorded exchanges served over loopback HTTP: the URLs, query parameters
// and bodies it sends for Create/Get/List/Update/Delete/Watch, and what it
// makes of list metadata, Status errors and resourceVersions.
#include "kube/kube_object_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <string>
#include <vector>

#include "kube/replay_server_test_util.h"

namespace kuota::kube {
namespace {

constexpr const char* kJobsKey = "jobs.batch";
constexpr const char* kWorkloadPath =
    "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/job-sample-job-7f9c2";
constexpr const char* kJobsPath = "/apis/batch/v1/namespaces/team-a/jobs";
constexpr const char* kContinue =
    "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NTAwMCwic3RhcnQiOiJ0ZWFtLWEvam9iLWJcdTAwMDAifQ";

// A store with its client; the server must outlive both (declared first).
struct Fixture {
  explicit Fixture(ReplayServer& server,
                   std::vector<std::string> resources = {kWorkloadsKey, kJobsKey})
      : client(TargetOf(server, "store-token"), ClientOptions{}),
        store(client, std::move(resources)) {}
  KubeClient client;
  KubeObjectStore store;
};

// A server replaying the recorded exchanges `names`, and a store of it.
struct Served {
  ReplayServer server;
};
struct Replayed : Served, Fixture {
  explicit Replayed(std::initializer_list<const char*> names) : Fixture(server) {
    for (const char* name : names) server.Add(name);
  }
};

Json NewWorkload() {
  return Json{{"metadata", {{"name", "wl-new"}, {"namespace", "team-a"}}},
              {"spec",
               {{"active", true},
                {"queueName", "main"},
                {"priority", 0},
                {"podSets",
                 {{{"name", "main"},
                   {"count", 1},
                   {"template",
                    {{"metadata", Json::object()},
                     {"spec",
                      {{"restartPolicy", "Never"},
                       {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}}}}}}}};
}

size_t CountPath(const ReplayServer& server, const std::string& path) {
  return server.Requests("", path).size();
}

TEST(KubeObjectStoreTest, GetReturnsTheObjectAndItsVersionCounts) {
  Replayed f({"get_workload"});
  Result<Json> got = f.store.Get(kWorkloadsKey, "team-a", "job-sample-job-7f9c2");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)["kind"], "Workload");
  EXPECT_EQ((*got)["metadata"]["managedFields"][0]["operation"], "Update");
  // The version of a reply is the store's newest now: no probe request.
  EXPECT_EQ(f.store.CurrentResourceVersion(), 4711);
  EXPECT_EQ(CountPath(f.server, "/api/v1/namespaces"), 0u);
  ASSERT_EQ(f.server.Requests().size(), 1u);
  EXPECT_EQ(f.server.Requests()[0].Header("Authorization"), "Bearer store-token");
}

TEST(KubeObjectStoreTest, GetOfAMissingObjectIsNotFound) {
  Replayed f({"get_workload_not_found"});
  Result<Json> got = f.store.Get(kWorkloadsKey, "team-a", "missing");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(got.status().message(), "workloads.kueue.x-k8s.io \"missing\" not found");
}

TEST(KubeObjectStoreTest, ListPagesAndGivesItemsTheirKind) {
  Replayed f({"list_jobs_page1", "list_jobs_page2"});

  store::ListOptions first;
  first.ns = "team-a";
  first.limit = 2;
  Result<store::ListResult> page1 = f.store.List(kJobsKey, first);
  ASSERT_TRUE(page1.ok()) << page1.status().ToString();
  ASSERT_EQ(page1->items.size(), 2u);
  for (const Json& item : page1->items) {
    // The recorded items have no kind/apiVersion (as kube-apiserver lists them).
    EXPECT_EQ(item["kind"], "Job");
    EXPECT_EQ(item["apiVersion"], "batch/v1");
  }
  EXPECT_EQ(page1->items[0]["metadata"]["name"], "job-a");
  EXPECT_EQ(page1->items[1]["metadata"]["name"], "job-b");
  EXPECT_EQ(page1->resource_version, 5000);
  EXPECT_EQ(page1->continue_token, kContinue);
  EXPECT_EQ(page1->remaining, 1);

  store::ListOptions next = first;
  next.continue_token = page1->continue_token;
  Result<store::ListResult> page2 = f.store.List(kJobsKey, next);
  ASSERT_TRUE(page2.ok()) << page2.status().ToString();
  ASSERT_EQ(page2->items.size(), 1u);
  EXPECT_EQ(page2->items[0]["metadata"]["name"], "job-c");
  EXPECT_EQ(page2->items[0]["kind"], "Job");
  EXPECT_EQ(page2->resource_version, 5000);
  EXPECT_EQ(page2->continue_token, "");

  std::vector<RecordedRequest> reqs = f.server.Requests("GET", kJobsPath);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].Param("limit"), "2");
  EXPECT_FALSE(reqs[0].HasParam("continue"));
  EXPECT_EQ(reqs[1].Param("limit"), "2");
  EXPECT_EQ(reqs[1].Param("continue"), kContinue);
  EXPECT_TRUE(f.server.Unmatched().empty());
}

TEST(KubeObjectStoreTest, ListAsTextCarriesTheKindToo) {
  Replayed f({"list_jobs_page1"});
  store::ListOptions o;
  o.ns = "team-a";
  o.limit = 2;
  o.as_text = true;
  Result<store::ListResult> page = f.store.List(kJobsKey, o);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->items.empty());
  ASSERT_EQ(page->texts.size(), 2u);
  Json first = Json::parse(page->texts[0]);
  EXPECT_EQ(first["kind"], "Job");
  EXPECT_EQ(first["apiVersion"], "batch/v1");
}

TEST(KubeObjectStoreTest, ListWithAnExpiredContinueTokenIsGone) {
  Replayed f({"list_jobs_continue_expired"});
  store::ListOptions o;
  o.ns = "team-a";
  o.limit = 2;
  o.continue_token = LoadExchange("list_jobs_continue_expired").query.at("continue");
  Result<store::ListResult> page = f.store.List(kJobsKey, o);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), StatusCode::kGone) << page.status().ToString();
}

TEST(KubeObjectStoreTest, ListKeepsTheKindCustomResourceItemsCarry) {
  Replayed f({"list_workloads"});
  Result<store::ListResult> all = f.store.List(kWorkloadsKey, {});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->items.size(), 1u);
  EXPECT_EQ(all->items[0]["kind"], "Workload");
  EXPECT_EQ(all->resource_version, 6000);
  EXPECT_EQ(all->continue_token, "");  // "continue": "" is the end of the list
}

TEST(KubeObjectStoreTest, ListSendsSelectorsPercentEncoded) {
  ReplayServer server;
  server.Handle("GET", kJobsPath, [](const RecordedRequest&) {
    return Reply::Json(200, {{"kind", "JobList"},
                             {"apiVersion", "batch/v1"},
                             {"metadata", {{"resourceVersion", "77"}}},
                             {"items", Json::array()}});
  });
  Fixture f(server);
  store::ListOptions o;
  o.ns = "team-a";
  o.label_selector = "kueue.x-k8s.io/queue-name=main,env in (a,b)";
  o.field_selector = "metadata.name=job-a";
  Result<store::ListResult> r = f.store.List(kJobsKey, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->resource_version, 77);
  ASSERT_EQ(server.Requests().size(), 1u);
  const RecordedRequest req = server.Requests()[0];
  EXPECT_EQ(req.Param("labelSelector"), o.label_selector);
  EXPECT_EQ(req.Param("fieldSelector"), o.field_selector);
  EXPECT_NE(req.query.find("kueue.x-k8s.io%2Fqueue-name%3Dmain%2Cenv%20in%20%28a%2Cb%29"),
            std::string::npos)
      << req.query;
}

TEST(KubeObjectStoreTest, ListOfAKindNotServedIsEmptyWithoutARequest) {
  ReplayServer server;
  Fixture f(server, {kWorkloadsKey});
  Result<store::ListResult> r = f.store.List(kJobsKey, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->items.empty());
  EXPECT_TRUE(server.Requests().empty());
}

TEST(KubeObjectStoreTest, CreatePostsWithKindAndApiVersion) {
  Replayed f({"create_workload"});
  Result<Json> created = f.store.Create(kWorkloadsKey, NewWorkload());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ((*created)["metadata"]["resourceVersion"], "5120");
  EXPECT_EQ(f.store.CurrentResourceVersion(), 5120);

  std::vector<RecordedRequest> posts =
      f.server.Requests("POST", "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads");
  ASSERT_EQ(posts.size(), 1u);
  Json sent = posts[0].Json();
  EXPECT_EQ(sent["kind"], "Workload");
  EXPECT_EQ(sent["apiVersion"], "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(sent["metadata"]["name"], "wl-new");
  EXPECT_EQ(sent["spec"], NewWorkload()["spec"]);
  EXPECT_EQ(posts[0].Header("Content-Type"), "application/json");
}

TEST(KubeObjectStoreTest, CreateOfATakenNameIsAlreadyExists) {
  Replayed f({"create_workload_already_exists"});
  Json wl = NewWorkload();
  wl["metadata"]["name"] = "job-sample-job-7f9c2";
  Result<Json> created = f.store.Create(kWorkloadsKey, wl);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kAlreadyExists) << created.status().ToString();
}

TEST(KubeObjectStoreTest, UpdateAtAStaleVersionIsConflict) {
  Replayed f({"update_workload_conflict"});
  Json wl = RecordedBody("get_workload");
  wl["metadata"]["resourceVersion"] = "4700";
  wl["spec"]["active"] = false;
  Result<Json> updated = f.store.Update(kWorkloadsKey, wl);
  ASSERT_FALSE(updated.ok());
  EXPECT_EQ(updated.status().code(), StatusCode::kConflict) << updated.status().ToString();
  EXPECT_NE(updated.status().message().find("the object has been modified"), std::string::npos);

  std::vector<RecordedRequest> puts = f.server.Requests("PUT", "");
  ASSERT_EQ(puts.size(), 1u);
  EXPECT_EQ(puts[0].path, kWorkloadPath);  // the object, not its status
  EXPECT_EQ(puts[0].Json()["metadata"]["resourceVersion"], "4700");
  EXPECT_EQ(puts[0].Json()["spec"]["active"], false);
}

TEST(KubeObjectStoreTest, StatusOnlyUpdatePutsTheStatusSubresource) {
  Replayed f({"update_workload_status"});
  Json wl = RecordedBody("get_workload");
  wl.erase("kind");
  wl.erase("apiVersion");
  wl["status"]["conditions"] = {{{"type", "QuotaReserved"},
                                 {"status", "True"},
                                 {"reason", "QuotaReserved"},
                                 {"message", "Quota reserved in ClusterQueue cluster-queue"},
                                 {"lastTransitionTime", "2024-05-02T10:12:00Z"}}};
  store::UpdateOptions o;
  o.status_only = true;
  Result<Json> updated = f.store.Update(kWorkloadsKey, wl, o);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)["metadata"]["resourceVersion"], "4712");
  EXPECT_EQ(f.store.CurrentResourceVersion(), 4712);

  std::vector<RecordedRequest> puts = f.server.Requests("PUT", "");
  ASSERT_EQ(puts.size(), 1u);
  EXPECT_EQ(puts[0].path, std::string(kWorkloadPath) + "/status");
  Json sent = puts[0].Json();
  // Optimistic concurrency: the version the update was based on goes along.
  EXPECT_EQ(sent["metadata"]["resourceVersion"], "4711");
  EXPECT_EQ(sent["status"], wl["status"]);
  EXPECT_EQ(sent["kind"], "Workload");
  EXPECT_EQ(sent["apiVersion"], "kueue.x-k8s.io/v1beta2");
}

TEST(KubeObjectStoreTest, UpdateWithoutAVersionWritesAtTheVersionReadAndRetriesConflicts) {
  int64_t rv = 4710;  // outlives the server's handlers
  ReplayServer server;
  server.Handle("GET", kWorkloadPath, [&rv](const RecordedRequest&) {
    Json wl = RecordedBody("get_workload");
    wl["metadata"]["resourceVersion"] = std::to_string(++rv);  // someone else writes too
    return Reply::Json(200, wl);
  });
  server.Add("update_workload_conflict");  // the first write loses to that writer
  server.Handle("PUT", std::string(kWorkloadPath) + "/status", [](const RecordedRequest& req) {
    Json stored = req.Json();
    stored["metadata"]["resourceVersion"] = "4800";
    return Reply::Json(200, stored);
  });
  server.Handle("PUT", kWorkloadPath, [](const RecordedRequest& req) {
    Json stored = req.Json();
    stored["metadata"]["resourceVersion"] = "4713";
    return Reply::Json(200, stored);
  });
  Fixture f(server);
  Json wl = RecordedBody("get_workload");
  wl["metadata"].erase("resourceVersion");
  wl["spec"]["active"] = false;
  Result<Json> updated = f.store.Update(kWorkloadsKey, wl);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ((*updated)["metadata"]["resourceVersion"], "4713");

  std::vector<RecordedRequest> reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[1].method, "PUT");
  EXPECT_EQ(reqs[1].Json()["metadata"]["resourceVersion"], "4711");
  EXPECT_EQ(reqs[2].method, "GET");
  EXPECT_EQ(reqs[3].method, "PUT");
  EXPECT_EQ(reqs[3].path, kWorkloadPath);
  EXPECT_EQ(reqs[3].Json()["metadata"]["resourceVersion"], "4712");
  EXPECT_EQ(reqs[3].Json()["spec"]["active"], false);

  // A status write without a version reads the object, writes the subresource.
  Json status = RecordedBody("get_workload");
  status["metadata"].erase("resourceVersion");
  status["status"] = {{"admission", {{"clusterQueue", "cluster-queue"}}}};
  store::UpdateOptions o;
  o.status_only = true;
  Result<Json> st = f.store.Update(kWorkloadsKey, status, o);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  reqs = server.Requests();
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[4].method, "GET");
  EXPECT_EQ(reqs[4].path, kWorkloadPath);
  EXPECT_EQ(reqs[5].path, std::string(kWorkloadPath) + "/status");
  EXPECT_EQ(reqs[5].Json()["metadata"]["resourceVersion"], "4713");
}

TEST(KubeObjectStoreTest, UpdateWithoutAVersionGivesUpOnEndlessConflicts) {
  ReplayServer server;
  server.Add("get_workload", -1);
  server.Add("update_workload_conflict", -1);
  Fixture f(server);
  Json wl = RecordedBody("get_workload");
  wl["metadata"].erase("resourceVersion");
  Result<Json> updated = f.store.Update(kWorkloadsKey, wl);
  ASSERT_FALSE(updated.ok());
  EXPECT_EQ(updated.status().code(), StatusCode::kConflict) << updated.status().ToString();
  const size_t puts = server.Requests("PUT", kWorkloadPath).size();
  EXPECT_GE(puts, 2u);   // retried...
  EXPECT_LE(puts, 10u);  // ...but not forever
  EXPECT_EQ(server.Requests("GET", kWorkloadPath).size(), puts);
}

TEST(KubeObjectStoreTest, DeleteSendsPreconditions) {
  Replayed f({"delete_workload", "delete_workload_precondition_failed"});
  store::DeleteOptions o;
  o.precondition_uid = "a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
  o.precondition_resource_version = "4711";
  Result<Json> deleted = f.store.Delete(kWorkloadsKey, "team-a", "job-sample-job-7f9c2", o);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ((*deleted)["status"], "Success");

  store::DeleteOptions stale;
  stale.precondition_uid = "00000000-0000-0000-0000-000000000000";
  Result<Json> refused = f.store.Delete(kWorkloadsKey, "team-a", "job-sample-job-7f9c2", stale);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict) << refused.status().ToString();

  std::vector<RecordedRequest> dels = f.server.Requests("DELETE", kWorkloadPath);
  ASSERT_EQ(dels.size(), 2u);
  Json sent = dels[0].Json();
  EXPECT_EQ(sent["kind"], "DeleteOptions");
  EXPECT_EQ(sent["apiVersion"], "v1");
  EXPECT_EQ(sent["preconditions"]["uid"], "a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
  EXPECT_EQ(sent["preconditions"]["resourceVersion"], "4711");
  EXPECT_EQ(sent["propagationPolicy"], "Background");
  EXPECT_EQ(dels[1].Json()["preconditions"]["uid"], "00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(dels[1].Json()["preconditions"].contains("resourceVersion"));
}

TEST(KubeObjectStoreTest, CurrentResourceVersionAsksTheServerOnceWhenNothingWasSeen) {
  Replayed f({"list_namespaces_limit1"});
  EXPECT_EQ(f.store.CurrentResourceVersion(), 9000);
  EXPECT_EQ(f.store.CurrentResourceVersion(), 9000);
  std::vector<RecordedRequest> probes = f.server.Requests("GET", "/api/v1/namespaces");
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes[0].Param("limit"), "1");
  EXPECT_FALSE(probes[0].HasParam("resourceVersion"));  // a quorum read
}

TEST(KubeObjectStoreTest, WatchResumesFromTheLastFullList) {
  ReplayServer server;
  server.Add("list_workloads");
  server.Handle(
      "GET", "/apis/kueue.x-k8s.io/v1beta2/workloads",
      [](const RecordedRequest&) { return Reply::IdleStream(std::chrono::seconds(30)); },
      /*watch=*/true);
  Fixture f(server, {kWorkloadsKey});
  ASSERT_TRUE(f.store.List(kWorkloadsKey, {}).ok());
  // An older version asked for: the stream still starts at the list's 6000.
  Result<std::unique_ptr<store::Watcher>> w = f.store.Watch(kWorkloadsKey, "", 100);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(server.WaitForRequests("GET", "/apis/kueue.x-k8s.io/v1beta2/workloads", 1,
                                     milliseconds(5000), /*watch=*/true));
  (*w)->Stop();
  std::vector<RecordedRequest> watches;
  for (const RecordedRequest& r :
       server.Requests("GET", "/apis/kueue.x-k8s.io/v1beta2/workloads")) {
    if (r.IsWatch()) watches.push_back(r);
  }
  ASSERT_EQ(watches.size(), 1u);
  EXPECT_EQ(watches[0].Param("resourceVersion"), "6000");
  EXPECT_EQ(watches[0].Param("allowWatchBookmarks"), "true");
  EXPECT_EQ(watches[0].Header("Authorization"), "Bearer store-token");
  EXPECT_EQ(CountPath(server, "/api/v1/namespaces"), 0u);
}

TEST(KubeObjectStoreTest, WatchEventsAndBookmarksAdvanceCurrentResourceVersion) {
  ReplayServer server;
  testing::Exchange ex = LoadExchange("watch_workloads_bookmark");
  ex.reply.hold = std::chrono::seconds(30);
  server.Add(ex);
  Fixture f(server, {kWorkloadsKey});
  Result<std::unique_ptr<store::Watcher>> w = f.store.Watch(kWorkloadsKey, "", 5000);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::vector<store::WatchEvent> events;
  store::WatchEvent ev;
  while (events.size() < 3 && (*w)->Next(&ev, milliseconds(5000))) events.push_back(ev);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].type, store::EventType::kBookmark);
  EXPECT_EQ(f.store.CurrentResourceVersion(), 5010);
  EXPECT_EQ(CountPath(server, "/api/v1/namespaces"), 0u);  // known without asking
  (*w)->Stop();
}

}  // namespace
}  // namespace kuota::kube
