// Decoding of well-formed manifests: every supported kind, Kueue's defaults,
// JSON input, Lists, skipped kinds, document numbering and lines.
#include "api/codec/decode.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::codec {
namespace {

template <typename T>
const T& As(const api::Object& o) {
  return std::get<T>(o.value);
}

api::Object MustDecode(std::string_view text, const DecodeOptions& options = {}) {
  Result<api::Object> r = DecodeObject(text, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return api::Object{};
  return std::move(r).value();
}

int64_t Milli(const api::ResourceList& list, const std::string& name) {
  auto it = list.find(name);
  return it == list.end() ? -1 : it->second.milli();
}

// A kueue.x-k8s.io/v1beta1 object of `kind` named `name`, up to its "spec:".
std::string KueueHead(const std::string& kind, const std::string& name) {
  return "apiVersion: kueue.x-k8s.io/v1beta1\nkind: " + kind + "\nmetadata: {name: " + name +
         "}\nspec:\n";
}

TEST(DecodeTest, ClusterQueueFull) {
  api::Object o = MustDecode(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
  labels: {team: a}
  annotations: {note: "hello"}
  finalizers: [kueue.x-k8s.io/resource-in-use]
  creationTimestamp: "2026-01-01T00:00:00Z"
  resourceVersion: "42"
  generation: 3
  uid: 0000-1111
  managedFields: [{manager: kubectl}]
spec:
  cohort: all
  queueingStrategy: StrictFIFO
  namespaceSelector:
    matchLabels: {team: a}
    matchExpressions:
    - {key: env, operator: In, values: [prod, dev]}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - name: cpu
        nominalQuota: 10
        borrowingLimit: '500m'
        lendingLimit: 0.5
      - name: memory
        nominalQuota: 10Gi
    - name: spot
      resources:
      - {name: cpu, nominalQuota: 2e3}
      - {name: memory, nominalQuota: "1Ti"}
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
  flavorFungibility:
    whenCanBorrow: TryNextFlavor
    whenCanPreempt: TryNextFlavor
    preference: PreemptionOverBorrowing
  fairSharing: {weight: "2"}
  admissionChecks: [prov]
  stopPolicy: HoldAndDrain
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
status:
  pendingWorkloads: 3
)");
  ASSERT_EQ(o.kind, "ClusterQueue");
  EXPECT_EQ(o.api_version, "kueue.x-k8s.io/v1beta1");
  const auto& cq = As<api::ClusterQueue>(o);
  EXPECT_EQ(cq.metadata.name, "team-a");
  EXPECT_EQ(cq.metadata.labels.at("team"), "a");
  EXPECT_EQ(cq.metadata.annotations.at("note"), "hello");
  ASSERT_EQ(cq.metadata.finalizers.size(), 1u);
  ASSERT_TRUE(cq.metadata.creation_timestamp.has_value());
  EXPECT_EQ(cq.metadata.creation_timestamp->unix_ms, 1767225600000);
  EXPECT_EQ(cq.metadata.resource_version, "42");
  EXPECT_EQ(cq.metadata.generation, 3);
  EXPECT_EQ(cq.metadata.uid, "0000-1111");
  const auto& spec = cq.spec;
  EXPECT_EQ(spec.cohort, "all");
  EXPECT_EQ(spec.queueing_strategy, api::QueueingStrategy::kStrictFIFO);
  ASSERT_TRUE(spec.namespace_selector.has_value());
  EXPECT_EQ(spec.namespace_selector->match_labels.at("team"), "a");
  ASSERT_EQ(spec.namespace_selector->match_expressions.size(), 1u);
  EXPECT_EQ(spec.namespace_selector->match_expressions[0].op, "In");
  EXPECT_EQ(spec.namespace_selector->match_expressions[0].values.size(), 2u);
  ASSERT_EQ(spec.resource_groups.size(), 2u);
  const auto& rg = spec.resource_groups[0];
  EXPECT_EQ(rg.covered_resources, (std::vector<std::string>{"cpu", "memory"}));
  ASSERT_EQ(rg.flavors.size(), 2u);
  const auto& cpu = rg.flavors[0].resources[0];
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.nominal_quota.milli(), 10'000);
  ASSERT_TRUE(cpu.borrowing_limit.has_value());
  EXPECT_EQ(cpu.borrowing_limit->milli(), 500);
  ASSERT_TRUE(cpu.lending_limit.has_value());
  EXPECT_EQ(cpu.lending_limit->milli(), 500);
  EXPECT_EQ(rg.flavors[0].resources[1].nominal_quota.milli(), (int64_t{10} << 30) * 1000);
  EXPECT_FALSE(rg.flavors[0].resources[1].borrowing_limit.has_value());
  EXPECT_EQ(rg.flavors[1].name, "spot");
  EXPECT_EQ(rg.flavors[1].resources[0].nominal_quota.milli(), 2'000'000);
  EXPECT_EQ(rg.flavors[1].resources[1].nominal_quota.milli(), (int64_t{1} << 40) * 1000);
  EXPECT_EQ(spec.resource_groups[1].flavors[0].resources[0].name, "nvidia.com/gpu");
  EXPECT_EQ(spec.preemption.within_cluster_queue,
            api::WithinClusterQueuePolicy::kLowerOrNewerEqualPriority);
  EXPECT_EQ(spec.preemption.reclaim_within_cohort, api::ReclaimWithinCohortPolicy::kAny);
  EXPECT_EQ(spec.preemption.borrow_within_cohort.policy,
            api::BorrowWithinCohortPolicy::kLowerPriority);
  EXPECT_EQ(spec.preemption.borrow_within_cohort.max_priority_threshold, 100);
  EXPECT_EQ(spec.flavor_fungibility.when_can_borrow, api::FungibilityAction::kTryNextFlavor);
  EXPECT_EQ(spec.flavor_fungibility.when_can_preempt, api::FungibilityAction::kTryNextFlavor);
  EXPECT_EQ(spec.flavor_fungibility.preference,
            api::FungibilityPreference::kPreemptionOverBorrowing);
  EXPECT_DOUBLE_EQ(spec.fair_sharing.weight, 2.0);
  EXPECT_TRUE(spec.fair_sharing.weight_set);
  EXPECT_EQ(spec.admission_checks, (std::vector<std::string>{"prov"}));
  EXPECT_EQ(spec.stop_policy, api::StopPolicy::kHoldAndDrain);
}

TEST(DecodeTest, ClusterQueueDefaults) {
  api::Object o = MustDecode(KueueHead("ClusterQueue", "cq") + R"(  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]
)");
  const auto& spec = As<api::ClusterQueue>(o).spec;
  EXPECT_EQ(spec.queueing_strategy, api::QueueingStrategy::kBestEffortFIFO);
  EXPECT_FALSE(spec.namespace_selector.has_value());  // matches no namespace
  EXPECT_EQ(spec.preemption.within_cluster_queue, api::WithinClusterQueuePolicy::kNever);
  EXPECT_EQ(spec.preemption.reclaim_within_cohort, api::ReclaimWithinCohortPolicy::kNever);
  EXPECT_EQ(spec.preemption.borrow_within_cohort.policy, api::BorrowWithinCohortPolicy::kNever);
  EXPECT_FALSE(spec.preemption.borrow_within_cohort.max_priority_threshold.has_value());
  EXPECT_EQ(spec.flavor_fungibility.when_can_borrow, api::FungibilityAction::kMayStopSearch);
  EXPECT_EQ(spec.flavor_fungibility.when_can_preempt, api::FungibilityAction::kTryNextFlavor);
  EXPECT_EQ(spec.flavor_fungibility.preference, api::FungibilityPreference::kUnset);
  EXPECT_EQ(spec.stop_policy, api::StopPolicy::kNone);
  EXPECT_DOUBLE_EQ(spec.fair_sharing.weight, 1.0);
  EXPECT_FALSE(spec.fair_sharing.weight_set);
}

TEST(DecodeTest, NamespaceSelectorAbsentNullAndEmpty) {
  const std::string head = KueueHead("ClusterQueue", "cq");
  EXPECT_FALSE(As<api::ClusterQueue>(MustDecode(head + "  cohort: x\n"))
                   .spec.namespace_selector.has_value());
  EXPECT_FALSE(As<api::ClusterQueue>(MustDecode(head + "  namespaceSelector: null\n"))
                   .spec.namespace_selector.has_value());
  auto empty =
      As<api::ClusterQueue>(MustDecode(head + "  namespaceSelector: {}\n")).spec.namespace_selector;
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->match_labels.empty());
  EXPECT_TRUE(empty->Matches({{"any", "thing"}}));
}

TEST(DecodeTest, FlavorFungibilityDeprecatedNames) {
  api::Object o =
      MustDecode(KueueHead("ClusterQueue", "cq") +
                 R"(  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
)");
  const auto& ff = As<api::ClusterQueue>(o).spec.flavor_fungibility;
  EXPECT_EQ(ff.when_can_borrow, api::FungibilityAction::kMayStopSearch);
  EXPECT_EQ(ff.when_can_preempt, api::FungibilityAction::kMayStopSearch);
}

TEST(DecodeTest, FairSharingWeightForms) {
  const std::pair<std::string, double> cases[] = {{"\"2\"", 2.0},  {"0.5", 0.5}, {"1", 1.0},
                                                  {"'500m'", 0.5}, {"0", 0.0},   {"1.25", 1.25}};
  for (const auto& [text, want] : cases) {
    api::Object o = MustDecode(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\n"
        "spec:\n  fairSharing: {weight: " +
        text + "}\n");
    EXPECT_DOUBLE_EQ(As<api::Cohort>(o).fair_sharing.weight, want) << text;
    EXPECT_TRUE(As<api::Cohort>(o).fair_sharing.weight_set);
  }
}

TEST(DecodeTest, CohortVersions) {
  api::Object beta = MustDecode(KueueHead("Cohort", "child") + R"(  parentName: root
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4, lendingLimit: 1}]}]
)");
  EXPECT_EQ(As<api::Cohort>(beta).parent_name, "root");
  EXPECT_EQ(As<api::Cohort>(beta).resource_groups.size(), 1u);
  api::Object alpha = MustDecode(R"(
apiVersion: kueue.x-k8s.io/v1alpha1
kind: Cohort
metadata: {name: child}
spec: {parent: root}
)");
  EXPECT_EQ(alpha.api_version, "kueue.x-k8s.io/v1alpha1");
  EXPECT_EQ(As<api::Cohort>(alpha).parent_name, "root");
  // Each version knows only its own field name.
  EXPECT_FALSE(DecodeObject("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\n"
                            "metadata: {name: c}\nspec: {parentName: root}\n")
                   .ok());
  EXPECT_FALSE(DecodeObject("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\n"
                            "metadata: {name: c}\nspec: {parent: root}\n")
                   .ok());
}

