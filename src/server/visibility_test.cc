// Kueue's visibility API over real HTTP: pending workloads of a ClusterQueue
// and a LocalQueue with positions, offset/limit paging, NotFound, a server
// without a source, and the group in discovery (without taking
// "clusterqueues" away from kueue.x-k8s.io in kubectl).
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/pending_workloads_source.h"
#include "server/test_server.h"

namespace kuota::server {
namespace {

constexpr char kVisibility[] = "/apis/visibility.kueue.x-k8s.io/v1beta1";

// Pending workloads held in fixed queue order; positions computed as Kueue does.
class FixedSource : public PendingWorkloadsSource {
 public:
  // (namespace, name, local queue, priority), in the order the ClusterQueue holds them.
  struct Entry {
    std::string ns, name, lq;
    int32_t priority;
  };
  void Set(const std::string& cq, std::vector<Entry> entries) {
    std::lock_guard<std::mutex> lock(mu_);
    queues_[cq] = std::move(entries);
  }

  Result<std::vector<PendingWorkloadInfo>> ForClusterQueue(const std::string& cq) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(cq);
    if (it == queues_.end()) return Status::NotFound("clusterqueue " + cq);
    return Positions(it->second, [](const Entry&) { return true; });
  }
  Result<std::vector<PendingWorkloadInfo>> ForLocalQueue(const std::string& ns,
                                                         const std::string& lq) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [cq, entries] : queues_) {
      for (const Entry& e : entries) {
        if (e.ns == ns && e.lq == lq) {
          return Positions(entries, [&](const Entry& x) { return x.ns == ns && x.lq == lq; });
        }
      }
    }
    return Status::NotFound("localqueue " + ns + "/" + lq);
  }

 private:
  template <typename Keep>
  static std::vector<PendingWorkloadInfo> Positions(const std::vector<Entry>& entries, Keep keep) {
    std::vector<PendingWorkloadInfo> out;
    std::map<std::string, int64_t> in_lq;
    for (size_t i = 0; i < entries.size(); ++i) {
      const Entry& e = entries[i];
      int64_t lq_pos = in_lq[e.ns + "/" + e.lq]++;
      if (!keep(e)) continue;
      out.push_back({e.ns, e.name, e.lq, "2026-01-01T00:00:0" + std::to_string(i % 10) + "Z",
                     e.priority, static_cast<int64_t>(i), lq_pos});
    }
    return out;
  }

  std::mutex mu_;
  std::map<std::string, std::vector<Entry>> queues_;
};

class VisibilityTest : public ServerTest {
 protected:
  void Configure(store::StoreOptions&, ServerOptions& server) override {
    source_.Set("cq", {{"team-a", "wl-1", "lq-a", 100},
                       {"team-b", "wl-2", "lq-b", 50},
                       {"team-a", "wl-3", "lq-a", 10},
                       {"team-a", "wl-4", "lq-a", 0}});
    source_.Set("empty", {});
    server.pending_workloads = &source_;
  }
  FixedSource source_;
};

TEST_F(VisibilityTest, ClusterQueuePendingWorkloads) {
  Reply r = Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["kind"], "PendingWorkloadsSummary");
  EXPECT_EQ(r.body["apiVersion"], "visibility.kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(r.body["metadata"], Json::object());
  ASSERT_EQ(r.body["items"].size(), 4u);
  const Json& second = r.body["items"][1];
  EXPECT_EQ(second["metadata"]["name"], "wl-2");
  EXPECT_EQ(second["metadata"]["namespace"], "team-b");
  EXPECT_EQ(second["metadata"]["creationTimestamp"], "2026-01-01T00:00:01Z");
  EXPECT_EQ(second["priority"], 50);
  EXPECT_EQ(second["localQueueName"], "lq-b");
  EXPECT_EQ(second["positionInClusterQueue"], 1);
  EXPECT_EQ(second["positionInLocalQueue"], 0);
  EXPECT_EQ(r.body["items"][3]["positionInLocalQueue"], 2);

  Reply page =
      Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads?offset=1&limit=2");
  ASSERT_EQ(page.body["items"].size(), 2u);
  EXPECT_EQ(page.body["items"][0]["metadata"]["name"], "wl-2");
  EXPECT_EQ(page.body["items"][1]["metadata"]["name"], "wl-3");
  EXPECT_EQ(page.body["items"][1]["positionInClusterQueue"], 2);
  EXPECT_EQ(Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads?offset=10")
                .body["items"]
                .size(),
            0u);
  EXPECT_EQ(Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads?limit=0")
                .body["items"]
                .size(),
            4u);  // 0 means the default, as in Kueue
  EXPECT_EQ(Get(std::string(kVisibility) + "/clusterqueues/empty/pendingworkloads").body["items"],
            Json::array());
}

TEST_F(VisibilityTest, LocalQueuePendingWorkloads) {
  Reply r = Get(std::string(kVisibility) + "/namespaces/team-a/localqueues/lq-a/pendingworkloads");
  ASSERT_EQ(r.status, 200) << r.raw;
  ASSERT_EQ(r.body["items"].size(), 3u);
  EXPECT_EQ(r.body["items"][0]["metadata"]["name"], "wl-1");
  EXPECT_EQ(r.body["items"][1]["metadata"]["name"], "wl-3");
  EXPECT_EQ(r.body["items"][1]["positionInClusterQueue"], 2);
  EXPECT_EQ(r.body["items"][1]["positionInLocalQueue"], 1);
  Reply page = Get(std::string(kVisibility) +
                   "/namespaces/team-a/localqueues/lq-a/pendingworkloads?offset=2");
  ASSERT_EQ(page.body["items"].size(), 1u);
  EXPECT_EQ(page.body["items"][0]["metadata"]["name"], "wl-4");
  EXPECT_EQ(page.body["items"][0]["positionInLocalQueue"], 2);
}

