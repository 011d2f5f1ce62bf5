// Every class of decoding error, with the exact message users see:
// `document N (Kind "name", line L): field.path: message (value "...")`.
#include <gtest/gtest.h>

#include <string>

#include "api/codec/decode.h"
#include "api/codec/decode_test_util.h"

namespace kuota::codec {
namespace {

using testing::DecodeErrorCase;
using testing::DecodeErrorOf;
using testing::ExpectDecodeErrors;

// A ClusterQueue whose line 9 onwards each case fills in.
const char* kCqHead =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"  // 1
    "kind: ClusterQueue\n"                  // 2
    "metadata:\n"                           // 3
    "  name: cq\n"                          // 4
    "spec:\n"                               // 5
    "  cohort: all\n"                       // 6
    "  resourceGroups:\n"                   // 7
    "  - coveredResources: [cpu]\n"         // 8
    "    flavors:\n"                        // 9
    "    - name: f\n"                       // 10
    "      resources:\n"                    // 11
    "      - name: cpu\n";                  // 12

// A Workload whose pod set template starts at line 8.
const char* kWlHead =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"   // 1
    "kind: Workload\n"                       // 2
    "metadata: {name: wl, namespace: ns}\n"  // 3
    "spec:\n"                                // 4
    "  podSets:\n"                           // 5
    "  - name: main\n"                       // 6
    "    template:\n"                        // 7
    "      spec:\n"                          // 8
    "        containers:\n"                  // 9
    "        - name: c\n";                   // 10

TEST(DecodeErrorTest, Table) {
  const std::string cq = kCqHead;
  const std::string wl = kWlHead;
  const DecodeErrorCase cases[] = {
      // Unknown fields, at any depth.
      {"unknown nested field", cq + "        nominalQuota: 1\n      flavorz: x\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 14): "
       "spec.resourceGroups[0].flavors[0].flavorz: unknown field"},
      {"unknown top-level field", cq + "        nominalQuota: 1\nspecc: {}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 14): specc: unknown field"},
      {"unknown pod spec field", wl + "        hostNetwrk: true\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.hostNetwrk: unknown field"},
      {"unknown pod-level resources field", wl + "        resources: {requestz: {cpu: 1}}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.resources.requestz: unknown field"},
      {"unknown container field", wl + "          imagePullPolicyy: Always\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.containers[0].imagePullPolicyy: unknown field"},
      {"unknown affinity field",
       wl + "        affinity: {nodeAffinity: {requiredDuringScheduling: {}}}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.affinity.nodeAffinity.requiredDuringScheduling: "
       "unknown field"},
      {"misspelt required field is unknown first", cq + "        nominalQuta: 1\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 13): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuta: unknown field"},
      // Required fields.
      {"missing required field", cq,
       "Invalid: document 1 (ClusterQueue \"cq\", line 12): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Required value"},
      {"null required field", cq + "        nominalQuota: null\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 13): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Required value"},
      {"missing env name", wl + "          env: [{value: x}]\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.containers[0].env[0].name: Required value"},
      // Duplicates.
      {"duplicate field", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  name: b\n",
       "Invalid: document 1 (Namespace \"a\", line 5): metadata.name: duplicate field"},
      {"duplicate map key",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n    x: 1\n    x: 2\n",
       "Invalid: document 1 (Namespace \"a\", line 7): metadata.labels[x]: duplicate key"},
      {"duplicate resource", wl + "          resources: {requests: {cpu: 1, cpu: 2}}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.containers[0].resources.requests[cpu]: duplicate key"},
      // Wrong types.
      {"map where a list is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec:\n  resourceGroups: {cpu: 1}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): "
       "spec.resourceGroups: expected a list, got a map"},
      {"list where an object is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec: [a, b]\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 4): spec: expected an object, got a list"},
      {"scalar where an object is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: cq\n",
       "Invalid: document 1 (ClusterQueue, line 3): metadata: expected an object, got a string"},
      {"list where a string is expected", cq + "        nominalQuota: 1\n  cohort2: x\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 14): spec.cohort2: unknown field"},
      {"map where a string is expected",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {a: b}\n",
       "Invalid: document 1 (Namespace, line 4): metadata.name: expected a string, got a map"},
      {"map where a label value is expected",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {x: [1]}\n",
       "Invalid: document 1 (Namespace \"a\", line 5): metadata.labels[x]: "
       "expected a string, got a list"},
      {"string where an integer is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
       "value: \"100\"\n",
       "Invalid: document 1 (WorkloadPriorityClass \"p\", line 4): value: "
       "expected an integer, got a string (value \"100\")"},
      {"fraction where an integer is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
       "value: 1.5\n",
       "Invalid: document 1 (WorkloadPriorityClass \"p\", line 4): value: "
       "expected a decimal integer, got a number (value \"1.5\")"},
      {"octal-looking integer",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
       "value: 010\n",
       "Invalid: document 1 (WorkloadPriorityClass \"p\", line 4): value: "
       "expected a decimal integer, got a number (value \"010\")"},
      {"boolean where an integer is expected",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
       "value: true\n",
       "Invalid: document 1 (WorkloadPriorityClass \"p\", line 4): value: "
       "expected a decimal integer, got a boolean (value \"true\")"},
      {"int32 overflow",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: p}\n"
       "value: 2147483648\n",
       "Invalid: document 1 (WorkloadPriorityClass \"p\", line 4): value: "
       "integer out of range for int32 (value \"2147483648\")"},
      {"int32 underflow", wl + "    count: -2147483649\n",
       "Invalid: document 1 (Workload \"wl\", line 11): spec.podSets[0].count: "
       "integer out of range for int32 (value \"-2147483649\")"},
      {"huge integer",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
       "  generation: 99999999999999999999999999999999\n",
       "Invalid: document 1 (Namespace \"a\", line 5): metadata.generation: "
       "integer out of range (value \"99999999999999999999999999999999\")"},
      {"quoted boolean",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n"
       "spec:\n  active: \"false\"\n",
       "Invalid: document 1 (Workload \"w\", line 5): spec.active: "
       "expected a boolean (true or false), got a string (value \"false\")"},
      {"word where a boolean is expected",
       "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
       "fairSharing: {enable: maybe}\n",
       "Invalid: document 1 (Configuration, line 3): fairSharing.enable: "
       "expected a boolean (true or false), got a string (value \"maybe\")"},
      // Quantities.
      {"invalid quantity", cq + "        nominalQuota: 10x\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 13): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: invalid quantity \"10x\": "
       "unknown suffix \"x\" (want m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent)"},
      {"quantity as a map", cq + "        nominalQuota: {value: 1}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 13): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: "
       "expected a quantity, got a map"},
      {"invalid request quantity",
       wl + "          resources:\n            requests:\n              nvidia.com/gpu: lots\n",
       "Invalid: document 1 (Workload \"wl\", line 13): "
       "spec.podSets[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]: "
       "invalid quantity \"lots\": want a number such as 1, 0.5, 500m, 2Gi or 1e3"},
      {"null request quantity", wl + "          resources: {limits: {cpu: ~}}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].template.spec.containers[0].resources.limits[cpu]: "
       "expected a quantity, got null"},
      {"invalid weight",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\nmetadata: {name: c}\n"
       "spec: {fairSharing: {weight: heavy}}\n",
       "Invalid: document 1 (Cohort \"c\", line 4): spec.fairSharing.weight: "
       "invalid quantity \"heavy\": want a number such as 1, 0.5, 500m, 2Gi or 1e3"},
      // Enums.
      {"unsupported enum value",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec:\n  queueingStrategy: FIFO\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): spec.queueingStrategy: "
       "unsupported value; supported values: \"BestEffortFIFO\", \"StrictFIFO\" (value \"FIFO\")"},
      {"unsupported nested enum value",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec:\n  preemption:\n    borrowWithinCohort: {policy: Always}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 6): "
       "spec.preemption.borrowWithinCohort.policy: unsupported value; supported values: "
       "\"Never\", \"LowerPriority\" (value \"Always\")"},
      {"unsupported enum in a list",
       "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
       "fairSharing:\n  preemptionStrategies: [LessThanInitialShare, Biggest]\n",
       "Invalid: document 1 (Configuration, line 4): fairSharing.preemptionStrategies[1]: "
       "unsupported value; supported values: \"LessThanOrEqualToFinalShare\", "
       "\"LessThanInitialShare\" (value \"Biggest\")"},
      // Times and durations.
      {"invalid timestamp",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  creationTimestamp: yesterday\n",
       "Invalid: document 1 (Namespace \"a\", line 5): metadata.creationTimestamp: "
       "invalid timestamp \"yesterday\": want RFC 3339 such as 2026-01-01T00:00:00Z"},
      {"invalid duration",
       "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
       "waitForPodsReady:\n  enable: true\n  timeout: 5 minutes\n",
       "Invalid: document 1 (Configuration, line 5): waitForPodsReady.timeout: "
       "invalid duration \"5 minutes\": want a number with a unit such as 300ms, 10s, 5m or "
       "1h30m"},
      // Lists.
      // yaml-cpp marks an implicit null where the next token starts.
      {"null list element",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec:\n  admissionChecks:\n  - a\n  - null\n  - c\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 7): spec.admissionChecks[1]: "
       "null is not allowed in this list"},
      {"object list element is a string",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
       "spec:\n  resourceGroups: [cpu]\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 5): spec.resourceGroups[0]: "
       "expected an object, got a string"},
      {"non-string map key",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels:\n    ? [x]\n    : y\n",
       "Invalid: document 1 (Namespace \"a\", line 6): metadata.labels: "
       "map keys must be strings, got a list"},
      // Documents.
      {"missing apiVersion", "kind: Namespace\nmetadata: {name: a}\n",
       "Invalid: document 1 (line 1): apiVersion: Required value"},
      {"missing kind", "apiVersion: v1\nmetadata: {name: a}\n",
       "Invalid: document 1 (line 1): kind: Required value"},
      {"kind is not a string", "apiVersion: v1\nkind: [Namespace]\n",
       "Invalid: document 1 (line 2): kind: expected a string, got a list"},
      {"unsupported kind", "apiVersion: v1\nkind: Service\nmetadata: {name: p}\n",
       "Invalid: document 1 (Service \"p\", line 2): unsupported apiVersion/kind \"v1/Service\""},
      {"unsupported version",
       "apiVersion: kueue.x-k8s.io/v1beta3\nkind: ClusterQueue\nmetadata: {name: cq}\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 2): "
       "unsupported apiVersion/kind \"kueue.x-k8s.io/v1beta3/ClusterQueue\""},
      {"document is a list", "- a\n- b\n",
       "Invalid: document 1 (line 1): expected an object with apiVersion and kind, got a list"},
      {"document is a scalar", "hello\n",
       "Invalid: document 1 (line 1): expected an object with apiVersion and kind, got a string"},
      {"error in a later document",
       "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n---\n"
       "apiVersion: v1\nkind: Namespace\nmetadata: {name: b, labelz: {}}\n",
       "Invalid: document 3 (Namespace \"b\", line 8): metadata.labelz: unknown field"},
      {"error in a List item",
       "apiVersion: v1\nkind: List\nitems:\n"
       "- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n"
       "- apiVersion: kueue.x-k8s.io/v1beta1\n  kind: ResourceFlavor\n  metadata: {name: b}\n"
       "  spec: {nodeLabelz: {}}\n",
       "Invalid: document 1 items[1] (ResourceFlavor \"b\", line 8): spec.nodeLabelz: "
       "unknown field"},
      {"unknown field in a List", "apiVersion: v1\nkind: List\nitems: []\nextra: 1\n",
       "Invalid: document 1 (List, line 4): extra: unknown field"},
      {"List items not a list", "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
       "Invalid: document 1 (List, line 3): items: expected a list, got a map"},
      // YAML syntax.
      {"syntax error", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a\n",
       "Invalid: document 1: invalid YAML at line 4, column 1: end of map flow not found"},
      {"syntax error in a later document",
       "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nkey: [unclosed\n",
       "Invalid: document 2: invalid YAML at line 6, column 1: end of sequence flow not found"},
      {"alias inside its own anchor", "a: &x [1, *x]\n",
       "Invalid: document 1: invalid YAML at line 1: "
       "an alias may not refer to a node that contains it"},
      {"undefined alias", "a: *nope\n",
       "Invalid: document 1: invalid YAML at line 1, column 4: the referenced anchor is not "
       "defined"},
      // Cohort versions.
      {"v1alpha1 Cohort with parentName",
       "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata: {name: c}\n"
       "spec: {parentName: p}\n",
       "Invalid: document 1 (Cohort \"c\", line 4): spec.parentName: unknown field"},
      // Validation errors point at the offending field's line.
      {"validation error", cq + "        nominalQuota: -1\n",
       "Invalid: document 1 (ClusterQueue \"cq\", line 13): "
       "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: \"-1\": "
       "must be greater than or equal to 0"},
      {"validation error in metadata",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad_Name\n",
       "Invalid: document 1 (Namespace \"Bad_Name\", line 4): metadata.name: Invalid value: "
       "\"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric "
       "characters or '-', and must start and end with an alphanumeric character (e.g. "
       "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"validation error without a field line",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
       "metadata: {name: lq, namespace: ns}\n",
       "Invalid: document 1 (LocalQueue \"lq\", line 1): spec.clusterQueue: Required value"},
  };
  ExpectDecodeErrors(cases);
}

