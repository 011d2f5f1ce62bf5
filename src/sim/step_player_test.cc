// Playing a what-if file's Nodes and time Steps through kuota simulate:
// waitForPodsReady timeouts and requeue backoff, pods placed on nodes,
// admission check states, stopPolicy changes, finished workloads, minimum
// runtimes before preemption, and the errors a bad Step or Node gets.
#include "sim/step_player.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/simulation.h"

namespace kuota::sim {
namespace {

// One ClusterQueue `cq` with 4 cpu of flavor `default` (label pool=a),
// LocalQueue ns/lq, and `checks` as its admission checks.
std::string Queue(const std::string& checks = "") {
  std::string out = R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
spec: {nodeLabels: {pool: a}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: example.com/prov}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
)";
  if (!checks.empty()) out += "  admissionChecks: [" + checks + "]\n";
  out += R"(  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - {name: default, resources: [{name: cpu, nominalQuota: "4"}]}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
)";
  return out;
}

std::string Workload(const std::string& name, const std::string& cpu, int second,
                     const std::string& extra_spec = "") {
  return "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: " + name +
         ", namespace: ns, creationTimestamp: \"2025-12-31T23:59:" + (second < 10 ? "0" : "") +
         std::to_string(second) +
         "Z\"}\nspec:\n  queueName: lq\n  podSets:\n  - name: main\n    count: 1\n"
         "    template:\n      spec:\n" +
         extra_spec + "        containers:\n        - {name: c, resources: {requests: {cpu: \"" +
         cpu + "\"}}}\n";
}

std::string WaitForPodsReady(const std::string& extra = "") {
  return "---\napiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
         "waitForPodsReady:\n  enable: true\n  blockAdmission: false\n  timeout: 5m\n"
         "  requeuingStrategy: {backoffBaseSeconds: 60, backoffMaxSeconds: 3600" +
         extra + "}\n";
}

std::string Step(const std::string& at, const std::string& body = "") {
  return "---\napiVersion: conformance/v1\nkind: Step\nat: \"2026-01-01T" + at + "Z\"\n" + body;
}

std::string Node(const std::string& name, const std::string& cpu, const std::string& extra = "") {
  return "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n  labels: {pool: a}\n" +
         extra + "status:\n  allocatable: {cpu: \"" + cpu + "\", pods: \"110\"}\n";
}

Report Simulated(const std::string& text, int cycles = 0) {
  SimulateOptions opts;
  opts.cycles = cycles;
  Result<Report> r = Simulate(text, opts);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Report{};
}

std::string Error(const std::string& text) {
  SimulateOptions opts;
  Result<Report> r = Simulate(text, opts);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.status().message();
}

std::vector<std::string> Evicted(const Report& r) {
  std::vector<std::string> out;
  for (const auto& e : r.evicted) out.push_back(e.workload + " " + e.reason + " " + e.at);
  return out;
}

TEST(StepPlayerTest, PodsReadyTimeoutEvictsAndRequeuesAfterBackoff) {
  const std::string base = Queue() + WaitForPodsReady() + Workload("w", "2", 0);
  // Admitted at 00:00, no pods ready: evicted at 00:05, back at 00:06,
  // evicted again at 00:11, back at 00:13 (120 s), evicted at 00:18.
  Report at4 = Simulated(base + Step("00:04:59"));
  EXPECT_EQ(at4.admitted.count("ns/w"), 1u);
  EXPECT_TRUE(at4.evicted.empty());
  Report at5 = Simulated(base + Step("00:05:00"));
  EXPECT_EQ(at5.admitted.count("ns/w"), 0u);
  EXPECT_EQ(Evicted(at5), std::vector<std::string>{"ns/w PodsReadyTimeout 2026-01-01T00:05:00Z"});
  Report at6 = Simulated(base + Step("00:06:00"));
  EXPECT_EQ(at6.admitted.count("ns/w"), 1u);
  Report at12 = Simulated(base + Step("00:12:59"));
  EXPECT_EQ(at12.admitted.count("ns/w"), 0u);
  EXPECT_EQ(Evicted(at12),
            (std::vector<std::string>{"ns/w PodsReadyTimeout 2026-01-01T00:05:00Z",
                                      "ns/w PodsReadyTimeout 2026-01-01T00:11:00Z"}));
  Report at20 = Simulated(base + Step("00:20:00"));
  EXPECT_EQ(at20.evicted.size(), 3u);
  EXPECT_EQ(at20.evicted.back().at, "2026-01-01T00:18:00Z");
}