TEST(DecodeTest, WorkloadWithPodTemplate) {
  api::Object o = MustDecode(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: job-1
  namespace: team-a
  ownerReferences:
  - {apiVersion: batch/v1, kind: Job, name: job, uid: u1, controller: true}
spec:
  queueName: user-queue
  priorityClassName: high
  priority: 100
  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass
  maximumExecutionTimeSeconds: 600
  podSets:
  - name: workers
    count: 4
    minCount: 2
    topologyRequest: {required: rack}
    template:
      metadata:
        creationTimestamp: null
        labels: {app: train}
        annotations: {a: b}
      spec:
        restartPolicy: Never
        priorityClassName: high
        priority: 100
        terminationGracePeriodSeconds: 30
        activeDeadlineSeconds: 3600
        nodeSelector: {cloud.com/accel: a100}
        serviceAccountName: runner
        volumes: [{name: data, emptyDir: {}}]
        securityContext: {runAsUser: 1000}
        schedulerName: default-scheduler
        hostNetwork: false
        dnsPolicy: ClusterFirst
        topologySpreadConstraints: []
        overhead: {cpu: 100m}
        resources: {requests: {cpu: 1500m}, limits: {memory: 2Gi}, claims: []}
        tolerations:
        - {key: spot, operator: Exists, effect: NoSchedule}
        - {key: gpu, operator: Equal, value: "true", effect: NoExecute, tolerationSeconds: 60}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - {key: zone, operator: In, values: [a, b]}
                matchFields:
                - {key: metadata.name, operator: In, values: [node-1]}
            preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 1
              preference: {matchExpressions: [{key: x, operator: Exists}]}
          podAntiAffinity: {}
        initContainers:
        - name: init
          image: busybox
          restartPolicy: Always
          resources: {requests: {cpu: 250m}}
        containers:
        - name: main
          image: trainer:1
          imagePullPolicy: IfNotPresent
          command: [python, train.py]
          args: ["--epochs", "3"]
          workingDir: /work
          env:
          - {name: A, value: "1"}
          - name: POD
            valueFrom: {fieldRef: {fieldPath: metadata.name}}
          ports: [{containerPort: 8080}]
          volumeMounts: [{name: data, mountPath: /data}]
          livenessProbe: {exec: {command: [true]}}
          securityContext: {privileged: false}
          resources:
            requests: {cpu: "2", memory: 4Gi, nvidia.com/gpu: 1}
            limits: {memory: 8Gi}
            claims: [{name: gpu}]
  - template:
      spec:
        containers: [{name: c, resources: {limits: {cpu: 1}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: workers
      flavors: {cpu: on-demand, nvidia.com/gpu: a100}
      resourceUsage: {cpu: "8", nvidia.com/gpu: "4"}
      count: 4
    - name: main
      flavors: {cpu: on-demand}
      resourceUsage: {cpu: "1"}
      count: 1
  conditions:
  - type: QuotaReserved
    status: "True"
    reason: QuotaReserved
    message: Quota reserved in ClusterQueue cq
    lastTransitionTime: "2026-01-01T00:00:05Z"
  admissionChecks:
  - {name: prov, state: Ready, lastTransitionTime: "2026-01-01T00:00:06Z", message: ""}
  requeueState: {count: 2, requeueAt: "2026-01-01T00:10:00Z"}
  reclaimablePods: [{name: workers, count: 1}]
)");
  const auto& wl = As<api::Workload>(o);
  EXPECT_EQ(wl.metadata.namespace_, "team-a");
  ASSERT_EQ(wl.metadata.owner_references.size(), 1u);
  EXPECT_TRUE(wl.metadata.owner_references[0].controller);
  EXPECT_EQ(wl.spec.queue_name, "user-queue");
  EXPECT_EQ(wl.spec.priority, 100);
  EXPECT_EQ(wl.spec.priority_class_source, api::kWorkloadPriorityClassSource);
  EXPECT_EQ(wl.spec.maximum_execution_time_seconds, 600);
  EXPECT_TRUE(wl.spec.active);
  ASSERT_EQ(wl.spec.pod_sets.size(), 2u);
  const api::PodSet& ps = wl.spec.pod_sets[0];
  EXPECT_EQ(ps.name, "workers");
  EXPECT_EQ(ps.count, 4);
  EXPECT_EQ(ps.min_count, 2);
  EXPECT_EQ(ps.template_.labels.at("app"), "train");
  EXPECT_EQ(ps.template_.annotations.at("a"), "b");
  const api::PodSpec& pod = ps.template_.spec;
  EXPECT_EQ(pod.restart_policy, "Never");
  EXPECT_EQ(pod.priority_class_name, "high");
  EXPECT_EQ(pod.priority, 100);
  EXPECT_EQ(pod.termination_grace_period_seconds, 30);
  EXPECT_EQ(pod.active_deadline_seconds, 3600);
  EXPECT_EQ(pod.node_selector.at("cloud.com/accel"), "a100");
  EXPECT_EQ(Milli(pod.overhead, "cpu"), 100);
  ASSERT_TRUE(pod.resources.has_value());  // pod-level (PodLevelResources)
  EXPECT_EQ(Milli(pod.resources->requests, "cpu"), 1500);
  EXPECT_EQ(Milli(pod.resources->limits, "memory"), (int64_t{2} << 30) * 1000);
  ASSERT_EQ(pod.tolerations.size(), 2u);
  EXPECT_EQ(pod.tolerations[1].toleration_seconds, 60);
  ASSERT_TRUE(pod.node_affinity.required_terms.has_value());
  ASSERT_EQ(pod.node_affinity.required_terms->size(), 1u);
  EXPECT_EQ((*pod.node_affinity.required_terms)[0].match_expressions[0].values.size(), 2u);
  EXPECT_EQ((*pod.node_affinity.required_terms)[0].match_fields[0].key, "metadata.name");
  ASSERT_EQ(pod.init_containers.size(), 1u);
  EXPECT_EQ(pod.init_containers[0].restart_policy, "Always");
  ASSERT_EQ(pod.containers.size(), 1u);
  const api::Container& c = pod.containers[0];
  EXPECT_EQ(c.image, "trainer:1");
  EXPECT_EQ(c.command, (std::vector<std::string>{"python", "train.py"}));
  EXPECT_EQ(c.args, (std::vector<std::string>{"--epochs", "3"}));
  EXPECT_EQ(c.working_dir, "/work");
  ASSERT_EQ(c.env.size(), 2u);
  EXPECT_EQ(c.env[0].value, "1");
  EXPECT_EQ(c.env[1].name, "POD");
  EXPECT_EQ(c.env[1].value, "");
  EXPECT_EQ(Milli(c.resources.requests, "cpu"), 2000);
  EXPECT_EQ(Milli(c.resources.requests, "memory"), (int64_t{4} << 30) * 1000);
  EXPECT_EQ(Milli(c.resources.requests, "nvidia.com/gpu"), 1000);
  EXPECT_EQ(Milli(c.resources.limits, "memory"), (int64_t{8} << 30) * 1000);
  // Second pod set: name and count defaulted.
  EXPECT_EQ(wl.spec.pod_sets[1].name, "main");
  EXPECT_EQ(wl.spec.pod_sets[1].count, 1);
  EXPECT_FALSE(wl.spec.pod_sets[1].min_count.has_value());
  EXPECT_FALSE(wl.spec.pod_sets[1].template_.spec.node_affinity.required_terms.has_value());
  EXPECT_FALSE(wl.spec.pod_sets[1].template_.spec.resources.has_value());
  // Status.
  ASSERT_TRUE(wl.status.admission.has_value());
  EXPECT_EQ(wl.status.admission->cluster_queue, "cq");
  ASSERT_EQ(wl.status.admission->pod_set_assignments.size(), 2u);
  EXPECT_EQ(wl.status.admission->pod_set_assignments[0].flavors.at("nvidia.com/gpu"), "a100");
  EXPECT_EQ(Milli(wl.status.admission->pod_set_assignments[0].resource_usage, "cpu"), 8000);
  EXPECT_EQ(wl.status.admission->pod_set_assignments[0].count, 4);
  ASSERT_EQ(wl.status.conditions.size(), 1u);
  EXPECT_TRUE(api::IsConditionTrue(wl.status.conditions, api::kQuotaReserved));
  ASSERT_TRUE(wl.status.conditions[0].last_transition_time.has_value());
  ASSERT_EQ(wl.status.admission_checks.size(), 1u);
  EXPECT_EQ(wl.status.admission_checks[0].state, "Ready");
  ASSERT_TRUE(wl.status.requeue_state.has_value());
  EXPECT_EQ(wl.status.requeue_state->count, 2);
  ASSERT_EQ(wl.status.reclaimable_pods.size(), 1u);
  EXPECT_EQ(wl.status.reclaimable_pods[0].count, 1);
}

TEST(DecodeTest, WorkloadActiveFalseAndPodRequests) {
  api::Object o = MustDecode(KueueHead("Workload", "w") + R"(  active: false
  podSets:
  - count: 3
    template:
      spec:
        containers:
        - {name: a, resources: {requests: {cpu: 1}}}
        - {name: b, resources: {requests: {cpu: 500m}}}
)");
  const auto& wl = As<api::Workload>(o);
  EXPECT_FALSE(wl.spec.active);
  EXPECT_EQ(Milli(api::PodRequests(wl.spec.pod_sets[0].template_.spec), "cpu"), 1500);
}

TEST(DecodeTest, SmallKinds) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeLabels: {cloud.com/spot: "true"}
  nodeTaints: [{key: spot, value: "true", effect: NoSchedule}]
  tolerations: [{key: spot, operator: Exists}]
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq, stopPolicy: Hold}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: high}
value: 10000
description: important
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: -5
globalDefault: true
preemptionPolicy: Never
description: background
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: cfg}
status:
  conditions: [{type: Active, status: "True", reason: Active, message: ok,
                lastTransitionTime: "2026-01-01T00:00:00Z"}]
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels: {kubernetes.io/metadata.name: team-a}
spec: {finalizers: [kubernetes]}
status: {phase: Active}
)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 6u);
  const auto& rf = As<api::ResourceFlavor>((*r)[0].object);
  EXPECT_EQ(rf.node_labels.at("cloud.com/spot"), "true");
  ASSERT_EQ(rf.node_taints.size(), 1u);
  EXPECT_EQ(rf.node_taints[0].effect, "NoSchedule");
  EXPECT_EQ(rf.tolerations[0].op, "Exists");
  EXPECT_EQ(rf.topology_name, "default");
  const auto& lq = As<api::LocalQueue>((*r)[1].object);
  EXPECT_EQ(lq.cluster_queue, "cq");
  EXPECT_EQ(lq.stop_policy, api::StopPolicy::kHold);
  EXPECT_EQ(lq.metadata.namespace_, "team-a");
  const auto& wpc = As<api::WorkloadPriorityClass>((*r)[2].object);
  EXPECT_EQ(wpc.value, 10000);
  EXPECT_EQ(wpc.description, "important");
  const auto& pc = As<api::PriorityClass>((*r)[3].object);
  EXPECT_EQ(pc.value, -5);
  EXPECT_TRUE(pc.global_default);
  EXPECT_EQ(pc.preemption_policy, "Never");
  const auto& ac = As<api::AdmissionCheck>((*r)[4].object);
  EXPECT_EQ(ac.controller_name, "kueue.x-k8s.io/provisioning-request");
  EXPECT_EQ(ac.retry_delay_minutes, 15);  // CRD default
  EXPECT_TRUE(api::IsConditionTrue(ac.conditions, "Active"));
  const auto& ns = As<api::Namespace>((*r)[5].object);
  EXPECT_EQ(ns.metadata.labels.at("kubernetes.io/metadata.name"), "team-a");
}

