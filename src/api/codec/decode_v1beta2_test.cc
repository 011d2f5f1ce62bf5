// Decoding of kueue.x-k8s.io/v1beta2 and config.kueue.x-k8s.io/v1beta2:
// each kind reads into the same api struct as its v1beta1 twin (checked
// against api/conversion's v1beta2 -> v1beta1 conversion), and v1beta1-only
// fields are errors that name the field and its line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/codec/decode.h"
#include "api/codec/decode_test_util.h"
#include "api/conversion/kueue_conversion.h"
#include "api/priority_class.h"

namespace kuota::codec {
namespace {

using testing::DecodeErrorOf;

using Json = nlohmann::json;

template <typename T>
T MustDecodeAs(std::string_view text) {
  Result<api::Object> r = DecodeObject(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << text;
  if (!r.ok()) return T{};
  const T* v = std::get_if<T>(&r->value);
  EXPECT_NE(v, nullptr) << text;
  return v == nullptr ? T{} : *v;
}

// Decodes a v1beta2 object (JSON text is YAML) and its v1beta1 form made by
// api/conversion, so each test can compare what the two versions read as.
template <typename T>
std::pair<T, T> DecodeBothForms(const Json& v1beta2) {
  Result<Json> v1beta1 = conversion::Convert(v1beta2, conversion::kV1beta1);
  EXPECT_TRUE(v1beta1.ok()) << v1beta1.status().ToString();
  if (!v1beta1.ok()) return {};
  return {MustDecodeAs<T>(v1beta2.dump()), MustDecodeAs<T>(v1beta1->dump())};
}

const Json kResourceGroups = Json::parse(R"([{"coveredResources": ["cpu"],
  "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "4",
                                          "borrowingLimit": "2"}]}]}])");

