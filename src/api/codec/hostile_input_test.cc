// Hostile input: oversized documents, deep nesting, alias bombs, garbage and
// truncated manifests must produce errors (never crashes, hangs or
// unbounded memory) and do so quickly.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "api/codec/decode.h"

namespace kuota::codec {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Generous bounds: sanitizer builds run several times slower than release.
constexpr double kQuick = 60.0;

// Decodes `text`, which must fail within `seconds`; `status` gets why.
void FailsWithin(double seconds, const std::string& text, Status& status,
                 const DecodeOptions& options = {}) {
  auto start = Clock::now();
  Result<std::vector<DecodedObject>> r = DecodeDocuments(text, options);
  EXPECT_LT(SecondsSince(start), seconds);
  ASSERT_FALSE(r.ok());
  status = r.status();
}

// `text` fails to decode, quickly, with `message`.
void FailsWithMessage(const std::string& text, const std::string& message) {
  Status st;
  ASSERT_NO_FATAL_FAILURE(FailsWithin(kQuick, text, st));
  EXPECT_EQ(st.message(), message);
}

// `text` expands past the decode budget and is refused as too large, quickly.
void FailsAsTooLarge(const std::string& text) {
  Status st;
  ASSERT_NO_FATAL_FAILURE(FailsWithin(kQuick, text, st));
  EXPECT_EQ(st.code(), StatusCode::kTooLarge) << st.ToString();
  EXPECT_NE(st.message().find("document expands to too much data"), std::string::npos)
      << st.message();
}

const char* kValidManifest = R"(apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
  labels: {team: a}
spec:
  cohort: all
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 9, borrowingLimit: 1}
      - {name: memory, nominalQuota: 36Gi}
  preemption: {withinClusterQueue: LowerPriority}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ns}
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          image: busybox
          resources: {requests: {cpu: 500m}}
)";

TEST(HostileInputTest, ValidManifestDecodes) {
  Result<std::vector<DecodedObject>> r = DecodeDocuments(kValidManifest);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), 2u);
}

TEST(HostileInputTest, OverMaxBytesIsRefusedBeforeParsing) {
  std::string big(10u << 20, 'a');
  DecodeOptions options;
  options.max_bytes = 1u << 20;
  Status st;
  ASSERT_NO_FATAL_FAILURE(FailsWithin(1.0, big, st, options));
  EXPECT_EQ(st.code(), StatusCode::kTooLarge);
}

TEST(HostileInputTest, TenMegabyteScalarIsAnError) {
  // Under the default 64 MiB limit, so it is parsed; an annotation that size
  // breaks Kubernetes' 256 KiB limit on annotations.
  std::string text =
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  annotations:\n    x: " +
      std::string(10u << 20, 'v') + "\n";
  FailsWithMessage(
      text,
      "document 1 (Namespace \"a\", line 6): metadata.annotations: Too long: may not be "
      "more than 262144 bytes");
}

TEST(HostileInputTest, TenMegabyteListIsAnError) {
  // 10 MiB of resource groups: the first one is already invalid.
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
      "spec:\n  resourceGroups:\n";
  while (text.size() < (10u << 20)) text += "  - {coveredResources: [cpu], flavorz: []}\n";
  FailsWithMessage(
      text,
      "document 1 (ClusterQueue \"cq\", line 6): spec.resourceGroups[0].flavorz: unknown "
      "field");
}

TEST(HostileInputTest, DeepNestingIsAnError) {
  const int depth = 100'000;
  std::string flow_seq = std::string(depth, '[') + std::string(depth, ']');
  std::string unclosed = std::string(depth, '[');
  std::string flow_map;
  for (int i = 0; i < depth; ++i) flow_map += "{a: ";
  std::string block_seq;
  for (int i = 0; i < depth; ++i) block_seq += "- ";
  block_seq += "x\n";
  std::string in_field = "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels: " + flow_seq + "\n";
  std::string json = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": " + flow_seq + "}";
  for (const std::string* text : {&flow_seq, &unclosed, &flow_map, &block_seq, &in_field, &json}) {
    Status st;
    ASSERT_NO_FATAL_FAILURE(FailsWithin(kQuick, *text, st));
    EXPECT_EQ(st.code(), StatusCode::kInvalid);
    EXPECT_NE(st.message().find("invalid YAML"), std::string::npos) << st.message();
  }
}