TEST(DecodeTest, LocalQueueDefaults) {
  api::Object o = MustDecode(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
      "metadata: {name: lq, namespace: ns}\nspec: {clusterQueue: cq}\n");
  EXPECT_EQ(As<api::LocalQueue>(o).stop_policy, api::StopPolicy::kNone);
}

TEST(DecodeTest, ClusterScopedNamespaceIsDropped) {
  api::Object o = MustDecode(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
      "metadata: {name: f, namespace: default}\n");
  EXPECT_EQ(As<api::ResourceFlavor>(o).metadata.namespace_, "");
}

TEST(DecodeTest, Configuration) {
  api::Object o = MustDecode(R"(
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
namespace: kueue-system
health: {healthProbeBindAddress: ":8081"}
metrics: {bindAddress: ":8080", enableClusterQueueResources: true}
webhook: {port: 9443}
leaderElection: {leaderElect: true, resourceName: c1f6bfd2.kueue.x-k8s.io}
controller: {groupKindConcurrency: {Job.batch: 5}}
pprofBindAddress: ":8083"
clientConnection: {qps: 50, burst: 100}
manageJobsWithoutQueueName: false
managedJobsNamespaceSelector:
  matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]
internalCertManagement: {enable: true}
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob]
queueVisibility: {updateIntervalSeconds: 5}
multiKueue: {gcInterval: 1m}
resources: {excludeResourcePrefixes: [example.com]}
featureGates: {PartialAdmission: true}
objectRetentionPolicies: {workloads: {afterFinished: 1h}}
admissionFairSharing: {usageHalfLifeTime: 168h}
fairSharing:
  enable: true
  preemptionStrategies: [LessThanInitialShare]