TEST(StepPlayerTest, PodsReadyStepStopsTheTimeout) {
  Report r = Simulated(Queue() + WaitForPodsReady() + Workload("w", "2", 0) +
                       Step("00:01:00", "podsReady: [ns/w]\n") + Step("01:00:00"));
  ASSERT_EQ(r.admitted.count("ns/w"), 1u);
  EXPECT_TRUE(r.admitted["ns/w"].pods_ready);
  EXPECT_TRUE(r.evicted.empty());
}

TEST(StepPlayerTest, BackoffLimitDeactivates) {
  Report r = Simulated(Queue() + WaitForPodsReady(", backoffLimitCount: 1") +
                       Workload("w", "2", 0) + Step("01:00:00"));
  EXPECT_EQ(r.admitted.count("ns/w"), 0u);
  ASSERT_EQ(r.evicted.size(), 2u);  // requeued once, then deactivated
  ASSERT_EQ(r.pending.size(), 1u);
  EXPECT_NE(r.pending[0].reason.find("deactivated"), std::string::npos) << r.pending[0].reason;
}

TEST(StepPlayerTest, PodsOnMatchingNodesBecomeReady) {
  // One 3-cpu node with the flavor's label: fits (2 cpu) runs there; big
  // (2 cpu) finds 1 cpu left, so its timeout fires.
  const std::string text = Queue() + WaitForPodsReady() + Node("n1", "3") +
                           Workload("fits", "2", 0) + Workload("big", "2", 1) + Step("00:10:00");
  Report r = Simulated(text);
  ASSERT_EQ(r.admitted.count("ns/fits"), 1u);
  EXPECT_TRUE(r.admitted["ns/fits"].pods_ready);
  EXPECT_EQ(Evicted(r), (std::vector<std::string>{"ns/big PodsReadyTimeout 2026-01-01T00:05:00Z"}));
  // Readmitted at 00:06; still no room on n1.
  ASSERT_EQ(r.admitted.count("ns/big"), 1u);
  EXPECT_FALSE(r.admitted["ns/big"].pods_ready);
}

TEST(StepPlayerTest, FinishedWorkloadFreesItsNode) {
  const std::string text = Queue() + WaitForPodsReady() + Node("n1", "2") +
                           Workload("first", "2", 0) + Workload("second", "2", 1) +
                           Step("00:03:00", "finished: [ns/first]\n") + Step("00:04:00");
  Report r = Simulated(text);
  EXPECT_EQ(r.admitted.count("ns/first"), 0u);
  ASSERT_EQ(r.admitted.count("ns/second"), 1u);
  EXPECT_TRUE(r.admitted["ns/second"].pods_ready);
  EXPECT_TRUE(r.evicted.empty());
}

TEST(StepPlayerTest, UntoleratedTaintKeepsPodsOffTheNode) {
  const std::string taint = "spec:\n  taints: [{key: gpu, value: \"true\", effect: NoSchedule}]\n";
  Report r = Simulated(Queue() + Node("n1", "4", taint) + Workload("w", "1", 0) + Step("00:01:00"));
  ASSERT_EQ(r.admitted.count("ns/w"), 1u);
  EXPECT_FALSE(r.admitted["ns/w"].pods_ready);
  const std::string tolerates =
      "        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n";
  Report ok = Simulated(Queue() + Node("n1", "4", taint) + Workload("w", "1", 0, tolerates) +
                        Step("00:01:00"));
  ASSERT_EQ(ok.admitted.count("ns/w"), 1u);
  EXPECT_TRUE(ok.admitted["ns/w"].pods_ready);
}

TEST(StepPlayerTest, AdmissionCheckStates) {
  const std::string base =
      Queue("prov") + Workload("a", "2", 0) + Workload("b", "2", 1) + Workload("c", "2", 2);
  Report ready = Simulated(base + Step("00:01:00", "admissionChecks: {ns/a: {prov: Ready}}\n"));
  EXPECT_TRUE(ready.admitted["ns/a"].admitted);
  EXPECT_FALSE(ready.admitted["ns/b"].admitted);
  EXPECT_EQ(ready.admitted.count("ns/c"), 0u);

  Report retry = Simulated(base + Step("00:01:00", "admissionChecks: {ns/b: {prov: Retry}}\n"));
  EXPECT_EQ(Evicted(retry), std::vector<std::string>{"ns/b AdmissionCheck 2026-01-01T00:01:00Z"});
  EXPECT_EQ(retry.admitted.count("ns/b"), 1u);  // requeued at once, reserved again

  Report rejected =
      Simulated(base + Step("00:01:00", "admissionChecks: {ns/b: {prov: Rejected}}\n"));
  EXPECT_EQ(Evicted(rejected), std::vector<std::string>{"ns/b Deactivated 2026-01-01T00:01:00Z"});
  EXPECT_EQ(rejected.admitted.count("ns/b"), 0u);
  EXPECT_EQ(rejected.admitted.count("ns/c"), 1u);
}