TEST(DecodeV1beta2Test, ClusterQueueReadsAsItsV1beta1Twin) {
  Json cq = {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
             {"kind", "ClusterQueue"},
             {"metadata", {{"name", "cq"}}},
             {"spec",
              {{"cohortName", "all"},
               {"resourceGroups", kResourceGroups},
               {"queueingStrategy", "StrictFIFO"},
               {"flavorFungibility", {{"whenCanBorrow", "TryNextFlavor"}}},
               {"admissionChecksStrategy",
                {{"admissionChecks", {{{"name", "check"}, {"onFlavors", {"f"}}}}}}},
               {"preemption", {{"reclaimWithinCohort", "Any"}}}}}};
  auto [v2, v1] = DecodeBothForms<api::ClusterQueue>(cq);
  EXPECT_EQ(v2.spec.cohort, "all");
  EXPECT_EQ(v2.spec.cohort, v1.spec.cohort);
  ASSERT_EQ(v2.spec.resource_groups.size(), 1u);
  EXPECT_EQ(v2.spec.resource_groups[0].flavors[0].resources[0].borrowing_limit->milli(), 2000);
  EXPECT_EQ(v2.spec.queueing_strategy, api::QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(v2.spec.flavor_fungibility.when_can_borrow, api::FungibilityAction::kTryNextFlavor);
  EXPECT_EQ(v2.spec.flavor_fungibility.when_can_borrow, v1.spec.flavor_fungibility.when_can_borrow);
  ASSERT_EQ(v2.spec.admission_checks_strategy.size(), 1u);
  EXPECT_EQ(v2.spec.admission_checks_strategy[0].on_flavors, std::vector<std::string>{"f"});
  EXPECT_EQ(v1.spec.admission_checks_strategy.size(), 1u);
  EXPECT_EQ(v2.spec.preemption.reclaim_within_cohort, api::ReclaimWithinCohortPolicy::kAny);
}

TEST(DecodeV1beta2Test, WorkloadPriorityClassRef) {
  for (const auto& [group, kind, source] :
       {std::tuple{"kueue.x-k8s.io", "WorkloadPriorityClass", api::kWorkloadPriorityClassSource},
        std::tuple{"scheduling.k8s.io", "PriorityClass", api::kPodPriorityClassSource}}) {
    Json wl = {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
               {"kind", "Workload"},
               {"metadata", {{"name", "w"}, {"namespace", "ns"}}},
               {"spec",
                {{"queueName", "lq"},
                 {"priorityClassRef", {{"group", group}, {"kind", kind}, {"name", "high"}}},
                 {"priority", 100},
                 {"podSets",
                  {{{"name", "main"},
                    {"count", 2},
                    {"template",
                     {{"spec",
                       {{"containers",
                         {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}}}}}}}},
               {"status", {{"accumulatedPastExecutionTimeSeconds", 30}}}};
    auto [v2, v1] = DecodeBothForms<api::Workload>(wl);
    EXPECT_EQ(v2.spec.priority_class_name, "high") << kind;
    EXPECT_EQ(v2.spec.priority_class_source, source) << kind;
    EXPECT_EQ(v2.spec.priority_class_source, v1.spec.priority_class_source) << kind;
    EXPECT_EQ(v2.spec.priority, 100);
    EXPECT_EQ(v2.spec.queue_name, "lq");
    ASSERT_EQ(v2.spec.pod_sets.size(), 1u);
    EXPECT_EQ(v2.spec.pod_sets[0].count, 2);
  }
}

TEST(DecodeV1beta2Test, UnchangedKindsAndAdmissionCheck) {
  auto rf = MustDecodeAs<api::ResourceFlavor>(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n"
      "spec: {nodeLabels: {pool: a}}\n");
  EXPECT_EQ(rf.node_labels.at("pool"), "a");
  auto cohort = MustDecodeAs<api::Cohort>(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c}\n"
      "spec: {parentName: root}\n");
  EXPECT_EQ(cohort.parent_name, "root");
  auto lq = MustDecodeAs<api::LocalQueue>(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: "
      "ns}\nspec: {clusterQueue: cq}\nstatus: {flavorsUsage: []}\n");
  EXPECT_EQ(lq.cluster_queue, "cq");
  auto wpc = MustDecodeAs<api::WorkloadPriorityClass>(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
      "value: 7\n");
  EXPECT_EQ(wpc.value, 7);
  auto [ac2, ac1] =
      DecodeBothForms<api::AdmissionCheck>(Json{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                                {"kind", "AdmissionCheck"},
                                                {"metadata", {{"name", "ac"}}},
                                                {"spec", {{"controllerName", "x"}}}});
  EXPECT_EQ(ac2.controller_name, "x");
  EXPECT_EQ(ac2.retry_delay_minutes, ac1.retry_delay_minutes);
}

TEST(DecodeV1beta2Test, TypedListAndApiVersionKept) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueueList\nitems:\n"
      "- metadata: {name: a}\n  spec: {cohortName: all}\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].object.api_version, "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(std::get<api::ClusterQueue>((*r)[0].object.value).spec.cohort, "all");
}

TEST(DecodeV1beta2Test, Configuration) {
  Json config = {{"apiVersion", "config.kueue.x-k8s.io/v1beta2"},
                 {"kind", "Configuration"},
                 {"fairSharing", {{"preemptionStrategies", {"LessThanInitialShare"}}}},
                 {"waitForPodsReady", {{"timeout", "5m"}}},
                 {"integrations", {{"frameworks", {"batch/job"}}}}};
  auto [v2, v1] = DecodeBothForms<api::Configuration>(config);
  EXPECT_TRUE(v2.fair_sharing.enable);
  EXPECT_EQ(v2.fair_sharing.preemption_strategies.size(), 1u);
  EXPECT_TRUE(v2.wait_for_pods_ready.enable);
  EXPECT_FALSE(v2.wait_for_pods_ready.block_admission);
  EXPECT_EQ(v2.wait_for_pods_ready.timeout.ms, 300'000);
  EXPECT_EQ(v2.fair_sharing.enable, v1.fair_sharing.enable);
  EXPECT_EQ(v2.wait_for_pods_ready.enable, v1.wait_for_pods_ready.enable);
  EXPECT_EQ(v2.wait_for_pods_ready.block_admission, v1.wait_for_pods_ready.block_admission);

  // Kueue's v1beta2 defaulting: waitForPodsReady runs even when absent, 30m,
  // not blocking admission, recoveryTimeout the timeout; the v1beta1 form
  // api/conversion makes of it decides the same.
  auto [none, none_v1] = DecodeBothForms<api::Configuration>(
      Json{{"apiVersion", "config.kueue.x-k8s.io/v1beta2"}, {"kind", "Configuration"}});
  EXPECT_FALSE(none.fair_sharing.enable);
  EXPECT_TRUE(none.wait_for_pods_ready.enable);
  EXPECT_EQ(none.wait_for_pods_ready.timeout.ms, 30 * 60'000);
  EXPECT_FALSE(none.wait_for_pods_ready.block_admission);
  ASSERT_TRUE(none.wait_for_pods_ready.recovery_timeout.has_value());
  EXPECT_EQ(none.wait_for_pods_ready.recovery_timeout->ms, 30 * 60'000);
  EXPECT_TRUE(none_v1.wait_for_pods_ready.enable);
  EXPECT_EQ(none_v1.wait_for_pods_ready.timeout.ms, 30 * 60'000);
  EXPECT_FALSE(none_v1.wait_for_pods_ready.block_admission);
  auto zero = MustDecodeAs<api::Configuration>(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "waitForPodsReady: {timeout: 0s, recoveryTimeout: 0s}\n");
  EXPECT_EQ(zero.wait_for_pods_ready.timeout.ms, 30 * 60'000);
  EXPECT_EQ(zero.wait_for_pods_ready.recovery_timeout->ms, 0);
  // The feature gate turns it off, in either version.
  auto [gated, gated_v1] = DecodeBothForms<api::Configuration>(
      Json{{"apiVersion", "config.kueue.x-k8s.io/v1beta2"},
           {"kind", "Configuration"},
           {"featureGates", {{"DisableWaitForPodsReady", true}, {"PartialAdmission", true}}}});
  EXPECT_FALSE(gated.wait_for_pods_ready.enable);
  EXPECT_FALSE(gated_v1.wait_for_pods_ready.enable);
  auto v1_gated = MustDecodeAs<api::Configuration>(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "waitForPodsReady: {enable: true}\nfeatureGates: {DisableWaitForPodsReady: true}\n");
  EXPECT_FALSE(v1_gated.wait_for_pods_ready.enable);
  // v1beta1 keeps its own defaults: off unless enabled, 5m.
  auto v1_none = MustDecodeAs<api::Configuration>(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n");
  EXPECT_FALSE(v1_none.wait_for_pods_ready.enable);
  auto v1_on = MustDecodeAs<api::Configuration>(
      "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
      "waitForPodsReady: {enable: true}\n");
  EXPECT_EQ(v1_on.wait_for_pods_ready.timeout.ms, 5 * 60'000);
  EXPECT_TRUE(v1_on.wait_for_pods_ready.block_admission);
  auto blocking = MustDecodeAs<api::Configuration>(
      "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
      "waitForPodsReady: {blockAdmission: true}\n");
  EXPECT_TRUE(blocking.wait_for_pods_ready.block_admission);
}

TEST(DecodeV1beta2Test, V1beta1OnlyFieldsAreErrors) {
  const std::string cq =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n";
  const std::string wl =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: ns}\n"
      "spec:\n  podSets: [{template: {spec: {containers: [{name: c}]}}}]\n";
  const testing::DecodeErrorCase cases[] = {
      {"cohort", cq + "  cohort: all\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): spec.cohort: unknown field: "
       "kueue.x-k8s.io/v1beta2 names it spec.cohortName"},
      {"admissionChecks", cq + "  admissionChecks: [a]\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): spec.admissionChecks: unknown field: "
       "kueue.x-k8s.io/v1beta2 lists them in spec.admissionChecksStrategy.admissionChecks"},
      {"deprecated fungibility value", cq + "  flavorFungibility: {whenCanBorrow: Borrow}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): spec.flavorFungibility.whenCanBorrow: "
       "unsupported value; supported values: \"MayStopSearch\", \"TryNextFlavor\" (value "
       "\"Borrow\")"},
      {"validation names cohortName", cq + "  resourceGroups: []\n  cohortName: Bad\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 6): spec.cohortName: Invalid value: "
       "\"Bad\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
       "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
       "'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"priorityClassName", wl + "  priorityClassName: high\n",
       "Invalid: document 1 (Workload \"w\", line 6): spec.priorityClassName: unknown field: "
       "kueue.x-k8s.io/v1beta2 names the class in spec.priorityClassRef"},
      {"priorityClassRef group", wl + "  priorityClassRef: {group: x.io, kind: K, name: n}\n",
       "Invalid: document 1 (Workload \"w\", line 6): spec.priorityClassRef.group: unsupported "
       "value; supported values: \"kueue.x-k8s.io\", \"scheduling.k8s.io\" (value \"x.io\")"},
      {"priorityClassRef kind",
       wl + "  priorityClassRef: {group: kueue.x-k8s.io, kind: PriorityClass, name: n}\n",
       "Invalid: document 1 (Workload \"w\", line 6): spec.priorityClassRef.kind: unsupported "
       "value \"PriorityClass\"; group kueue.x-k8s.io supports only \"WorkloadPriorityClass\""},
      {"priorityClassRef name",
       wl + "  priorityClassRef:\n    group: kueue.x-k8s.io\n    kind: WorkloadPriorityClass\n",
       "Invalid: document 1 (Workload \"w\", line 7): spec.priorityClassRef.name: Required "
       "value"},
      {"validation names priorityClassRef.name",
       wl + "  priorityClassRef:\n    group: kueue.x-k8s.io\n    kind: WorkloadPriorityClass\n"
            "    name: Bad\n",
       "Invalid: document 1 (Workload \"w\", line 9): spec.priorityClassRef.name: Invalid value: "
       "\"Bad\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
       "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
       "'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"retryDelayMinutes",
       "apiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: ac}\n"
       "spec:\n  controllerName: x\n  retryDelayMinutes: 5\n",
       "Invalid: document 1 (AdmissionCheck \"ac\", line 6): spec.retryDelayMinutes: unknown "
       "field: kueue.x-k8s.io/v1beta2 has no retryDelayMinutes"},
      {"config enable",
       "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
       "fairSharing:\n  enable: true\n",
       "Invalid: document 1 (Configuration, line 4): fairSharing.enable: unknown field: "
       "config.kueue.x-k8s.io/v1beta2 turns fair sharing on by the section's presence"},
      {"config queueVisibility",
       "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
       "queueVisibility: {}\n",
       "Invalid: document 1 (Configuration, line 3): queueVisibility: unknown field"},
  };
  testing::ExpectDecodeErrors(cases);
}

// A v1beta2 Workload admitted with `topologyAssignment` (YAML text from
// line 14 on), whose pod set has a topologyRequest.
std::string WorkloadWithAssignment(const std::string& assignment) {
  return "apiVersion: kueue.x-k8s.io/v1beta2\n"               // 1
         "kind: Workload\n"                                   // 2
         "metadata: {name: w, namespace: ns}\n"               // 3
         "spec:\n"                                            // 4
         "  podSets:\n"                                       // 5
         "  - name: main\n"                                   // 6
         "    count: 6\n"                                     // 7
         "    template: {spec: {containers: [{name: c}]}}\n"  // 8
         "    topologyRequest: {preferred: block, podSetSliceRequiredTopology: rack,"
         " podSetSliceSize: 2}\n"         // 9
         "status:\n"                      // 10
         "  admission:\n"                 // 11
         "    clusterQueue: cq\n"         // 12
         "    podSetAssignments:\n"       // 13
         "    - name: main\n"             // 14
         "      topologyAssignment:\n" +  // 15
         assignment;
}

// Kueue's examples 1 to 4 (apis/kueue/v1beta2/workload_types.go): the
// slices expand to the domains v1beta1 lists.
TEST(DecodeV1beta2Test, TopologyAssignmentSlicesExpandToDomains) {
  using Domains = std::vector<std::pair<std::vector<std::string>, int32_t>>;
  auto domains_of = [](const std::string& assignment) {
    auto wl = MustDecodeAs<api::Workload>(WorkloadWithAssignment(assignment));
    Domains out;
    if (!wl.status.admission || wl.status.admission->pod_set_assignments.empty() ||
        !wl.status.admission->pod_set_assignments[0].topology_assignment) {
      ADD_FAILURE() << "no topologyAssignment";
      return out;
    }
    for (const auto& d : wl.status.admission->pod_set_assignments[0].topology_assignment->domains)
      out.emplace_back(d.values, d.count);
    return out;
  };
  const Domains racks = {{{"block-1", "rack-1"}, 4}, {{"block-1", "rack-2"}, 2}};
  EXPECT_EQ(domains_of("        levels: [block, rack]\n"
                       "        slices:\n"
                       "        - domainCount: 2\n"
                       "          valuesPerLevel:\n"
                       "          - individual: {roots: [block-1, block-1]}\n"
                       "          - individual: {roots: [rack-1, rack-2]}\n"
                       "          podCounts: {individual: [4, 2]}\n"),
            racks);
  EXPECT_EQ(domains_of("        levels: [block, rack]\n"
                       "        slices:\n"
                       "        - domainCount: 2\n"
                       "          valuesPerLevel:\n"
                       "          - universal: block-1\n"
                       "          - individual: {prefix: rack-, roots: ['1', '2']}\n"
                       "          podCounts: {individual: [4, 2]}\n"),
            racks);
  const Domains nodes = {{{"block-1-rack-1-node-1"}, 1},
                         {{"block-1-rack-1-node-2"}, 1},
                         {{"block-1-rack-2-node-1"}, 1}};
  EXPECT_EQ(domains_of("        levels: [kubernetes.io/hostname]\n"
                       "        slices:\n"
                       "        - domainCount: 3\n"
                       "          valuesPerLevel:\n"
                       "          - individual:\n"
                       "              prefix: block-1-rack-\n"
                       "              roots: [1-node-1, 1-node-2, 2-node-1]\n"
                       "          podCounts: {universal: 1}\n"),
            nodes);
  EXPECT_EQ(domains_of("        levels: [kubernetes.io/hostname]\n"
                       "        slices:\n"
                       "        - domainCount: 2\n"
                       "          valuesPerLevel: [{individual: {prefix: block-1-rack-1-node-,"
                       " roots: ['1', '2']}}]\n"
                       "          podCounts: {universal: 1}\n"
                       "        - domainCount: 1\n"
                       "          valuesPerLevel: [{individual: {prefix: block-1-rack-,"
                       " suffix: -node-1, roots: ['2']}}]\n"
                       "          podCounts: {universal: 1}\n"),
            nodes);
  EXPECT_EQ(domains_of("        levels: [kubernetes.io/hostname]\n"), Domains{});
}

// The v1beta2 slices read as the domains api/conversion writes going down.
TEST(DecodeV1beta2Test, TopologyAssignmentReadsAsItsV1beta1Twin) {
  Json wl = Json::parse(R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns"},
    "spec": {"podSets": [{"name": "main", "count": 6,
      "template": {"spec": {"containers": [{"name": "c"}]}},
      "topologyRequest": {"required": "rack",
        "podsetSliceRequiredTopologyConstraints": [{"topology": "rack", "size": 3}]}}]},
    "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main",
      "topologyAssignment": {"levels": ["rack", "kubernetes.io/hostname"], "slices": [
        {"domainCount": 2, "valuesPerLevel": [{"universal": "r1"},
          {"individual": {"prefix": "node-", "roots": ["1", "2"]}}],
         "podCounts": {"individual": [2, 1]}},
        {"domainCount": 1, "valuesPerLevel": [{"universal": "r2"}, {"universal": "node-9"}],
         "podCounts": {"universal": 3}}]}}]}}})");
  auto [v2, v1] = DecodeBothForms<api::Workload>(wl);
  ASSERT_TRUE(v2.status.admission.has_value());
  ASSERT_TRUE(v1.status.admission.has_value());
  const auto& ta2 = v2.status.admission->pod_set_assignments[0].topology_assignment;
  const auto& ta1 = v1.status.admission->pod_set_assignments[0].topology_assignment;
  ASSERT_TRUE(ta2.has_value());
  ASSERT_TRUE(ta1.has_value());
  EXPECT_EQ(ta2->levels, ta1->levels);
  ASSERT_EQ(ta2->domains.size(), 3u);
  ASSERT_EQ(ta1->domains.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ta2->domains[i].values, ta1->domains[i].values);
    EXPECT_EQ(ta2->domains[i].count, ta1->domains[i].count);
  }
  EXPECT_EQ(ta2->domains[1].values, (std::vector<std::string>{"r1", "node-2"}));
  EXPECT_EQ(ta2->domains[2].count, 3);
  EXPECT_EQ(v2.spec.pod_sets[0].topology_request->required, "rack");
  EXPECT_EQ(v1.spec.pod_sets[0].topology_request->required, "rack");
}

TEST(DecodeV1beta2Test, TopologyRequestReadsAsV1beta1) {
  auto wl = MustDecodeAs<api::Workload>(WorkloadWithAssignment("        levels: [rack]\n"));
  ASSERT_EQ(wl.spec.pod_sets.size(), 1u);
  const auto& req = wl.spec.pod_sets[0].topology_request;
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->preferred, "block");
  EXPECT_EQ(req->pod_set_slice_required_topology, "rack");
  EXPECT_EQ(req->pod_set_slice_size, 2);
}

TEST(DecodeV1beta2Test, TopologyAssignmentErrors) {
  const std::string slice_head =
      "        levels: [block, rack]\n"  // 16
      "        slices:\n"                // 17
      "        - domainCount: 2\n";      // 18
  const testing::DecodeErrorCase cases[] = {
      {"v1beta1 domains", WorkloadWithAssignment("        levels: [rack]\n        domains: []\n"),
       "Invalid: document 1 (Workload \"w\", line 17): "
       "status.admission.podSetAssignments[0].topologyAssignment.domains: unknown field: "
       "kueue.x-k8s.io/v1beta2 lists domains in slices"},
      {"levels missing", WorkloadWithAssignment("        slices: []\n"),
       "Invalid: document 1 (Workload \"w\", line 16): "
       "status.admission.podSetAssignments[0].topologyAssignment.levels: Required value"},
      {"both universal and individual",
       WorkloadWithAssignment(slice_head +
                              "          valuesPerLevel:\n"                                // 19
                              "          - {universal: b, individual: {roots: [x, y]}}\n"  // 20
                              "          - universal: r\n"
                              "          podCounts: {universal: 1}\n"),
       "Invalid: document 1 (Workload \"w\", line 20): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[0]: "
       "exactly one of the fields in [universal individual] must be set"},
      {"neither pod count",
       WorkloadWithAssignment(slice_head +
                              "          valuesPerLevel: [{universal: b}, {universal: r}]\n"
                              "          podCounts: {}\n"),  // 20
       "Invalid: document 1 (Workload \"w\", line 20): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts: "
       "exactly one of the fields in [universal individual] must be set"},
      {"roots of the wrong length",
       WorkloadWithAssignment(slice_head + "          valuesPerLevel:\n"  // 19
                                           "          - universal: b\n"
                                           "          - individual: {roots: [x]}\n"
                                           "          podCounts: {universal: 1}\n"),
       "Invalid: document 1 (Workload \"w\", line 20): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel[1]: "
       "valuesPerLevel.individual, if set, must have roots of length equal to domainCount of "
       "this TopologyAssignmentSlice"},
      {"pod counts of the wrong length",
       WorkloadWithAssignment(slice_head +
                              "          valuesPerLevel: [{universal: b}, {universal: r}]\n"
                              "          podCounts: {individual: [1, 2, 3]}\n"),  // 20
       "Invalid: document 1 (Workload \"w\", line 20): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts: "
       "podCounts.individual must have length equal to domainCount"},
      {"fewer values than levels",
       WorkloadWithAssignment(slice_head + "          valuesPerLevel: [{universal: b}]\n"
                                           "          podCounts: {universal: 1}\n"),
       "Invalid: document 1 (Workload \"w\", line 18): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].valuesPerLevel: "
       "valuesPerLevel must have the same length as the number of levels in this "
       "TopologyAssignment"},
      {"domainCount zero",
       WorkloadWithAssignment("        levels: [rack]\n"
                              "        slices:\n"
                              "        - domainCount: 0\n"  // 18
                              "          valuesPerLevel: [{universal: r}]\n"
                              "          podCounts: {universal: 1}\n"),
       "Invalid: document 1 (Workload \"w\", line 18): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].domainCount: "
       "Invalid value: should be greater than or equal to 1 (value \"0\")"},
      {"too many domains",
       WorkloadWithAssignment("        levels: [rack]\n"
                              "        slices:\n"
                              "        - domainCount: 2000000000\n"
                              "          valuesPerLevel: [{universal: r}]\n"
                              "          podCounts: {universal: 1}\n"),
       "Invalid: document 1 (Workload \"w\", line 18): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices[0].domainCount: the "
       "slices hold more than 100000 domains in all, over Kuota's limit"},
  };
  testing::ExpectDecodeErrors(cases);
}

}  // namespace
}  // namespace kuota::codec