waitForPodsReady:
  enable: true
  timeout: 10m
  recoveryTimeout: 3m
  requeuingStrategy:
    timestamp: Creation
    backoffLimitCount: 5
    backoffBaseSeconds: 10
    backoffMaxSeconds: 600
)");
  const auto& c = As<api::Configuration>(o);
  EXPECT_TRUE(c.fair_sharing.enable);
  EXPECT_EQ(c.fair_sharing.preemption_strategies,
            std::vector<api::FairSharingStrategy>{api::FairSharingStrategy::kLessThanInitialShare});
  const auto& w = c.wait_for_pods_ready;
  EXPECT_TRUE(w.enable);
  EXPECT_EQ(w.timeout.ms, 600'000);
  EXPECT_TRUE(w.block_admission);  // defaults to enable
  ASSERT_TRUE(w.recovery_timeout.has_value());
  EXPECT_EQ(w.recovery_timeout->ms, 180'000);
  EXPECT_EQ(w.requeuing_strategy.timestamp, api::RequeuingTimestamp::kCreation);
  EXPECT_EQ(w.requeuing_strategy.backoff_limit_count, 5);
  EXPECT_EQ(w.requeuing_strategy.backoff_base_seconds, 10);
  EXPECT_EQ(w.requeuing_strategy.backoff_max_seconds, 600);
}

TEST(DecodeTest, ConfigurationDefaults) {
  api::Object o = MustDecode(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "waitForPodsReady: {enable: false}\n");
  const auto& c = As<api::Configuration>(o);
  EXPECT_FALSE(c.fair_sharing.enable);
  EXPECT_EQ(c.fair_sharing.preemption_strategies.size(), 2u);
  EXPECT_FALSE(c.wait_for_pods_ready.block_admission);
  EXPECT_EQ(c.wait_for_pods_ready.timeout.ms, 300'000);
  EXPECT_EQ(c.wait_for_pods_ready.requeuing_strategy.backoff_base_seconds, 60);
  EXPECT_EQ(c.wait_for_pods_ready.requeuing_strategy.backoff_max_seconds, 3600);
  EXPECT_FALSE(c.wait_for_pods_ready.requeuing_strategy.backoff_limit_count.has_value());
  api::Object explicit_block = MustDecode(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "waitForPodsReady: {enable: true, blockAdmission: false}\n");
  EXPECT_FALSE(As<api::Configuration>(explicit_block).wait_for_pods_ready.block_admission);
}

TEST(DecodeTest, QuantitySpellings) {
  const std::pair<std::string, int64_t> cases[] = {
      {"10", 10'000},     {"'10'", 10'000}, {"\"500m\"", 500}, {"0.5", 500},    {"2e3", 2'000'000},
      {"1Ki", 1'024'000}, {"+1", 1000},     {"!!str 3", 3000}, {"'1.5'", 1500}, {"0", 0},
  };
  for (const auto& [text, milli] : cases) {
    api::Object o = MustDecode(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
        "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
        "      resources:\n      - name: cpu\n        nominalQuota: " +
        text + "\n");
    EXPECT_EQ(As<api::ClusterQueue>(o)
                  .spec.resource_groups[0]
                  .flavors[0]
                  .resources[0]
                  .nominal_quota.milli(),
              milli)
        << text;
  }
}

TEST(DecodeTest, YamlBooleanSpellings) {
  for (const char* yes : {"true", "True", "TRUE", "yes", "on", "!!bool true"}) {
    api::Object o =
        MustDecode(std::string("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\n"
                               "metadata: {name: w}\nspec:\n  active: ") +
                   yes + "\n  podSets: [{template: {spec: {containers: [{name: c}]}}}]\n");
    EXPECT_TRUE(As<api::Workload>(o).spec.active) << yes;
  }
  for (const char* no : {"false", "False", "no", "off", "N"}) {
    api::Object o =
        MustDecode(std::string("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\n"
                               "metadata: {name: w}\nspec:\n  active: ") +
                   no + "\n  podSets: [{template: {spec: {containers: [{name: c}]}}}]\n");
    EXPECT_FALSE(As<api::Workload>(o).spec.active) << no;
  }
}

TEST(DecodeTest, NullFieldsAreUnset) {
  api::Object o = MustDecode(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
  labels:
  annotations: ~
  creationTimestamp: null
spec:
  cohort: null
  queueingStrategy:
  preemption: null
  resourceGroups: ~
status: null
)");
  const auto& cq = As<api::ClusterQueue>(o);
  EXPECT_TRUE(cq.metadata.labels.empty());
  EXPECT_FALSE(cq.metadata.creation_timestamp.has_value());
  EXPECT_EQ(cq.spec.cohort, "");
  EXPECT_EQ(cq.spec.queueing_strategy, api::QueueingStrategy::kBestEffortFIFO);
  EXPECT_TRUE(cq.spec.resource_groups.empty());
}

TEST(DecodeTest, NullLabelValueIsEmpty) {
  api::Object o = MustDecode(
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n  labels: {a: null, b: ''}\n");
  const auto& labels = As<api::Namespace>(o).metadata.labels;
  EXPECT_EQ(labels.at("a"), "");
  EXPECT_EQ(labels.at("b"), "");
}

TEST(DecodeTest, AnchorsAndAliases) {
  api::Object o = MustDecode(KueueHead("ClusterQueue", "cq") + R"(  resourceGroups:
  - coveredResources: &res [cpu, memory]
    flavors:
    - name: a
      resources: &quota
      - {name: cpu, nominalQuota: 1}
      - {name: memory, nominalQuota: 1Gi}
    - name: b
      resources: *quota
)");
  const auto& rg = As<api::ClusterQueue>(o).spec.resource_groups[0];
  ASSERT_EQ(rg.flavors.size(), 2u);
  EXPECT_EQ(rg.flavors[1].resources.size(), 2u);
  EXPECT_EQ(rg.flavors[1].resources[1].nominal_quota.milli(), (int64_t{1} << 30) * 1000);
}

TEST(DecodeTest, JsonDocument) {
  api::Object o = MustDecode(R"({
	"apiVersion": "kueue.x-k8s.io/v1beta1",
	"kind": "ClusterQueue",
	"metadata": {"name": "cq", "labels": {"a": "b"}},
	"spec": {
		"namespaceSelector": {},
		"resourceGroups": [{
			"coveredResources": ["cpu"],
			"flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 4}]}]
		}],
		"fairSharing": {"weight": 0.5},
		"preemption": {"withinClusterQueue": "LowerPriority"}
	}
})");
  const auto& cq = As<api::ClusterQueue>(o);
  EXPECT_EQ(cq.metadata.labels.at("a"), "b");
  EXPECT_TRUE(cq.spec.namespace_selector.has_value());
  EXPECT_EQ(cq.spec.resource_groups[0].flavors[0].resources[0].nominal_quota.milli(), 4000);
  EXPECT_DOUBLE_EQ(cq.spec.fair_sharing.weight, 0.5);
  EXPECT_EQ(cq.spec.preemption.within_cluster_queue, api::WithinClusterQueuePolicy::kLowerPriority);
}

TEST(DecodeTest, JsonListOfItems) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(R"({"apiVersion": "v1", "kind": "List",
 "metadata": {"resourceVersion": ""},
 "items": [
  {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "a"}},
  {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
   "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}
 ]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].object.kind, "ResourceFlavor");
  EXPECT_EQ((*r)[1].object.kind, "LocalQueue");
  EXPECT_EQ((*r)[0].document_index, 0);
  EXPECT_EQ((*r)[0].line, 4);
  EXPECT_EQ((*r)[1].line, 5);
}