TEST(StepPlayerTest, StopPolicySteps) {
  const std::string base = Queue() + Workload("a", "2", 0) + Workload("b", "2", 1);
  Report drained =
      Simulated(base + Step("00:01:00", "stopPolicy: {clusterQueues: {cq: HoldAndDrain}}\n"));
  EXPECT_TRUE(drained.admitted.empty());
  EXPECT_EQ(Evicted(drained),
            (std::vector<std::string>{"ns/a ClusterQueueStopped 2026-01-01T00:01:00Z",
                                      "ns/b ClusterQueueStopped 2026-01-01T00:01:00Z"}));
  Report resumed =
      Simulated(base + Step("00:01:00", "stopPolicy: {clusterQueues: {cq: HoldAndDrain}}\n") +
                Step("00:02:00", "stopPolicy: {clusterQueues: {cq: None}}\n"));
  EXPECT_EQ(resumed.admitted.size(), 2u);
  Report lq_drained =
      Simulated(base + Step("00:01:00", "stopPolicy: {localQueues: {ns/lq: HoldAndDrain}}\n"));
  EXPECT_TRUE(lq_drained.admitted.empty());
  ASSERT_EQ(lq_drained.evicted.size(), 2u);
  EXPECT_EQ(lq_drained.evicted[0].reason, "LocalQueueStopped");
}

TEST(StepPlayerTest, StepCyclesLimitTheCyclesAfterIt) {
  // One cycle at the start admits a; the step's one cycle admits b only.
  Report r = Simulated(Queue() + Workload("a", "1", 0) + Workload("b", "1", 1) +
                           Workload("c", "1", 2) + Step("00:01:00", "cycles: 1\n"),
                       /*cycles=*/1);
  EXPECT_EQ(r.admitted.size(), 2u);
  EXPECT_EQ(r.admitted.count("ns/c"), 0u);
  EXPECT_EQ(r.cycles_run, 2);
}

TEST(StepPlayerTest, BadStepsAreErrorsNamingDocumentFieldAndLine) {
  const std::string base = Queue() + Workload("w", "1", 0);
  std::string e = Error(base + Step("00:02:00") + Step("00:01:00"));
  EXPECT_NE(e.find("document 7 (Step, line "), std::string::npos) << e;
  EXPECT_NE(e.find("steps must be written in time order"), std::string::npos) << e;

  e = Error(base + Step("00:01:00", "podReady: [ns/w]\n"));
  EXPECT_NE(e.find("document 6 (Step, line 43): podReady: unknown field"), std::string::npos) << e;

  e = Error(base + Step("00:01:00", "admissionChecks: {ns/w: {prov: Done}}\n"));
  EXPECT_NE(e.find("admissionChecks[ns/w][prov]: Unsupported value"), std::string::npos) << e;

  e = Error(base + Step("00:01:00", "podsReady: [w]\n"));
  EXPECT_NE(e.find("podsReady[0]: a workload is written as namespace/name"), std::string::npos)
      << e;

  e = Error(base + Step("00:01:00", "podsReady: [ns/nope]\n"));
  EXPECT_NE(e.find("document 6 (Step, line 40): podsReady[0]: Workload \"ns/nope\" not found"),
            std::string::npos)
      << e;

  e = Error(base + Step("00:01:00", "admissionChecks: {ns/w: {nope: Ready}}\n"));
  EXPECT_NE(e.find("AdmissionCheck \"nope\" not found"), std::string::npos) << e;

  e = Error(base + Step("00:01:00", "stopPolicy: {clusterQueues: {other: Hold}}\n"));
  EXPECT_NE(e.find("stopPolicy.clusterQueues[other]: ClusterQueue \"other\" not found"),
            std::string::npos)
      << e;

  e = Error(base + "---\napiVersion: conformance/v1\nkind: Step\nat: \"2025-12-31T00:00:00Z\"\n");
  EXPECT_NE(e.find("before the simulation's start"), std::string::npos) << e;

  e = Error(base + "---\napiVersion: v1\nkind: Node\nmetadata: {labels: {a: b}}\n");
  EXPECT_NE(e.find("(Node, line "), std::string::npos) << e;
  EXPECT_NE(e.find("metadata.name: Required value"), std::string::npos) << e;
}

