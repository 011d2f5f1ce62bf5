#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jobs/jobs_test_util.h"
#include "jobs/leader_worker_set.h"
#include "jobs/leader_worker_set_pods.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {

// Kueue's sample-leaderworkerset.yaml, cut down, queued in user-queue.
Json LwsSample() {
  Json lws = Json::parse(R"({
    "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
    "metadata": {"name": "nginx-leaderworkerset", "namespace": "default", "uid": "lws-uid-1",
                 "generation": 1, "creationTimestamp": "2025-02-17T10:00:00Z",
                 "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
    "spec": {
      "replicas": 2,
      "leaderWorkerTemplate": {
        "size": 3,
        "leaderTemplate": {"spec": {"containers": [{
          "name": "nginx-leader", "image": "registry.k8s.io/nginx-slim:0.27",
          "resources": {"requests": {"cpu": "100m"}}}]}},
        "workerTemplate": {"spec": {"containers": [{
          "name": "nginx-worker", "image": "nginxinc/nginx-unprivileged:1.27",
          "env": [{"name": "LWS_GROUP_SIZE", "value": "mine"}, {"name": "OWN", "value": "1"}],
          "resources": {"requests": {"cpu": "200m"}}}]}}}}
  })");
  LeaderWorkerSetKind().Default(lws);
  LeaderWorkerSetKind().DefaultOnCreate(lws);
  return lws;
}

std::string LwsErrorOf(const Status& st) { return st.ok() ? "OK" : st.message(); }

TEST(LeaderWorkerSetKind, Info) {
  LeaderWorkerSetKind k;
  EXPECT_EQ(k.Framework(), "leaderworkerset.x-k8s.io/leaderworkerset");
  EXPECT_EQ(k.Resource(), "leaderworkersets.leaderworkerset.x-k8s.io");
  EXPECT_EQ(k.ApiVersion(), "leaderworkerset.x-k8s.io/v1");
  EXPECT_EQ(k.Info().short_names, (std::vector<std::string>{"lws"}));
  std::vector<std::string> shown;
  for (const PrinterColumn& c : k.Info().columns) shown.push_back(c.name);
  EXPECT_EQ(shown, (std::vector<std::string>{"Ready", "Desired", "Up-to-date", "Age"}));
  ASSERT_TRUE(k.Info().scale.has_value());
  EXPECT_EQ(k.Info().scale->label_selector, ".status.hpaPodSelector");
  Json lws = LwsSample();
  lws["status"] = {{"readyReplicas", 1}, {"updatedReplicas", 2}};
  EXPECT_EQ(ColumnValue(k.Info(), "Ready", lws), 1);
  EXPECT_EQ(ColumnValue(k.Info(), "Desired", lws), 2);
  EXPECT_EQ(ColumnValue(k.Info(), "Up-to-date", lws), 2);
}

