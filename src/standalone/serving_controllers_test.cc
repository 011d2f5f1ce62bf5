// kuotad's Deployment and StatefulSet controllers: the pods they make and
// delete and the status they write.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "standalone/deployment_controller.h"
#include "standalone/stateful_set_controller.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

constexpr const char* kNow = "2026-11-28T12:00:00Z";

Json App(const std::string& kind, int replicas) {
  Json labels = {{"app", "web"}, {"kueue.x-k8s.io/queue-name", "lq"}};
  Json tmpl = {{"metadata", {{"labels", labels}}},
               {"spec", {{"containers", Json::array({Json{{"name", "main"}}})}}}};
  Json spec = {{"replicas", replicas},
               {"serviceName", "web"},
               {"selector", {{"matchLabels", {{"app", "web"}}}}},
               {"template", tmpl}};
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata",
           {{"name", "web"},
            {"namespace", "ns"},
            {"uid", "u1"},
            {"generation", 3},
            {"labels", {{"kueue.x-k8s.io/queue-name", "lq"}}}}},
          {"spec", spec}};
}

Json Running(Json pod, bool ready) {
  pod["metadata"]["uid"] = "p-" + pod["metadata"]["name"].get<std::string>();
  pod["metadata"]["creationTimestamp"] = kNow;
  Json ready_condition = {{"type", "Ready"}, {"status", ready ? "True" : "False"}};
  pod["status"] = {{"phase", "Running"}, {"conditions", Json::array({ready_condition})}};
  return pod;
}

TEST(DeploymentControllerTest, KeepsReplicasAndWritesStatus) {
  const Json d = App("Deployment", 2);
  Result<ServingActions> a = ReconcileDeployment(d, {}, kNow);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 2u);
  const Json& pod = a->create_pods[0];
  const std::string hash = pod["metadata"]["labels"]["pod-template-hash"];
  EXPECT_EQ(pod["metadata"]["name"].get<std::string>().rfind("web-" + hash + "-", 0), 0u);
  EXPECT_NE(a->create_pods[0]["metadata"]["name"], a->create_pods[1]["metadata"]["name"]);
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "Deployment");
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "lq");
  ASSERT_TRUE(a->status);
  EXPECT_EQ((*a->status)["replicas"], 2);
  EXPECT_EQ((*a->status)["observedGeneration"], 3);

  // Both running and ready: Available, Progressing NewReplicaSetAvailable.
  std::vector<Json> pods = {Running(a->create_pods[0], true), Running(a->create_pods[1], true)};
  Json done = d;
  Result<ServingActions> b = ReconcileDeployment(done, pods, kNow);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->create_pods.empty());
  EXPECT_TRUE(b->delete_pods.empty());
  ASSERT_TRUE(b->status);
  EXPECT_EQ((*b->status)["readyReplicas"], 2);
  EXPECT_EQ((*b->status)["availableReplicas"], 2);
  EXPECT_EQ((*b->status)["updatedReplicas"], 2);
  done["status"] = *b->status;
  EXPECT_FALSE(ReconcileDeployment(done, pods, kNow)->status) << "no change, no write";

  // Scale down to 1 with one pod still gated: the gated one goes first.
  Json gated = a->create_pods[1];
  gated["metadata"]["uid"] = "g";
  gated["spec"]["schedulingGates"] = {{{"name", "kueue.x-k8s.io/admission"}}};
  Json one = App("Deployment", 1);
  Result<ServingActions> c = ReconcileDeployment(one, {pods[0], gated}, kNow);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->delete_pods.size(), 1u);
  EXPECT_EQ(c->delete_pods[0], gated["metadata"]["name"]);

  // A deleted pod is replaced; a failed one too.
  Json failed = pods[1];
  failed["status"]["phase"] = "Failed";
  Result<ServingActions> e = ReconcileDeployment(d, {pods[0], failed}, kNow);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->delete_pods, std::vector<std::string>{failed["metadata"]["name"]});
  EXPECT_EQ(e->create_pods.size(), 1u);
}

// Pods of `d`'s current template, running and ready.
std::vector<Json> ReadyPods(const Json& d, int n) {
  Result<ServingActions> a = ReconcileDeployment(d, {}, kNow);
  std::vector<Json> out;
  for (int i = 0; i < n; ++i)
    out.push_back(Running(a->create_pods.at(static_cast<size_t>(i)), true));
  return out;
}