TEST(DecodeTest, TypedListItemsInheritKind) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavorList
metadata: {}
items:
- metadata: {name: a}
- metadata: {name: b}
  spec: {nodeLabels: {x: y}}
)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].object.kind, "ResourceFlavor");
  EXPECT_EQ(As<api::ResourceFlavor>((*r)[1].object).metadata.name, "b");
}

TEST(DecodeTest, EmptyListAndEmptyInput) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments("apiVersion: v1\nkind: List\nitems: []\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->empty());
  for (const char* text : {"", "\n", "# just a comment\n", "---\n", "---\n---\n...\n", "~\n"}) {
    Result<std::vector<DecodedObject>> e = DecodeDocuments(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    EXPECT_TRUE(e->empty()) << text;
  }
}

TEST(DecodeTest, DocumentIndexAndLineCountEmptyDocuments) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(
      "---\n"             // line 1: document 0 (empty)
      "---\n"             // line 2: document 1
      "apiVersion: v1\n"  // line 3
      "kind: Namespace\n"
      "metadata: {name: a}\n"
      "---\n"  // line 6: document 2
      "# comment\n"
      "apiVersion: v1\n"  // line 8
      "kind: Namespace\n"
      "metadata: {name: b}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].document_index, 1);
  EXPECT_EQ((*r)[0].line, 3);
  EXPECT_EQ((*r)[1].document_index, 2);
  EXPECT_EQ((*r)[1].line, 8);
}

TEST(DecodeTest, SkipKinds) {
  DecodeOptions options;
  options.skip_kinds = {"conformance/v1/Expectation"};
  Result<std::vector<DecodedObject>> r = DecodeDocuments(R"(
apiVersion: conformance/v1
kind: Expectation
anything: [goes, {here: 1}]
---
apiVersion: v1
kind: Namespace
metadata: {name: a}
)",
                                                         options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].document_index, 1);
  // Without the option the same stream fails.
  Result<std::vector<DecodedObject>> strict =
      DecodeDocuments("apiVersion: conformance/v1\nkind: Expectation\n");
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(
      strict.status().message().find("unsupported apiVersion/kind \"conformance/v1/Expectation\""),
      std::string::npos)
      << strict.status().message();
}