TEST(LeaderWorkerSetKind, DefaultsAsLwsAndKueue) {
  const Json lws = LwsSample();
  const Json& lwt = lws["spec"]["leaderWorkerTemplate"];
  EXPECT_EQ(lwt["restartPolicy"], "RecreateGroupOnPodRestart");
  EXPECT_EQ(lws["spec"]["startupPolicy"], "LeaderCreated");
  EXPECT_EQ(lws["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxUnavailable"], 1);
  EXPECT_EQ(lws["spec"]["networkConfig"]["subdomainPolicy"], "Shared");
  for (const char* t : {"leaderTemplate", "workerTemplate"}) {
    const Json& meta = lwt[t]["metadata"];
    EXPECT_EQ(meta["labels"]["kueue.x-k8s.io/queue-name"], "user-queue") << t;
    EXPECT_EQ(meta["annotations"]["kueue.x-k8s.io/pod-suspending-parent"],
              "leaderworkerset.x-k8s.io/leaderworkerset")
        << t;
    EXPECT_EQ(meta["annotations"]["kueue.x-k8s.io/pod-group-serving"], "true") << t;
  }
  EXPECT_EQ(lwt["workerTemplate"]["metadata"]["annotations"]["kueue.x-k8s.io/pod-index-offset"],
            "1");
  EXPECT_FALSE(
      lwt["leaderTemplate"]["metadata"]["annotations"].contains("kueue.x-k8s.io/pod-index-offset"));
  Json old_style = LwsSample();
  old_style["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Default";
  LeaderWorkerSetKind().Default(old_style);
  EXPECT_EQ(old_style["spec"]["leaderWorkerTemplate"]["restartPolicy"], "None");
}

TEST(LeaderWorkerSetKind, ValidatesTheSample) {
  EXPECT_EQ(LwsErrorOf(LeaderWorkerSetKind().Validate(LwsSample())), "OK");
}

TEST(LeaderWorkerSetKind, ValidationErrors) {
  const std::vector<EditCase> cases = {
      {"no spec", [](Json& j) { j.erase("spec"); }, "spec: Required value"},
      {"name not DNS-1035", [](Json& j) { j["metadata"]["name"] = "1lws"; },
       "metadata.name: Invalid value: \"1lws\": a DNS-1035 label must consist of lower case "
       "alphanumeric characters or '-', start with an alphabetic character, and end with an "
       "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
       "'[a-z]([-a-z0-9]*[a-z0-9])?')"},
      {"no template", [](Json& j) { j["spec"].erase("leaderWorkerTemplate"); },
       "spec.leaderWorkerTemplate: Required value"},
      {"no worker template",
       [](Json& j) { j["spec"]["leaderWorkerTemplate"].erase("workerTemplate"); },
       "spec.leaderWorkerTemplate.workerTemplate: Required value"},
      {"negative replicas", [](Json& j) { j["spec"]["replicas"] = -1; },
       "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal "
       "to 0"},
      {"too many replicas", [](Json& j) { j["spec"]["replicas"] = 1000001; },
       "spec.replicas: Invalid value: 1000001: spec.replicas in body should be less than or "
       "equal to 1000000"},
      {"size 0", [](Json& j) { j["spec"]["leaderWorkerTemplate"]["size"] = 0; },
       "spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1"},
      {"size beyond int32",
       [](Json& j) { j["spec"]["leaderWorkerTemplate"]["size"] = int64_t{1} << 40; },
       "spec.leaderWorkerTemplate.size: Invalid value: 1099511627776: must be less than or equal "
       "to 2147483647"},
      {"bad restart policy",
       [](Json& j) { j["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Always"; },
       "spec.leaderWorkerTemplate.restartPolicy: Unsupported value: \"Always\": supported "
       "values: \"Default\", \"RecreateGroupOnPodRestart\", \"RecreateGroupAfterStart\", "
       "\"None\""},
      {"bad startup policy", [](Json& j) { j["spec"]["startupPolicy"] = "Now"; },
       "spec.startupPolicy: Unsupported value: \"Now\": supported values: \"LeaderCreated\", "
       "\"LeaderReady\""},
      {"percent over 100",
       [](Json& j) {
         j["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxSurge"] = "150%";
       },
       "spec.rolloutStrategy.rollingUpdateConfiguration.maxSurge: Invalid value: \"150%\": must "
       "not be greater than 100%"},
      {"both zero",
       [](Json& j) {
         j["spec"]["rolloutStrategy"]["rollingUpdateConfiguration"]["maxUnavailable"] = 0;
       },
       "spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable: Invalid value: 0: must "
       "not be 0 when `maxSurge` is 0"},
      {"subgroup not dividing",
       [](Json& j) {
         j["spec"]["leaderWorkerTemplate"]["subGroupPolicy"] = {{"subGroupSize", 4}};
       },
       "spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 4: size or size - "
       "1 must be divisible by subGroupSize"},
      {"slice larger than the workers",
       [](Json& j) {
         j["spec"]["leaderWorkerTemplate"]["workerTemplate"]["metadata"]["annotations"]
          ["kueue.x-k8s.io/podset-required-topology"] = "rack";
         j["spec"]["leaderWorkerTemplate"]["workerTemplate"]["metadata"]["annotations"]
          ["kueue.x-k8s.io/podset-slice-required-topology"] = "host";
         j["spec"]["leaderWorkerTemplate"]["workerTemplate"]["metadata"]["annotations"]
          ["kueue.x-k8s.io/podset-slice-size"] = "3";
       },
       "spec.leaderWorkerTemplate.workerTemplate.metadata.annotations[kueue.x-k8s.io/"
       "podset-slice-size]: Invalid value: \"3\": must not be greater than pod set count 2"},
  };
  ExpectEditErrors(LeaderWorkerSetKind(), LwsSample(), cases, Match::kWhole);
}

TEST(LeaderWorkerSetKind, TopologyIsCheckedOnlyWhenQueued) {
  Json lws = LwsSample();
  lws["metadata"]["labels"].erase("kueue.x-k8s.io/queue-name");
  lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["annotations"]
     ["kueue.x-k8s.io/podset-slice-size"] = "2";
  EXPECT_EQ(LwsErrorOf(LeaderWorkerSetKind().Validate(lws)), "OK");
}

TEST(LeaderWorkerSetKind, UpdateRules) {
  const LeaderWorkerSetKind k;
  const Json old = LwsSample();
  Json bigger = old;
  bigger["spec"]["leaderWorkerTemplate"]["size"] = 4;
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, bigger)),
            "spec.leaderWorkerTemplate.size: Invalid value: 4: field is immutable");
  Json more_cpu = old;
  more_cpu["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]
          ["requests"]["cpu"] = "1";
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, more_cpu)),
            "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources: Invalid "
            "value: {\"requests\":{\"cpu\":\"1\"}}: field is immutable");
  Json new_image = old;  // the image is not part of a pod group's shape
  new_image["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["image"] =
      "nginx:2";
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, new_image)), "OK");
  Json scaled = old;  // the unit of scaling is a group
  scaled["spec"]["replicas"] = 5;
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, scaled)), "OK");
  Json unqueued = old;
  unqueued["metadata"]["labels"].erase("kueue.x-k8s.io/queue-name");
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, unqueued)),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is "
            "immutable");
  Json subgroup = old;
  subgroup["spec"]["leaderWorkerTemplate"]["subGroupPolicy"] = {{"subGroupSize", 3}};
  EXPECT_EQ(LwsErrorOf(k.ValidateUpdate(old, subgroup)),
            "spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 3: cannot "
            "enable subGroupSize after the lws is already created");
  // Kueue's LWS webhook: suspended while no group is ready.
  EXPECT_TRUE(k.IsSuspended(old));
  Json ready = old;
  ready["status"] = {{"readyReplicas", 1}};
  EXPECT_FALSE(k.IsSuspended(ready));
}