TEST(HostileInputTest, ModerateNestingInIgnoredFieldsIsAccepted) {
  // Deep but legal nesting inside fields Kuota ignores is not walked.
  std::string deep = std::string(100, '[') + std::string(100, ']');
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec:\n"
      "  podSets:\n  - template:\n      spec:\n        volumes: " +
      deep + "\n        containers: [{name: c}]\n";
  Result<std::vector<DecodedObject>> r = DecodeDocuments(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST(HostileInputTest, AliasBombIsStopped) {
  // 1000 pod sets x 1000 containers x 1000 env vars from a few kilobytes. The
  // anchors sit in managedFields, which is accepted and never walked.
  auto repeat = [](const char* alias) {
    std::string list = "[";
    for (int i = 0; i < 1000; ++i) list += std::string(i ? ", " : "") + alias;
    return list + "]";
  };
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: w\n"
      "  managedFields:\n  - &e {name: x, value: y}\n  - &c {name: c, env: " +
      repeat("*e") + "}\n  - &p {template: {spec: {containers: " + repeat("*c") +
      "}}}\nspec:\n  podSets: " + repeat("*p") + "\n";
  ASSERT_LT(text.size(), 20'000u);
  FailsAsTooLarge(text);
}

TEST(HostileInputTest, AliasBombThroughListFieldsIsStopped) {
  // Anchors inside fields that accept them: each env var list repeats a
  // 1 MiB value, and each container repeats the list.
  std::string big(1u << 20, 'v');
  std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec:\n"
      "  podSets:\n  - template:\n      spec:\n        containers:\n"
      "        - name: c0\n          args: [&big " +
      big + "]\n          command: &cmd [";
  for (int i = 0; i < 1000; ++i) text += std::string(i ? ", " : "") + "*big";
  text += "]\n";
  for (int i = 1; i < 100; ++i) {
    text += "        - {name: c" + std::to_string(i) + ", command: *cmd}\n";
  }
  FailsAsTooLarge(text);
}

TEST(HostileInputTest, AliasAmplificationAcrossDocumentsIsStopped) {
  // Each document is small and expands only 300 times, but the budget covers
  // the whole stream: 2,000 such documents must not decode into ~120 MB.
  std::string doc =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec:\n"
      "  podSets:\n  - template:\n      spec:\n        containers:\n        - name: c\n"
      "          command: [&a " +
      std::string(200, 'x') + "]\n          args: [";
  for (int i = 0; i < 300; ++i) doc += std::string(i ? ", " : "") + "*a";
  doc += "]\n---\n";
  std::string text;
  for (int i = 0; i < 2000; ++i) text += doc;
  Status st;
  ASSERT_NO_FATAL_FAILURE(FailsWithin(kQuick, text, st));
  EXPECT_EQ(st.code(), StatusCode::kTooLarge) << st.ToString();
}

TEST(HostileInputTest, HugeKeysAreShortenedInMessages) {
  std::string key(1u << 20, 'k');
  for (const std::string& text :
       {"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  " + key + ": 1\n",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {" + key + ": [x]}\n",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {" + key + ": x}\n"}) {
    Result<std::vector<DecodedObject>> r = DecodeDocuments(text);
    ASSERT_FALSE(r.ok());
    EXPECT_LT(r.status().message().size(), 1000u) << r.status().message().substr(0, 200);
  }
}

TEST(HostileInputTest, ManyEmptyDocuments) {
  std::string text;
  for (int i = 0; i < 100'000; ++i) text += "---\n";
  text += "apiVersion: v1\nkind: Service\n";
  Result<std::vector<DecodedObject>> r = DecodeDocuments(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("document 100000 (Service, line 100002)", 0), 0u)
      << r.status().message();
}

TEST(HostileInputTest, BinaryAndNulBytes) {
  const std::string inputs[] = {
      std::string("apiVersion: v1\0kind: Namespace\n", 31),
      std::string("\xff\xfe\x00\x01garbage", 11),
      "\xef\xbb\xbf"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",             // BOM
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: \"\xc3\x28\"}\n",  // bad UTF-8
      "\t\t\t",
      "%YAML 1.2\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
      "%BOGUS directive\n---\n",
      "!!binary aGVsbG8=\n",
      "? complex\n: key\n",
      "&a\n",
      "*a\n",
      "'unterminated\n",
      "\"bad escape \\q\"\n",
      "a: |\n  literal\n b: bad indent\n",
  };
  for (const std::string& text : inputs) {
    Result<std::vector<DecodedObject>> r = DecodeDocuments(text);
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
}

TEST(HostileInputTest, TruncatedManifestsNeverCrash) {
  const std::string text = kValidManifest;
  for (size_t n = 0; n <= text.size(); ++n) {
    Result<std::vector<DecodedObject>> r = DecodeDocuments(text.substr(0, n));
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
      EXPECT_NE(r.status().code(), StatusCode::kInternal) << r.status().ToString();
    }
  }
}

TEST(HostileInputTest, RandomMutationsNeverCrash) {
  const std::string text = kValidManifest;
  const char alphabet[] = "-:[]{}&*!|>'\"#%@`,?\n\t 0123456789abcxyz\\\0\xff";
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string m = text;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (m.size() + 1);
      char c = alphabet[rng() % (sizeof(alphabet) - 1)];
      switch (rng() % 3) {
        case 0:
          m.insert(m.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        case 1:
          if (pos < m.size()) m[pos] = c;
          break;
        default:
          if (pos < m.size()) m.erase(pos, 1 + rng() % 8);
      }
    }
    Result<std::vector<DecodedObject>> r = DecodeDocuments(m);
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
      EXPECT_NE(r.status().code(), StatusCode::kInternal) << r.status().ToString();
    }
  }
}

}  // namespace
}  // namespace kuota::codec