TEST(DecodeTest, ValidateOptionOff) {
  DecodeOptions options;
  options.validate = false;
  // Negative quota decodes; only validation rejects it.
  const char* text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
      "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
      "    - {name: f, resources: [{name: cpu, nominalQuota: -1}]}\n";
  EXPECT_TRUE(DecodeObject(text, options).ok());
  EXPECT_FALSE(DecodeObject(text).ok());
}

TEST(DecodeObjectTest, ExactlyOne) {
  EXPECT_FALSE(DecodeObject("").ok());
  Result<api::Object> two = DecodeObject(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), "expected exactly one object, found 2");
  EXPECT_TRUE(
      DecodeObject("---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n").ok());
}

TEST(DecodeTest, TopologyBothVersions) {
  for (const char* version : {"v1beta1", "v1beta2"}) {
    api::Object o = MustDecode(std::string("apiVersion: kueue.x-k8s.io/") + version + R"(
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.com/block
  - nodeLabel: cloud.com/rack
  - nodeLabel: kubernetes.io/hostname
)");
    const auto& t = As<api::Topology>(o);
    EXPECT_EQ(t.metadata.name, "default");
    EXPECT_EQ(t.levels, (std::vector<std::string>{"cloud.com/block", "cloud.com/rack",
                                                  "kubernetes.io/hostname"}))
        << version;
  }
}