TEST(LeaderWorkerSetKind, OneWorkloadPerGroup) {
  const LeaderWorkerSetKind k;
  const Json lws = LwsSample();
  Result<Json> g0 = k.GroupWorkload(lws, 0);
  Result<Json> g1 = k.GroupWorkload(lws, 1);
  ASSERT_TRUE(g0.ok() && g1.ok());
  EXPECT_EQ(PodSetCounts(*g0), (std::vector<std::string>{"leader:1", "worker:2"}));
  EXPECT_NE((*g0)["metadata"]["name"], (*g1)["metadata"]["name"]);
  EXPECT_EQ((*g0)["metadata"]["name"].get<std::string>().rfind(
                "leaderworkerset-nginx-leaderworkerset-0-", 0),
            0u);
  EXPECT_EQ((*g1)["metadata"]["annotations"]["kueue.x-k8s.io/component-workload-index"], "1");
  EXPECT_EQ((*g0)["metadata"]["annotations"]["kueue.x-k8s.io/is-group-workload"], "true");
  EXPECT_EQ((*g0)["metadata"]["labels"]["kueue.x-k8s.io/job-uid"], "lws-uid-1");
  const Json& owner = (*g0)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "LeaderWorkerSet");
  EXPECT_EQ(owner["name"], "nginx-leaderworkerset");
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ((*g0)["spec"]["queueName"], "user-queue");
  // The workers are numbered by LWS's worker index; the leader by nothing.
  EXPECT_FALSE((*g0)["spec"]["podSets"][0].contains("topologyRequest"));
  EXPECT_EQ((*g0)["spec"]["podSets"][1]["topologyRequest"]["podIndexLabel"],
            "leaderworkerset.sigs.k8s.io/worker-index");
  EXPECT_EQ(k.GroupWorkloadName(lws, 1), (*g1)["metadata"]["name"]);

  Json no_leader = lws;
  no_leader["spec"]["leaderWorkerTemplate"].erase("leaderTemplate");
  EXPECT_EQ(PodSetCounts(WorkloadOf(k, no_leader)), (std::vector<std::string>{"main:3"}));
  Json prio = lws;
  prio["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = "high";
  EXPECT_EQ(WorkloadOf(k, prio)["spec"]["priorityClassRef"]["name"], "high");
}

