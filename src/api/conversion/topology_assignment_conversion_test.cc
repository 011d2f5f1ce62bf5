// A Workload's topologyAssignment between v1beta1's domains and v1beta2's
// slices, on Kueue's own cases (pkg/util/tas/tas_assignment_test.go): each
// v1beta1 assignment goes up to the slices Kueue writes and back down to the
// same domains; malformed slices are refused naming the field.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "api/conversion/kueue_conversion.h"

namespace kuota::conversion {
namespace topology_assignment_conversion_test {
namespace {

using Json = nlohmann::json;

// A Workload admitted with `assignment` in `version`; its pod set asks for
// multi-layer slices, which only v1beta2 has.
Json Workload(std::string_view version, const Json& assignment) {
  return {{"apiVersion", "kueue.x-k8s.io/" + std::string(version)},
          {"kind", "Workload"},
          {"metadata", {{"name", "w"}, {"namespace", "ns"}}},
          {"spec", {{"podSets", Json::array({{{"name", "main"}, {"count", 1}}})}}},
          {"status",
           {{"admission",
             {{"clusterQueue", "cq"},
              {"podSetAssignments",
               Json::array({{{"name", "main"}, {"topologyAssignment", assignment}}})}}}}}};
}

Json V1beta1(std::vector<std::string> levels,
             const std::vector<std::pair<std::vector<std::string>, int>>& domains) {
  Json out = {{"levels", levels}, {"domains", Json::array()}};
  for (const auto& [values, count] : domains) {
    out["domains"].push_back({{"values", values}, {"count", count}});
  }
  return out;
}

Json AssignmentOf(const Json& workload) {
  return workload["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"];
}

// Up gives `v1beta2`; down again gives `v1beta1` back.
void ExpectBothWays(const Json& v1beta1, const Json& v1beta2) {
  Result<Json> up = Convert(Workload(kV1beta1, v1beta1), kV1beta2);
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(AssignmentOf(*up), v1beta2) << AssignmentOf(*up).dump();
  Result<Json> down = Convert(*up, kV1beta1);
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  EXPECT_EQ(AssignmentOf(*down), v1beta1);
}

Json Slice(int domain_count, std::vector<Json> values_per_level, Json pod_counts) {
  return {{"domainCount", domain_count},
          {"valuesPerLevel", Json(std::move(values_per_level))},
          {"podCounts", std::move(pod_counts)}};
}

Json Individual(const char* prefix, const char* suffix, std::vector<std::string> roots) {
  Json ind = {{"roots", roots}};
  if (prefix != nullptr) ind["prefix"] = prefix;
  if (suffix != nullptr) ind["suffix"] = suffix;
  return {{"individual", ind}};
}

Json Universal(const char* value) { return {{"universal", value}}; }

TEST(TopologyAssignmentConversion, KueuesBothWaysCases) {
  // empty: v1beta2 omits the empty slices.
  ExpectBothWays(V1beta1({"a", "b"}, {}), {{"levels", {"a", "b"}}});
  // one domain
  ExpectBothWays(V1beta1({"a", "b"}, {{{"a1", "b1"}, 1}}),
                 {{"levels", {"a", "b"}},
                  {"slices", {Slice(1, {Universal("a1"), Universal("b1")}, {{"universal", 1}})}}});
  // multiple domains, same counts, no common prefix
  ExpectBothWays(
      V1beta1({"a", "b"}, {{{"a1", "b1"}, 1}, {{"a2", "b2"}, 1}}),
      {{"levels", {"a", "b"}},
       {"slices",
        {Slice(2, {Individual("a", nullptr, {"1", "2"}), Individual("b", nullptr, {"1", "2"})},
               {{"universal", 1}})}}});
  // multiple domains, different counts, common prefix and suffix
  ExpectBothWays(
      V1beta1({"a", "b"}, {{{"p.a1.s", "p.b1.s"}, 1}, {{"p.a2.s", "p.b2.s"}, 2}}),
      {{"levels", {"a", "b"}},
       {"slices",
        {Slice(2, {Individual("p.a", ".s", {"1", "2"}), Individual("p.b", ".s", {"1", "2"})},
               {{"individual", {1, 2}}})}}});
  // multiple domains, universal value
  ExpectBothWays(V1beta1({"a", "b"}, {{{"a1", "x"}, 1}, {{"a1", "y"}, 2}}),
                 {{"levels", {"a", "b"}},
                  {"slices",
                   {Slice(2, {Universal("a1"), Individual(nullptr, nullptr, {"x", "y"})},
                          {{"individual", {1, 2}}})}}});
  // shrinking prefix
  ExpectBothWays(
      V1beta1({"a"}, {{{"a123"}, 1}, {{"a12"}, 1}, {{"a1"}, 1}, {{"a13"}, 1}}),
      {{"levels", {"a"}},
       {"slices",
        {Slice(4, {Individual("a1", nullptr, {"23", "2", "", "3"})}, {{"universal", 1}})}}});
  // shrinking suffix
  ExpectBothWays(
      V1beta1({"a"}, {{{"123b"}, 1}, {{"23b"}, 1}, {{"3b"}, 1}, {{"13b"}, 1}}),
      {{"levels", {"a"}},
       {"slices",
        {Slice(4, {Individual(nullptr, "3b", {"12", "2", "", "1"})}, {{"universal", 1}})}}});
  // prefix and suffix overlapping: the prefix shrinks
  ExpectBothWays(
      V1beta1({"a"}, {{{"abacacada"}, 1}, {{"abacada"}, 1}}),
      {{"levels", {"a"}},
       {"slices", {Slice(2, {Individual("ab", "acada", {"ac", ""})}, {{"universal", 1}})}}});
}

// Kueue's hostnamePrefixAssignment: half the nodes pool-a-node-NNNNN, half
// pool-b-node-NNNNN.
Json HostnamePrefixAssignment(int domain_count) {
  std::vector<std::pair<std::vector<std::string>, int>> domains;
  const int per_prefix = domain_count / 2;
  for (int i = 0; i < domain_count; ++i) {
    const bool b = i >= per_prefix;
    char name[32];
    std::snprintf(name, sizeof(name), "pool-%s-node-%05d", b ? "b" : "a", b ? i - per_prefix : i);
    domains.push_back({{name}, 1});
  }
  return V1beta1({"kubernetes.io/hostname"}, domains);
}

TEST(TopologyAssignmentConversion, HostnamePrefixRunsOrOneSliceWhicheverIsSmaller) {
  // Four nodes: one slice (prefix "pool-") is smaller than two.
  ExpectBothWays(
      HostnamePrefixAssignment(4),
      {{"levels", {"kubernetes.io/hostname"}},
       {"slices",
        {Slice(4,
               {Individual("pool-", nullptr,
                           {"a-node-00000", "a-node-00001", "b-node-00000", "b-node-00001"})},
               {{"universal", 1}})}}});
  // Twenty nodes: a slice per pool is smaller.
  std::vector<std::string> roots;
  for (int i = 0; i < 10; ++i) roots.push_back(std::to_string(i));
  ExpectBothWays(
      HostnamePrefixAssignment(20),
      {{"levels", {"kubernetes.io/hostname"}},
       {"slices",
        {Slice(10, {Individual("pool-a-node-0000", nullptr, roots)}, {{"universal", 1}}),
         Slice(10, {Individual("pool-b-node-0000", nullptr, roots)}, {{"universal", 1}})}}});
}

TEST(TopologyAssignmentConversion, CloudNodeNamesRoundTrip) {
  for (const Json& v1 : {
           V1beta1({"kubernetes.io/hostname"}, {{{"gke-c-pool-a-hash1-aa"}, 3},
                                                {{"gke-c-pool-a-hash1-bb"}, 3},
                                                {{"gke-c-pool-b-hash2-cc"}, 4},
                                                {{"gke-c-pool-b-hash2-dd"}, 5}}),
           V1beta1({"kubernetes.io/hostname"}, {{{"ip-10-24-34-0.us-west-2.compute.internal"}, 2},
                                                {{"ip-10-24-34-1.us-west-2.compute.internal"}, 2},
                                                {{"ip-10-24-35-0.us-west-2.compute.internal"}, 3},
                                                {{"ip-10-24-35-1.us-west-2.compute.internal"}, 4}}),
           V1beta1({"cloud.com/rack", "kubernetes.io/hostname"},
                   {{{"r1", "550e8400-e29b-41d4-a716-446655440000"}, 1},
                    {{"r1", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}, 2},
                    {{"r2", "f47ac10b-58cc-4372-a567-0e02b2c3d479"}, 3}}),
       }) {
    Result<Json> up = Convert(Workload(kV1beta1, v1), kV1beta2);
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    EXPECT_TRUE(AssignmentOf(*up).contains("slices"));
    Result<Json> down = Convert(*up, kV1beta1);
    ASSERT_TRUE(down.ok()) << down.status().ToString();
    EXPECT_EQ(AssignmentOf(*down), v1);
  }
}

TEST(TopologyAssignmentConversion, DownDropsMultiLayerSliceConstraints) {
  Json v2 = Workload(kV1beta2, {{"levels", {"a"}}});
  v2["spec"]["podSets"][0]["topologyRequest"] = {
      {"required", "a"},
      {"podsetSliceRequiredTopologyConstraints", {{{"topology", "a"}, {"size", 2}}}}};
  Result<Json> v1 = Convert(v2, kV1beta1);
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ((*v1)["spec"]["podSets"][0]["topologyRequest"], Json({{"required", "a"}}));
  EXPECT_EQ(AssignmentOf(*v1), Json({{"levels", {"a"}}, {"domains", Json::array()}}));
}

TEST(TopologyAssignmentConversion, MalformedSlicesNameTheField) {
  const std::string at = "status.admission.podSetAssignments[0].topologyAssignment.slices[0]";
  const std::pair<Json, std::string> cases[] = {
      {Slice(2, {Universal("a"), Individual(nullptr, nullptr, {"x", "y"})}, {{"universal", 1}}),
       at + ".valuesPerLevel: Invalid value: valuesPerLevel must have the same length as the "
            "number of levels in this TopologyAssignment"},
      {Slice(2, {Json::object()}, {{"universal", 1}}),
       at + ".valuesPerLevel[0]: Invalid value: exactly one of the fields in [universal "
            "individual] must be set"},
      {Slice(2, {Individual(nullptr, nullptr, {"x"})}, {{"universal", 1}}),
       at + ".valuesPerLevel[0]: Invalid value: valuesPerLevel.individual, if set, must have "
            "roots of length equal to domainCount of this TopologyAssignmentSlice"},
      {Slice(2, {Universal("a")}, {{"individual", {1}}}),
       at + ".podCounts: Invalid value: podCounts.individual must have length equal to "
            "domainCount"},
      {Slice(2, {Universal("a")}, {{"individual", {1, 1}}, {"universal", 1}}),
       at + ".podCounts: Invalid value: exactly one of the fields in [universal individual] "
            "must be set"},
      {Slice(0, {Universal("a")}, {{"universal", 1}}),
       at + ".domainCount: Invalid value: should be an integer greater than or equal to 1"},
      {Slice(2000000000, {Universal("a")}, {{"universal", 1}}),
       at + ".domainCount: Invalid value: the slices hold more than 100000 domains in all, over "
            "Kuota's limit"},
  };
  for (const auto& [slice, want] : cases) {
    Result<Json> r =
        Convert(Workload(kV1beta2, {{"levels", {"a"}}, {"slices", {slice}}}), kV1beta1);
    ASSERT_FALSE(r.ok()) << slice.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(r.status().message(), want) << slice.dump();
  }
  Result<Json> r = Convert(Workload(kV1beta1, V1beta1({"a", "b"}, {{{"a1"}, 1}})), kV1beta2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "status.admission.podSetAssignments[0].topologyAssignment.domains[0].values: Invalid "
            "value: must have one value per level (2)");
}

TEST(TopologyAssignmentConversion, TopologyIsTheSameInBothVersions) {
  Json v1 = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
             {"kind", "Topology"},
             {"metadata", {{"name", "default"}}},
             {"spec", {{"levels", {{{"nodeLabel", "cloud.com/rack"}}}}}}};
  Result<Json> v2 = Convert(v1, kV1beta2);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  Json want = v1;
  want["apiVersion"] = "kueue.x-k8s.io/v1beta2";
  EXPECT_EQ(*v2, want);
  EXPECT_TRUE(IsConvertibleKind("Topology"));
  Result<Json> back = Convert(*v2, kV1beta1);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, v1);
}

}  // namespace
}  // namespace topology_assignment_conversion_test
}  // namespace kuota::conversion