// What `kubectl get node -o yaml` prints: every field decodes, the ones
// topology-aware scheduling does not read are ignored.
TEST(DecodeTest, NodeAsKubectlPrintsIt) {
  api::Object o = MustDecode(R"(
apiVersion: v1
kind: Node
metadata:
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    volumes.kubernetes.io/controller-managed-attach-detach: "true"
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels:
    beta.kubernetes.io/arch: amd64
    cloud.com/block: b1
    cloud.com/rack: r1
    kubernetes.io/hostname: node-1
  name: node-1
  resourceVersion: "4242"
  uid: 5d3c0f7e-0000-4000-8000-000000000001
spec:
  podCIDR: 10.244.0.0/24
  podCIDRs: [10.244.0.0/24]
  providerID: kind://docker/kind/node-1
  taints:
  - effect: NoSchedule
    key: gpu
    value: "true"
    timeAdded: "2026-01-01T00:00:00Z"
  unschedulable: true
status:
  addresses:
  - {address: 172.18.0.2, type: InternalIP}
  - {address: node-1, type: Hostname}
  allocatable: {cpu: "8", ephemeral-storage: 101445540Ki, hugepages-1Gi: "0",
                memory: 32Gi, nvidia.com/gpu: "4", pods: "110"}
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  conditions:
  - lastHeartbeatTime: "2026-01-01T00:00:00Z"
    lastTransitionTime: "2026-01-01T00:00:00Z"
    message: kubelet has sufficient memory available
    reason: KubeletHasSufficientMemory
    status: "False"
    type: MemoryPressure
  - lastHeartbeatTime: "2026-01-01T00:00:00Z"
    lastTransitionTime: "2026-01-01T00:00:00Z"
    message: kubelet is posting ready status
    reason: KubeletReady
    status: "True"
    type: Ready
  daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
  images:
  - names: [registry.k8s.io/pause:3.10]
    sizeBytes: 320368
  nodeInfo: {architecture: amd64, kubeletVersion: v1.34.0, osImage: Debian}
  runtimeHandlers: [{features: {recursiveReadOnlyMounts: true}, name: runc}]
  features: {supplementalGroupsPolicy: true}
)");
  const auto& n = As<api::Node>(o);
  EXPECT_EQ(n.metadata.name, "node-1");
  EXPECT_EQ(n.metadata.labels.at("cloud.com/rack"), "r1");
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].key, "gpu");
  EXPECT_EQ(n.taints[0].effect, "NoSchedule");
  EXPECT_EQ(Milli(n.allocatable, "cpu"), 8000);
  EXPECT_EQ(Milli(n.allocatable, "nvidia.com/gpu"), 4000);
  EXPECT_EQ(Milli(n.allocatable, "pods"), 110000);
  EXPECT_EQ(Milli(n.allocatable, "memory"), 32LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_TRUE(n.ready);  // MemoryPressure False is not Ready False
}