TEST(LeaderWorkerSetKind, LabelsItsPodsForTheirGroup) {
  const Json lws = LwsSample();
  const Json leader = LeaderWorkerSetPod(lws, 1, 0);
  const Json worker = LeaderWorkerSetPod(lws, 1, 2);
  // Kueue's pod webhook: gated, not yet managed.
  EXPECT_TRUE(PodIsGated(leader));
  EXPECT_FALSE(IsManagedPod(leader));
  std::optional<Json> l = LeaderWorkerSetKind::DefaultGroupPod(lws, leader);
  std::optional<Json> w = LeaderWorkerSetKind::DefaultGroupPod(lws, worker);
  ASSERT_TRUE(l && w);
  const std::string wl = LeaderWorkerSetKind::GroupWorkloadName(lws, 1);
  for (const Json* p : {&*l, &*w}) {
    EXPECT_TRUE(IsManagedPod(*p));
    EXPECT_EQ((*p)["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"], wl);
    EXPECT_EQ((*p)["metadata"]["labels"]["kueue.x-k8s.io/prebuilt-workload-name"], wl);
    EXPECT_EQ((*p)["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"], "3");
  }
  EXPECT_EQ((*l)["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"], "leader");
  EXPECT_EQ((*w)["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"], "worker");
  EXPECT_FALSE(LeaderWorkerSetKind::DefaultGroupPod(lws, *l).has_value());  // done once
}

TEST(LeaderWorkerSetPods, NamesLabelsAndEnvironment) {
  const Json lws = LwsSample();
  Result<GroupActions> a = ReconcileLeaderWorkerSet(lws, {}, "2025-02-17T10:00:01Z");
  ASSERT_TRUE(a.ok());
  std::vector<std::string> names;
  for (const Json& p : a->create_pods) names.push_back(p["metadata"]["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"nginx-leaderworkerset-0", "nginx-leaderworkerset-0-1",
                                      "nginx-leaderworkerset-0-2", "nginx-leaderworkerset-1",
                                      "nginx-leaderworkerset-1-1", "nginx-leaderworkerset-1-2"}));
  const Json& leader = a->create_pods[3];
  const Json& worker = a->create_pods[5];
  EXPECT_EQ(leader["spec"]["containers"][0]["name"], "nginx-leader");
  EXPECT_EQ(worker["spec"]["containers"][0]["name"], "nginx-worker");
  EXPECT_EQ(leader["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/worker-index"], "0");
  EXPECT_EQ(worker["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/group-index"], "1");
  EXPECT_EQ(worker["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/worker-index"], "2");
  EXPECT_EQ(worker["metadata"]["annotations"]["leaderworkerset.sigs.k8s.io/leader-name"],
            "nginx-leaderworkerset-1");
  EXPECT_EQ(worker["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/group-key"],
            leader["metadata"]["labels"]["leaderworkerset.sigs.k8s.io/group-key"]);
  EXPECT_EQ(EnvValue(leader, "LWS_LEADER_ADDRESS"), "127.0.0.1");
  EXPECT_EQ(EnvValue(leader, "LWS_GROUP_SIZE"), "3");
  EXPECT_EQ(EnvValue(leader, "LWS_WORKER_INDEX"), "0");
  EXPECT_EQ(EnvValue(worker, "LWS_WORKER_INDEX"), "2");
  // LWS's variables come first and win over the template's of the same name.
  const Json& env = worker["spec"]["containers"][0]["env"];
  ASSERT_EQ(env.size(), 4u);
  EXPECT_EQ(env[0]["name"], "LWS_LEADER_ADDRESS");
  EXPECT_EQ(env[1]["value"], "3");
  EXPECT_EQ(env[3]["name"], "OWN");
  EXPECT_EQ(worker["spec"]["subdomain"], "nginx-leaderworkerset");
  EXPECT_EQ(worker["spec"]["hostname"], "nginx-leaderworkerset-1-2");
  ASSERT_TRUE(a->status.has_value());
  EXPECT_EQ((*a->status)["readyReplicas"], 0);
  EXPECT_EQ((*a->status)["conditions"][0]["type"], "Progressing");
  EXPECT_EQ((*a->status)["hpaPodSelector"],
            "leaderworkerset.sigs.k8s.io/name=nginx-leaderworkerset,leaderworkerset.sigs.k8s.io/"
            "worker-index=0");
}

std::vector<Json> LwsPodsIn(const Json& lws, const std::string& phase) {
  std::vector<Json> pods;
  const Result<GroupActions> made = ReconcileLeaderWorkerSet(lws, {}, "t0");
  for (Json p : made->create_pods) {
    p["status"] = {{"phase", phase}};
    pods.push_back(p);
  }
  return pods;
}