// Two ClusterQueues of 4 cpu in cohort org: team-b (ANNOTATIONS) holds a
// 6-cpu borrower since 00:00; team-a (reclaimWithinCohort: Any) wants 4 cpu
// from 00:01 with `priority`.
std::string Reclaim(const std::string& annotations, int priority = 0) {
  return R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohort: org
  namespaceSelector: {}
  preemption: {reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-b
  annotations: {)" +
         annotations + R"(}
spec:
  cohort: org
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: a}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: b}
spec: {clusterQueue: team-b}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: borrower, namespace: b, creationTimestamp: "2025-12-31T23:59:00Z"}
spec:
  queueName: lq
  podSets: [{name: main, count: 6, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
status:
  admission:
    clusterQueue: team-b
    podSetAssignments: [{name: main, count: 6, flavors: {cpu: default}, resourceUsage: {cpu: "6"}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: reclaimer, namespace: a, creationTimestamp: "2026-01-01T00:01:00Z"}
spec:
  queueName: lq
  priority: )" +
         std::to_string(priority) + R"(
  podSets: [{name: main, count: 4, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
)";
}

TEST(StepPlayerTest, MinimumRuntimeKeepsAVictimAndSaysForHowLong) {
  const std::string base = Reclaim("kuota.dev/minimum-runtime: 10m");
  Report at3 = Simulated(base + Step("00:03:00"));
  EXPECT_EQ(at3.admitted.count("b/borrower"), 1u);
  ASSERT_EQ(at3.pending.size(), 1u);
  EXPECT_EQ(at3.pending[0].workload, "a/reclaimer");
  EXPECT_NE(
      at3.pending[0].reason.find(
          "waiting for b/borrower to reach its 10m minimum runtime (at 2026-01-01T00:10:00Z)"),
      std::string::npos)
      << at3.pending[0].reason;
  Report at10 = Simulated(base + Step("00:10:00"));
  EXPECT_EQ(at10.admitted.count("a/reclaimer"), 1u);
  EXPECT_EQ(at10.admitted.count("b/borrower"), 0u);
  ASSERT_EQ(at10.preempted.size(), 1u);
  EXPECT_EQ(at10.preempted[0].workload, "b/borrower");
  EXPECT_EQ(at10.preempted[0].by, "a/reclaimer");
  // Without the annotation the reclaim is immediate.
  Report plain = Simulated(Reclaim(""));
  EXPECT_EQ(plain.admitted.count("a/reclaimer"), 1u);
}

TEST(StepPlayerTest, MinimumRuntimeOverridePriority) {
  const std::string annotations =
      "kuota.dev/minimum-runtime: 10m, kuota.dev/minimum-runtime-override-priority: \"1000\"";
  EXPECT_EQ(Simulated(Reclaim(annotations, 999) + Step("00:05:00")).admitted.count("a/reclaimer"),
            0u);
  EXPECT_EQ(Simulated(Reclaim(annotations, 1000)).admitted.count("a/reclaimer"), 1u);
}

TEST(StepPlayerTest, MalformedMinimumRuntimeIsAnErrorNamingIt) {
  EXPECT_EQ(Error(Reclaim("kuota.dev/minimum-runtime: ten")),
            "document 3 (ClusterQueue \"team-b\", line 17): "
            "metadata.annotations[kuota.dev/minimum-runtime]: Invalid value: \"ten\": must be a "
            "non-negative duration such as \"10m\" or \"1h30m\"");
}

TEST(StepPlayerTest, MalformedBackfillAnnotationsAreErrorsNamingThem) {
  EXPECT_EQ(Error(Reclaim("kuota.dev/backfill: \"yes\"")),
            "document 3 (ClusterQueue \"team-b\", line 17): "
            "metadata.annotations[kuota.dev/backfill]: Unsupported value: \"yes\": supported "
            "values: \"true\", \"false\"");
  EXPECT_EQ(Error(Reclaim("kuota.dev/default-runtime: 0s")),
            "document 3 (ClusterQueue \"team-b\", line 17): "
            "metadata.annotations[kuota.dev/default-runtime]: Invalid value: \"0s\": must be a "
            "positive duration such as \"1h\"");
}

// One 8-GPU ClusterQueue (BACKFILL) with a 4-GPU job admitted at 00:00
// estimated at 1h; an 8-GPU gang (00:01), then 2-GPU jobs estimated at 20m
// (00:02) and 2h (00:03), the estimates as maximumExecutionTimeSeconds or,
// with `default_runtime`, the ClusterQueue's default for the 2h one.
std::string Gang(bool backfill, const std::string& default_runtime = "") {
  std::string annotations = backfill ? "kuota.dev/backfill: \"true\"" : "";
  if (!default_runtime.empty()) annotations += ", kuota.dev/default-runtime: " + default_runtime;
  auto wl = [](const std::string& name, int gpus, const std::string& created,
               const std::string& seconds) {
    std::string out =
        "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: " + name +
        ", namespace: ml, creationTimestamp: \"" + created + "\"}\nspec:\n  queueName: lq\n";
    if (!seconds.empty()) out += "  maximumExecutionTimeSeconds: " + seconds + "\n";
    out += "  podSets: [{name: main, count: " + std::to_string(gpus) +
           ", template: {spec: {containers: [{name: c, resources: {requests: "
           "{nvidia.com/gpu: \"1\"}}}]}}}]\n";
    return out;
  };
  return R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: gpu}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: gpu-cq
  annotations: {)" +
         annotations + R"(}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: "8"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: ml}
spec: {clusterQueue: gpu-cq}
)" + wl("running", 4, "2025-12-31T23:59:00Z", "3600") +
         R"(status:
  admission:
    clusterQueue: gpu-cq
    podSetAssignments: [{name: main, count: 4, flavors: {nvidia.com/gpu: gpu}, resourceUsage: {nvidia.com/gpu: "4"}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
)" + wl("gang", 8, "2026-01-01T00:01:00Z", "7200") +
         wl("short", 2, "2026-01-01T00:02:00Z", "1200") +
         wl("long", 2, "2026-01-01T00:03:00Z", default_runtime.empty() ? "7200" : "");
}

std::string Why(const Report& r, const std::string& workload) {
  for (const auto& p : r.pending) {
    if (p.workload == workload) return p.reason;
  }
  return "(not pending)";
}

TEST(StepPlayerTest, BackfillReservesForTheBlockedHeadAndLetsShortJobsThrough) {
  Report r = Simulated(Gang(true) + Step("00:05:00"));
  EXPECT_EQ(r.admitted.count("ml/short"), 1u);
  EXPECT_EQ(r.admitted.count("ml/long"), 0u);
  EXPECT_NE(Why(r, "ml/gang")
                .find("capacity is reserved for it (kuota.dev/backfill): expected to "
                      "start at 2026-01-01T01:00:00Z"),
            std::string::npos)
      << Why(r, "ml/gang");
  EXPECT_EQ(Why(r, "ml/long"),
            "waiting behind the reservation of ml/gang (expected to start at "
            "2026-01-01T01:00:00Z): this workload would still run then (estimated 2h) and needs "
            "capacity the reservation holds");
  // The gang starts when the running job ends; the long job still waits.
  Report at1h = Simulated(Gang(true) + Step("00:30:00", "finished: [ml/short]\n") +
                          Step("01:00:00", "finished: [ml/running]\n"));
  EXPECT_EQ(at1h.admitted.count("ml/gang"), 1u);
  EXPECT_EQ(at1h.admitted.count("ml/long"), 0u);
  // Without the annotation both 2-GPU jobs start and the gang waits.
  Report plain = Simulated(Gang(false) + Step("00:05:00"));
  EXPECT_EQ(plain.admitted.count("ml/long"), 1u);
  EXPECT_EQ(plain.admitted.count("ml/short"), 1u);
  EXPECT_EQ(Why(plain, "ml/gang").find("reserved"), std::string::npos);
}

TEST(StepPlayerTest, BackfillUsesTheQueuesDefaultRuntimeAndWithoutEstimatesReservesNow) {
  // The long job has no maximumExecutionTimeSeconds: the queue's default
  // (20m) makes it end before 01:00, so it is backfilled too.
  Report r = Simulated(Gang(true, "20m") + Step("00:05:00"));
  EXPECT_EQ(r.admitted.count("ml/long"), 1u);
  // No estimate for the running job: no start time is known, and nothing
  // may take what the gang needs.
  std::string text = Gang(true);
  const std::string running_limit = "  maximumExecutionTimeSeconds: 3600\n";
  text.erase(text.find(running_limit), running_limit.size());
  Report unknown = Simulated(text + Step("00:05:00"));
  EXPECT_EQ(unknown.admitted.count("ml/short"), 0u);
  EXPECT_NE(Why(unknown, "ml/gang").find("no start time can be estimated"), std::string::npos)
      << Why(unknown, "ml/gang");
}

}  // namespace
}  // namespace kuota::sim