TEST_F(VisibilityTest, Errors) {
  Reply cq = Get(std::string(kVisibility) + "/clusterqueues/nope/pendingworkloads");
  ExpectStatus(cq, 404, "NotFound");
  EXPECT_EQ(cq.body["message"], "clusterqueue.visibility.kueue.x-k8s.io \"nope\" not found");
  Reply lq = Get(std::string(kVisibility) + "/namespaces/team-a/localqueues/nope/pendingworkloads");
  ExpectStatus(lq, 404, "NotFound");
  EXPECT_EQ(lq.body["message"], "localqueue.visibility.kueue.x-k8s.io \"nope\" not found");
  ExpectStatus(Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads?limit=-1"), 400,
               "BadRequest");
  ExpectStatus(Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads?offset=x"), 400,
               "BadRequest");
  ExpectStatus(Get(std::string(kVisibility) + "/clusterqueues/cq"), 404, "NotFound");
  ExpectStatus(Get(std::string(kVisibility) + "/clusterqueues/cq/other"), 404, "NotFound");
  ExpectStatus(Get("/apis/visibility.kueue.x-k8s.io/v1/clusterqueues/cq/pendingworkloads"), 404,
               "NotFound");
  ExpectStatus(
      Post(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads", Json::object()), 405,
      "MethodNotAllowed");
}

TEST_F(VisibilityTest, Discovery) {
  Reply group = Get("/apis/visibility.kueue.x-k8s.io");
  ASSERT_EQ(group.status, 200);
  EXPECT_EQ(group.body["kind"], "APIGroup");
  // v1beta2 preferred, v1beta1 served too (Kueue v0.20's PrioritizedVersions).
  EXPECT_EQ(group.body["preferredVersion"]["groupVersion"], "visibility.kueue.x-k8s.io/v1beta2");
  ASSERT_EQ(group.body["versions"].size(), 2u);
  EXPECT_EQ(group.body["versions"][1]["groupVersion"], "visibility.kueue.x-k8s.io/v1beta1");
  Reply list = Get(kVisibility);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["kind"], "APIResourceList");
  bool sub = false;
  for (const Json& r : list.body["resources"]) {
    if (r["name"] == "clusterqueues/pendingworkloads") {
      sub = true;
      EXPECT_EQ(r["verbs"], Json::array({"get"}));
      EXPECT_EQ(r["namespaced"], false);
    }
  }
  EXPECT_TRUE(sub);
  // Listed after kueue.x-k8s.io, so kubectl resolves "clusterqueues" to Kueue's own.
  Reply apis = Get("/apis");
  int kueue = -1, visibility = -1, i = 0;
  for (const Json& g : apis.body["groups"]) {
    if (g["name"] == "kueue.x-k8s.io") kueue = i;
    if (g["name"] == "visibility.kueue.x-k8s.io") visibility = i;
    ++i;
  }
  EXPECT_GE(kueue, 0);
  EXPECT_GT(visibility, kueue);
  Reply aggregated =
      Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  ASSERT_EQ(aggregated.status, 200);
  const Json& last = aggregated.body["items"].back();
  EXPECT_EQ(last["metadata"]["name"], "visibility.kueue.x-k8s.io");
  EXPECT_EQ(last["versions"][0]["resources"][1]["resource"], "localqueues");
  EXPECT_EQ(last["versions"][0]["resources"][1]["subresources"][0]["subresource"],
            "pendingworkloads");
  EXPECT_EQ(last["versions"][0]["version"], "v1beta2");
  EXPECT_EQ(last["versions"][1]["version"], "v1beta1");
  EXPECT_EQ(last["versions"][1]["resources"][0]["responseKind"]["version"], "v1beta1");
}

TEST_F(VisibilityTest, V1beta2ServesTheSameSummary) {
  const std::string v2 = "/apis/visibility.kueue.x-k8s.io/v1beta2";
  Reply r = Get(v2 + "/namespaces/team-a/localqueues/lq-a/pendingworkloads?limit=2");
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["apiVersion"], "visibility.kueue.x-k8s.io/v1beta2");
  ASSERT_EQ(r.body["items"].size(), 2u);
  EXPECT_EQ(r.body["items"][1]["metadata"]["name"], "wl-3");
  EXPECT_EQ(r.body["items"][1]["positionInClusterQueue"], 2);
  EXPECT_EQ(r.body["items"][1]["positionInLocalQueue"], 1);
  Reply list = Get(v2);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["groupVersion"], "visibility.kueue.x-k8s.io/v1beta2");
}

class VisibilityWithoutSourceTest : public ServerTest {};

TEST_F(VisibilityWithoutSourceTest, Unavailable) {
  Reply r = Get(std::string(kVisibility) + "/clusterqueues/cq/pendingworkloads");
  ExpectStatus(r, 503, "ServiceUnavailable");
  EXPECT_NE(r.body["message"].get<std::string>().find("not served"), std::string::npos) << r.raw;
}

}  // namespace
}  // namespace kuota::server