TEST(LeaderWorkerSetPods, StatusAsLwsWritesIt) {
  const Json lws = LwsSample();
  Result<GroupActions> a = ReconcileLeaderWorkerSet(lws, LwsPodsIn(lws, "Running"), "t1");
  ASSERT_TRUE(a.ok() && a->status.has_value());
  EXPECT_TRUE(a->create_pods.empty());
  EXPECT_EQ((*a->status)["replicas"], 2);
  EXPECT_EQ((*a->status)["readyReplicas"], 2);
  EXPECT_EQ((*a->status)["updatedReplicas"], 2);
  ASSERT_EQ((*a->status)["conditions"].size(), 1u);
  EXPECT_EQ((*a->status)["conditions"][0]["type"], "Available");
  EXPECT_EQ((*a->status)["conditions"][0]["reason"], "AllGroupsReady");
  // From Progressing to Available: Progressing turns False.
  Json progressing = lws;
  progressing["status"] = *ReconcileLeaderWorkerSet(lws, {}, "t0")->status;
  a = ReconcileLeaderWorkerSet(progressing, LwsPodsIn(lws, "Running"), "t1");
  ASSERT_TRUE(a.ok() && a->status.has_value());
  const Json& cs = (*a->status)["conditions"];
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]["type"], "Progressing");
  EXPECT_EQ(cs[0]["status"], "False");
  EXPECT_EQ(cs[1]["type"], "Available");
  EXPECT_EQ(cs[1]["status"], "True");
  EXPECT_TRUE(LeaderWorkerSetKind().PodsReady(Json{{"spec", lws["spec"]}, {"status", *a->status}}));
}

TEST(LeaderWorkerSetPods, RecreatesAGroupWhole) {
  const Json lws = LwsSample();
  std::vector<Json> pods = LwsPodsIn(lws, "Running");
  // Group 1's worker 2 was deleted (a preemption, kubectl delete): the rest
  // of group 1 goes, then the group comes back whole.
  pods.erase(pods.begin() + 5);
  Result<GroupActions> a = ReconcileLeaderWorkerSet(lws, pods, "t2");
  ASSERT_TRUE(a.ok());
  std::vector<std::string> deleted = a->delete_pods;
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted,
            (std::vector<std::string>{"nginx-leaderworkerset-1", "nginx-leaderworkerset-1-1"}));
  EXPECT_TRUE(a->create_pods.empty());
  pods.resize(3);  // group 1 is gone
  a = ReconcileLeaderWorkerSet(lws, pods, "t3");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 3u);
  EXPECT_EQ(a->create_pods[0]["metadata"]["name"], "nginx-leaderworkerset-1");
  EXPECT_TRUE(PodIsGated(a->create_pods[0]));  // it queues again
  // Scaled down to one group: group 1's pods go.
  Json one = lws;
  one["spec"]["replicas"] = 1;
  a = ReconcileLeaderWorkerSet(one, LwsPodsIn(lws, "Running"), "t4");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->delete_pods.size(), 3u);
  // restartPolicy None: only the failed pod is replaced.
  Json none = lws;
  none["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "None";
  pods = LwsPodsIn(lws, "Running");
  pods[1]["status"]["phase"] = "Failed";
  a = ReconcileLeaderWorkerSet(none, pods, "t5");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->delete_pods, (std::vector<std::string>{"nginx-leaderworkerset-0-1"}));
}

TEST(LeaderWorkerSetPods, LeaderReadyAndBursts) {
  Json lws = LwsSample();
  lws["spec"]["startupPolicy"] = "LeaderReady";
  lws["spec"]["replicas"] = 1;
  Result<GroupActions> a = ReconcileLeaderWorkerSet(lws, {}, "t0");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->create_pods.size(), 1u);  // the leader first
  Json leader = a->create_pods[0];
  leader["status"] = {{"phase", "Pending"}};
  a = ReconcileLeaderWorkerSet(lws, {leader}, "t1");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->create_pods.empty());
  EXPECT_TRUE(a->delete_pods.empty());  // not a lost group
  leader["status"]["phase"] = "Running";
  a = ReconcileLeaderWorkerSet(lws, {leader}, "t2");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->create_pods.size(), 2u);  // then its workers
  // Many groups: whole groups, about 256 pods a pass.
  Json many = LwsSample();
  many["spec"]["replicas"] = 200;
  a = ReconcileLeaderWorkerSet(many, {}, "t3");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->create_pods.size(), 258u);  // 86 groups of 3
}

}  // namespace
}  // namespace kuota::jobs