Json WithImage(Json d, const std::string& image) {
  d["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  return d;
}

std::set<std::string> NamesOf(const std::vector<Json>& pods) {
  std::set<std::string> out;
  for (const Json& p : pods) out.insert(p["metadata"]["name"]);
  return out;
}

// A changed template rolls out as kube's Deployment controller does it: at
// most replicas + maxSurge pods, never fewer than replicas - maxUnavailable
// available; a pod of the new template that waits gated (for quota) holds
// the older ones back.
TEST(DeploymentControllerTest, RollingUpdateKeepsAvailability) {
  Json d = App("Deployment", 4);
  d["spec"]["strategy"] = {{"type", "RollingUpdate"},
                           {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", 1}}}};
  std::vector<Json> older = ReadyPods(d, 4);
  const Json next = WithImage(d, "v2");

  Result<ServingActions> a = ReconcileDeployment(next, older, kNow);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 1u);  // 4 + maxSurge 1
  ASSERT_EQ(a->delete_pods.size(), 1u);  // 4 - maxUnavailable 1 stay available
  EXPECT_EQ(NamesOf(older).count(a->delete_pods[0]), 1u);
  ASSERT_TRUE(a->status);
  EXPECT_EQ((*a->status)["replicas"], 4);  // 3 older + 1 updated
  EXPECT_EQ((*a->status)["updatedReplicas"], 1);
  EXPECT_EQ((*a->status)["conditions"][1]["reason"], "ReplicaSetUpdated");

  // The new pod waits gated: one more new pod (5 in all), but no older pod
  // goes (3 available is the floor).
  Json waiting = a->create_pods[0];
  waiting["metadata"]["uid"] = "w";
  waiting["spec"]["schedulingGates"] = {{{"name", "kueue.x-k8s.io/admission"}}};
  std::vector<Json> three(older.begin() + 1, older.end());
  std::vector<Json> now = three;
  now.push_back(waiting);
  Result<ServingActions> b = ReconcileDeployment(next, now, kNow);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->create_pods.size(), 1u);
  EXPECT_TRUE(b->delete_pods.empty());

  // Once it runs ready, one more new pod and one more older pod gone.
  now.back() = Running(a->create_pods[0], true);
  Result<ServingActions> c = ReconcileDeployment(next, now, kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->create_pods.size(), 1u);
  ASSERT_EQ(c->delete_pods.size(), 1u);
  EXPECT_EQ(NamesOf(three).count(c->delete_pods[0]), 1u);

  // All new and ready, no older left: done.
  std::vector<Json> fresh = ReadyPods(next, 4);
  Json done = next;
  Result<ServingActions> e = ReconcileDeployment(done, fresh, kNow);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->create_pods.empty());
  EXPECT_TRUE(e->delete_pods.empty());
  EXPECT_EQ((*e->status)["updatedReplicas"], 4);
  EXPECT_EQ((*e->status)["conditions"][1]["reason"], "NewReplicaSetAvailable");
}

// Kube's defaults (25% surge rounded up, 25% unavailable rounded down) on 2
// replicas: one surge pod and none unavailable, so with no quota to spare
// the rollout waits for the surge pod's admission.
TEST(DeploymentControllerTest, DefaultStrategyOnTwoReplicasSurgesOne) {
  const Json d = App("Deployment", 2);
  const std::vector<Json> older = ReadyPods(d, 2);
  const Json next = WithImage(d, "v2");
  Result<ServingActions> a = ReconcileDeployment(next, older, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->create_pods.size(), 1u);
  EXPECT_TRUE(a->delete_pods.empty());
}

// Recreate: every older pod goes first; the new ones come once none is left.
TEST(DeploymentControllerTest, RecreateStopsTheOldBeforeStartingTheNew) {
  Json d = App("Deployment", 2);
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  std::vector<Json> older = ReadyPods(d, 2);
  const Json next = WithImage(d, "v2");
  Result<ServingActions> a = ReconcileDeployment(next, older, kNow);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->create_pods.empty());
  EXPECT_EQ(a->delete_pods.size(), 2u);
  for (Json& p : older) p["metadata"]["deletionTimestamp"] = kNow;
  Result<ServingActions> b = ReconcileDeployment(next, older, kNow);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->create_pods.empty()) << "not while an older pod is still stopping";
  Result<ServingActions> c = ReconcileDeployment(next, {}, kNow);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->create_pods.size(), 2u);
}

TEST(StatefulSetControllerTest, OrdinalsInOrderWithKueueLabels) {
  const Json s = App("StatefulSet", 2);
  Result<ServingActions> a = ReconcileStatefulSet(s, {}, kNow, /*kueue=*/true);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 1u) << "OrderedReady: one at a time";
  const Json& pod = a->create_pods[0];
  EXPECT_EQ(pod["metadata"]["name"], "web-0");
  EXPECT_EQ(pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"], "0");
  EXPECT_EQ(pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"], "web-0");
  EXPECT_EQ(pod["spec"]["hostname"], "web-0");
  EXPECT_EQ(pod["spec"]["subdomain"], "web");
  EXPECT_EQ(pod["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"], "2");
  EXPECT_EQ(pod["metadata"]["labels"]["kueue.x-k8s.io/managed"], "true");

  // web-0 not ready yet: nothing more; ready: web-1.
  EXPECT_TRUE(ReconcileStatefulSet(s, {Running(pod, false)}, kNow, true)->create_pods.empty());
  Result<ServingActions> b = ReconcileStatefulSet(s, {Running(pod, true)}, kNow, true);
  ASSERT_EQ(b->create_pods.size(), 1u);
  EXPECT_EQ(b->create_pods[0]["metadata"]["name"], "web-1");

  // Parallel: all at once; without Kueue no group labels.
  Json par = s;
  par["spec"]["podManagementPolicy"] = "Parallel";
  Result<ServingActions> c = ReconcileStatefulSet(par, {}, kNow, false);
  ASSERT_EQ(c->create_pods.size(), 2u);
  EXPECT_FALSE(c->create_pods[1]["metadata"]["labels"].contains("kueue.x-k8s.io/managed"));

  // Scaled to 0: both go; status counts them until they are gone.
  std::vector<Json> both = {Running(pod, true), Running(b->create_pods[0], true)};
  Json zero = App("StatefulSet", 0);
  Result<ServingActions> d = ReconcileStatefulSet(zero, both, kNow, true);
  EXPECT_EQ(d->delete_pods.size(), 2u);
  EXPECT_EQ((*d->status)["replicas"], 2);
  Result<ServingActions> full = ReconcileStatefulSet(s, both, kNow, true);
  EXPECT_EQ((*full->status)["readyReplicas"], 2);
  EXPECT_EQ((*full->status)["currentRevision"], (*full->status)["updateRevision"]);
}

}  // namespace
}  // namespace kuota::standalone