TEST(DecodeTest, NodeReadyOnlyFalseWhenReadyConditionSaysFalse) {
  auto ready = [](const std::string& conditions) {
    return As<api::Node>(MustDecode("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
                                    "status:\n  conditions: " +
                                    conditions + "\n"))
        .ready;
  };
  EXPECT_TRUE(ready("[]"));
  EXPECT_TRUE(ready("[{type: Ready, status: \"True\"}]"));
  EXPECT_TRUE(ready("[{type: Ready, status: Unknown}]"));
  EXPECT_FALSE(ready("[{type: Ready, status: \"False\"}]"));
  EXPECT_TRUE(As<api::Node>(MustDecode("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")).ready);
}

// What `kubectl get pod -o yaml` prints for a running pod.
TEST(DecodeTest, PodAsKubectlPrintsIt) {
  api::Object o = MustDecode(R"(
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: web}
  name: web-1
  namespace: default
  resourceVersion: "77"
  uid: 5d3c0f7e-0000-4000-8000-000000000002
spec:
  containers:
  - image: nginx
    imagePullPolicy: Always
    name: web
    resources:
      requests: {cpu: 500m, memory: 1Gi}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - {mountPath: /var/run/secrets/kubernetes.io/serviceaccount, name: kube-api-access, readOnly: true}
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  nodeName: node-1
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - {effect: NoExecute, key: node.kubernetes.io/not-ready, operator: Exists, tolerationSeconds: 300}
  volumes:
  - name: kube-api-access
    projected: {defaultMode: 420, sources: [{serviceAccountToken: {expirationSeconds: 3607, path: token}}]}
status:
  conditions:
  - {lastProbeTime: null, lastTransitionTime: "2026-01-01T00:00:00Z", status: "True", type: Ready}
  containerStatuses:
  - {containerID: "containerd://abc", image: "docker.io/library/nginx:latest", name: web, ready: true,
     restartCount: 0, started: true, state: {running: {startedAt: "2026-01-01T00:00:01Z"}}}
  hostIP: 172.18.0.2
  hostIPs: [{ip: 172.18.0.2}]
  phase: Running
  podIP: 10.244.0.5
  podIPs: [{ip: 10.244.0.5}]
  qosClass: Burstable
  startTime: "2026-01-01T00:00:00Z"
)");
  const auto& p = As<api::Pod>(o);
  EXPECT_EQ(p.metadata.namespace_, "default");
  EXPECT_EQ(p.metadata.name, "web-1");
  EXPECT_EQ(p.node_name, "node-1");
  EXPECT_EQ(p.phase, "Running");
  ASSERT_EQ(p.spec.containers.size(), 1u);
  EXPECT_EQ(Milli(p.spec.containers[0].resources.requests, "cpu"), 500);
  EXPECT_EQ(p.spec.tolerations.size(), 1u);
}

TEST(DecodeTest, WorkloadTopologyRequestAndAssignment) {
  api::Object o = MustDecode(KueueHead("Workload", "w") + R"(  podSets:
  - name: workers
    count: 4
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: 1}}}]
    topologyRequest:
      required: cloud.com/rack
      podIndexLabel: kubernetes.io/job-completion-index
      subGroupIndexLabel: jobset.sigs.k8s.io/job-index
      subGroupCount: 2
      podSetGroupName: group-a
      podSetSliceRequiredTopology: kubernetes.io/hostname
      podSetSliceSize: 2
  - name: launcher
    template:
      spec:
        containers: [{name: c}]
    topologyRequest: {unconstrained: true}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: workers
      flavors: {cpu: tas}
      count: 4
      topologyAssignment:
        levels: [cloud.com/rack, kubernetes.io/hostname]
        domains:
        - {values: [r1, node-1], count: 2}
        - {values: [r1, node-2], count: 2}
      delayedTopologyRequest: Ready
    - name: launcher
      flavors: {cpu: tas}
      count: 1
)");
  const auto& wl = As<api::Workload>(o);
  ASSERT_EQ(wl.spec.pod_sets.size(), 2u);
  const auto& req = wl.spec.pod_sets[0].topology_request;
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->required, "cloud.com/rack");
  EXPECT_FALSE(req->preferred.has_value());
  EXPECT_FALSE(req->unconstrained.has_value());
  EXPECT_EQ(req->pod_index_label, "kubernetes.io/job-completion-index");
  EXPECT_EQ(req->sub_group_index_label, "jobset.sigs.k8s.io/job-index");
  EXPECT_EQ(req->sub_group_count, 2);
  EXPECT_EQ(req->pod_set_group_name, "group-a");
  EXPECT_EQ(req->pod_set_slice_required_topology, "kubernetes.io/hostname");
  EXPECT_EQ(req->pod_set_slice_size, 2);
  ASSERT_TRUE(wl.spec.pod_sets[1].topology_request.has_value());
  EXPECT_EQ(wl.spec.pod_sets[1].topology_request->unconstrained, true);
  ASSERT_TRUE(wl.status.admission.has_value());
  const auto& psas = wl.status.admission->pod_set_assignments;
  ASSERT_EQ(psas.size(), 2u);
  ASSERT_TRUE(psas[0].topology_assignment.has_value());
  const api::TopologyAssignment& ta = *psas[0].topology_assignment;
  EXPECT_EQ(ta.levels, (std::vector<std::string>{"cloud.com/rack", "kubernetes.io/hostname"}));
  ASSERT_EQ(ta.domains.size(), 2u);
  EXPECT_EQ(ta.domains[1].values, (std::vector<std::string>{"r1", "node-2"}));
  EXPECT_EQ(ta.domains[1].count, 2);
  EXPECT_FALSE(psas[1].topology_assignment.has_value());
  EXPECT_FALSE(wl.spec.pod_sets[0].template_.spec.containers.empty());
}

}  // namespace
}  // namespace kuota::codec