TEST(DecodeErrorTest, ValuesInMessagesAreQuotedAndTruncated) {
  std::string long_value(500, 'x');
  std::string msg = DecodeErrorOf(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
      "spec:\n  queueingStrategy: \"" +
      long_value + "\\n\\\"\"\n");
  EXPECT_LT(msg.size(), 400u) << msg;
  EXPECT_NE(msg.find("(value \"xxxx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("...\")"), std::string::npos) << msg;
  std::string control = DecodeErrorOf(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
      "spec:\n  queueingStrategy: \"a\\tb\\u0001\\\"\"\n");
  EXPECT_NE(control.find("(value \"a\\tb\\x01\\\"\")"), std::string::npos) << control;
}

TEST(DecodeErrorTest, StatusCodes) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments("apiVersion: v1\nkind: Service\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  DecodeOptions small;
  small.max_bytes = 10;
  r = DecodeDocuments("apiVersion: v1\nkind: Namespace\n", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTooLarge);
  EXPECT_EQ(r.status().message(), "input is 31 bytes, over the limit of 10 bytes");
}

TEST(DecodeErrorTest, TopologyKinds) {
  const DecodeErrorCase cases[] = {
      {"topology level without nodeLabel",
       "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\nmetadata: {name: t}\n"
       "spec:\n  levels:\n  - {nodeLabl: rack}\n",
       "Invalid: document 1 (Topology \"t\", line 6): spec.levels[0].nodeLabl: unknown field"},
      {"topology without levels",
       "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {}\n",
       "Invalid: document 1 (Topology \"t\", line 4): spec.levels: Required value"},
      {"node with an unknown status field",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: {cpu: 1}\n"
       "  allocatible: {cpu: 1}\n",
       "Invalid: document 1 (Node \"n\", line 6): status.allocatible: unknown field"},
      {"node allocatable not a quantity",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: {cpu: lots}\n",
       "Invalid: document 1 (Node \"n\", line 5): status.allocatable[cpu]: "
       "invalid quantity \"lots\": want a number such as 1, 0.5, 500m, 2Gi or 1e3"},
      {"node condition without status",
       "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  conditions:\n"
       "  - type: Ready\n",
       "Invalid: document 1 (Node \"n\", line 6): status.conditions[0].status: Required value"},
      {"pod nodeName not a string",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n"
       "  nodeName: [a]\n  containers: [{name: c}]\n",
       "Invalid: document 1 (Pod \"p\", line 5): spec.nodeName: expected a string, got a list"},
      {"pod unknown status field",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nstatus:\n"
       "  phaze: Running\n",
       "Invalid: document 1 (Pod \"p\", line 5): status.phaze: unknown field"},
      {"topologyRequest unknown field",
       std::string(kWlHead) + "    topologyRequest: {requred: rack}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].topologyRequest.requred: unknown field"},
      {"topologyRequest slice size not an integer",
       std::string(kWlHead) + "    topologyRequest: {podSetSliceSize: two}\n",
       "Invalid: document 1 (Workload \"wl\", line 11): "
       "spec.podSets[0].topologyRequest.podSetSliceSize: expected a decimal integer, got a string "
       "(value \"two\")"},
      {"v1beta1 assignment domain without count",
       std::string(kWlHead) + "status:\n"                    // 11
                              "  admission:\n"               // 12
                              "    clusterQueue: cq\n"       // 13
                              "    podSetAssignments:\n"     // 14
                              "    - name: main\n"           // 15
                              "      topologyAssignment:\n"  // 16
                              "        levels: [rack]\n"     // 17
                              "        domains:\n"           // 18
                              "        - values: [r1]\n",    // 19
       "Invalid: document 1 (Workload \"wl\", line 19): "
       "status.admission.podSetAssignments[0].topologyAssignment.domains[0].count: "
       "Required value"},
      {"v1beta1 assignment with v1beta2 slices",
       std::string(kWlHead) +
           "status:\n  admission:\n    clusterQueue: cq\n    podSetAssignments:\n"
           "    - name: main\n      topologyAssignment:\n        levels: [rack]\n"
           "        slices: []\n",  // 18
       "Invalid: document 1 (Workload \"wl\", line 18): "
       "status.admission.podSetAssignments[0].topologyAssignment.slices: unknown field"},
  };
  ExpectDecodeErrors(cases);
}

}  // namespace
}  // namespace kuota::codec
