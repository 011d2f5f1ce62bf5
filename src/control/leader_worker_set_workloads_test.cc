// Kueue's LeaderWorkerSet controller over a real SQLite store: one Workload
// per group made and deleted with spec.replicas, the queue name kept in step,
// the set's pods labelled with their group's Workload; and which pods the
// pod integration the LWS framework turns on takes.
#include "control/leader_worker_set_workloads.h"

#include <gtest/gtest.h>

#include "control/job_management.h"
#include "jobs/leader_worker_set_pods.h"
#include "jobs/pod_kind.h"
#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;
constexpr char kLwsWl[] = "workloads.kueue.x-k8s.io";
constexpr char kLwsSets[] = "leaderworkersets.leaderworkerset.x-k8s.io";

class LeaderWorkerSetWorkloadsTest : public testing::SqliteStoreTest {
 protected:
  void SetUp() override {
    SqliteStoreTest::SetUp();
    if (HasFatalFailure()) return;
    Json lws = Json::parse(R"({
      "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
      "metadata": {"name": "serve", "namespace": "ns",
                   "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
      "spec": {"replicas": 3, "leaderWorkerTemplate": {"size": 2, "workerTemplate": {"spec": {
        "containers": [{"name": "w", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}}
    })");
    kind_.Default(lws);
    kind_.DefaultOnCreate(lws);
    auto stored = store_->Create(kLwsSets, lws);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    lws_ = *stored;
  }

  // "<group index>:<queue>" of each stored Workload, by name.
  std::vector<std::string> Groups() {
    std::vector<std::string> out;
    auto list = store_->List(kLwsWl, {});
    for (const Json& wl : list->items) {
      out.push_back(wl["metadata"]["annotations"]["kueue.x-k8s.io/component-workload-index"]
                        .get<std::string>() +
                    ":" + wl["spec"]["queueName"].get<std::string>());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  jobs::LeaderWorkerSetKind kind_;
  Json lws_;
};

TEST_F(LeaderWorkerSetWorkloadsTest, OneWorkloadPerGroupFollowingReplicas) {
  LeaderWorkerSetWorkloads w(*store_);
  auto changes = w.Reconcile(kind_, lws_, "kueue.x-k8s.io/resource-in-use");
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_EQ(changes->created.size(), 3u);
  EXPECT_EQ(changes->created[0]["metadata"]["finalizers"][0], "kueue.x-k8s.io/resource-in-use");
  EXPECT_EQ(Groups(), (std::vector<std::string>{"0:lq", "1:lq", "2:lq"}));
  // Again: nothing new.
  changes = w.Reconcile(kind_, lws_, "");
  ASSERT_TRUE(changes.ok());
  EXPECT_TRUE(changes->created.empty());
  // Scaled down to one group, to another queue.
  Json smaller = lws_;
  smaller["spec"]["replicas"] = 1;
  smaller["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "other";
  changes = w.Reconcile(kind_, smaller, "");
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_EQ(changes->deleted.size(), 2u);
  // (The finalizer holds the deleted ones until the controller releases them.)
  auto left = store_->Get(kLwsWl, "ns", jobs::LeaderWorkerSetKind::GroupWorkloadName(lws_, 0));
  ASSERT_TRUE(left.ok());
  EXPECT_EQ((*left)["spec"]["queueName"], "other");
  w.DeleteAll(smaller);
  for (int i = 1; i < 3; ++i) {
    auto gone = store_->Get(kLwsWl, "ns", jobs::LeaderWorkerSetKind::GroupWorkloadName(lws_, i));
    EXPECT_TRUE(!gone.ok() || (*gone)["metadata"].contains("deletionTimestamp")) << i;
  }
}

TEST_F(LeaderWorkerSetWorkloadsTest, LabelsTheSetsPodsForTheirGroup) {
  LeaderWorkerSetWorkloads w(*store_);
  auto pod = store_->Create("pods", jobs::LeaderWorkerSetPod(lws_, 2, 1));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_TRUE(jobs::PodIsGated(*pod));
  EXPECT_FALSE(jobs::IsManagedPod(*pod));
  auto labelled = w.DefaultPod(*pod);
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();
  ASSERT_TRUE(labelled->has_value());
  const Json& p = **labelled;
  EXPECT_TRUE(jobs::IsManagedPod(p));
  EXPECT_EQ(p["metadata"]["labels"]["kueue.x-k8s.io/prebuilt-workload-name"],
            jobs::LeaderWorkerSetKind::GroupWorkloadName(lws_, 2));
  EXPECT_EQ(p["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"], "main");
  // Done once; a pod of a set that is gone is left alone.
  labelled = w.DefaultPod(p);
  ASSERT_TRUE(labelled.ok());
  EXPECT_FALSE(labelled->has_value());
  Json orphan = jobs::LeaderWorkerSetPod(lws_, 0, 0);
  orphan["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/name"] = "gone";
  labelled = w.DefaultPod(orphan);
  ASSERT_TRUE(labelled.ok());
  EXPECT_FALSE(labelled->has_value());
}

// A MultiKueue worker's copy of a set (Kueue's LWS adapter made it): no
// Workloads of its own; its pods join the manager's group Workloads, whose
// copies carry the manager's names.
TEST_F(LeaderWorkerSetWorkloadsTest, AWorkersCopyMakesNoWorkloadsAndItsPodsJoinTheManagers) {
  Json copy = lws_;
  copy["metadata"].erase("uid");
  copy["metadata"].erase("resourceVersion");
  copy["metadata"]["name"] = "serve-copy";
  copy["metadata"]["labels"]["kueue.x-k8s.io/multikueue-origin"] = "manager";
  copy["metadata"]["annotations"]["kueue.x-k8s.io/multikueue-origin-uid"] = "manager-uid";
  auto stored = store_->Create(kLwsSets, copy);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_TRUE(jobs::LeaderWorkerSetKind::IsMultiKueueCopy(*stored));
  EXPECT_FALSE(jobs::LeaderWorkerSetKind::IsMultiKueueCopy(lws_));
  EXPECT_EQ(jobs::LeaderWorkerSetKind::OwnerUid(*stored), "manager-uid");
  EXPECT_EQ(jobs::LeaderWorkerSetKind::OwnerUid(lws_), lws_["metadata"]["uid"]);

  LeaderWorkerSetWorkloads w(*store_);
  auto changes = w.Reconcile(kind_, *stored, "");
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_TRUE(changes->created.empty());
  EXPECT_TRUE(Groups().empty());

  // The manager's set of that name and uid names its groups' Workloads so.
  Json managers = *stored;
  managers["metadata"]["uid"] = "manager-uid";
  managers["metadata"]["labels"].erase("kueue.x-k8s.io/multikueue-origin");
  const std::string group1 = jobs::LeaderWorkerSetKind::GroupWorkloadName(managers, 1);
  EXPECT_EQ(jobs::LeaderWorkerSetKind::GroupWorkloadName(*stored, 1), group1);
  EXPECT_NE(jobs::LeaderWorkerSetKind::GroupWorkloadName(lws_, 1), group1);
  auto pod = store_->Create("pods", jobs::LeaderWorkerSetPod(*stored, 1, 0));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  auto labelled = w.DefaultPod(*pod);
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();
  ASSERT_TRUE(labelled->has_value());
  EXPECT_EQ((**labelled)["metadata"]["labels"]["kueue.x-k8s.io/prebuilt-workload-name"], group1);
}

TEST(LeaderWorkerSetPodIntegration, ImplicitlyEnabledForParentSuspendedPodsOnly) {
  api::Configuration config;
  config.integrations.frameworks =
      std::vector<std::string>{"leaderworkerset.x-k8s.io/leaderworkerset"};
  auto m = JobManagement::FromConfig(config);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->PodsEnabled());
  EXPECT_TRUE(m->PodIntegrationRuns());
  const Json plain = {{"metadata", {{"labels", {{"kueue.x-k8s.io/queue-name", "lq"}}}}}};
  Json suspended = plain;
  suspended["metadata"]["annotations"] = {
      {"kueue.x-k8s.io/pod-suspending-parent", "leaderworkerset.x-k8s.io/leaderworkerset"}};
  EXPECT_FALSE(m->ManagesPod(plain));
  EXPECT_TRUE(m->ManagesPod(suspended));
  config.integrations.frameworks = std::vector<std::string>{"batch/job"};
  m = JobManagement::FromConfig(config);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->PodIntegrationRuns());
  EXPECT_FALSE(m->ManagesPod(suspended));
}

}  // namespace
}  // namespace kuota::control
