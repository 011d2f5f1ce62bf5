// JSON limits and the JSON patch bounds: depth scans that ignore brackets in
// strings, iterative depth and size bounds, and patches that grow past the
// object limit, nest too deep or carry too many operations.
#include <string>

#include <gtest/gtest.h>

#include "server/field_labels.h"
#include "server/json_limits.h"
#include "server/patch.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonLimitsTest, TextDepthCountsOnlyStructure) {
  EXPECT_FALSE(CheckJsonTextDepth(Nested(10), 10));
  auto deep = CheckJsonTextDepth(Nested(11), 10);
  ASSERT_TRUE(deep);
  EXPECT_NE(deep->find("limit of 10 levels"), std::string::npos) << *deep;
  // Brackets inside strings, escaped quotes included, are not structure.
  EXPECT_FALSE(CheckJsonTextDepth(R"({"a":"[[[[[[\"[[[[[[[[[[[["})", 2));
  EXPECT_TRUE(CheckJsonTextDepth(R"({"a":"\\",  "b":[[[]]]})", 3));
}

TEST(JsonLimitsTest, DepthAndSizeAreBoundedWalks) {
  EXPECT_EQ(JsonDepth(Json(1)), 0);
  EXPECT_EQ(JsonDepth(Json::parse(R"({"a":[{"b":[]}]})")), 4);
  // 100,000 levels: a recursive walk would overflow the stack under ASan.
  Json deep = Json::array();
  for (int i = 0; i < 100000; ++i) deep = Json::array({std::move(deep)});
  EXPECT_GT(JsonDepth(deep, 50), 50);
  const Json obj = Json::parse(R"({"name":"abc","list":[1,2,3],"flag":true})");
  const size_t dumped = obj.dump().size();
  EXPECT_GE(JsonSizeBound(obj, 1 << 20), dumped);
  EXPECT_LT(JsonSizeBound(obj, 1 << 20), dumped * 4);
  Json big = Json::array();
  for (int i = 0; i < 1000; ++i) big.push_back(std::string(1000, 'x'));
  EXPECT_GT(JsonSizeBound(big, 5000), 5000u);
  EXPECT_LT(JsonSizeBound(big, 5000), 20000u);  // stopped early
  // Destroying it must not recurse either.
  deep = Json();
}

const Json kObject = Json::parse(
    R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"},"spec":{"x":"0123456789"}})");

TEST(JsonPatchLimitsTest, CopyDoublingStopsAtTheObjectLimit) {
  Json ops = Json::array({{{"op", "add"}, {"path", "/spec/y"}, {"value", std::string(4096, 'y')}}});
  for (int i = 0; i < 40; ++i) {
    ops.push_back({{"op", "copy"}, {"from", "/spec"}, {"path", "/spec/c" + std::to_string(i)}});
  }
  ApiError error;
  auto got = ApplyPatch(PatchType::kJsonPatch, kObject, ops.dump(), &error);
  ASSERT_FALSE(got);
  EXPECT_EQ(error.code, 413);
  EXPECT_NE(error.message.find(std::to_string(kMaxObjectBytes)), std::string::npos)
      << error.message;
}

TEST(JsonPatchLimitsTest, TooManyOperations) {
  Json ops = Json::array();
  for (size_t i = 0; i <= kMaxJsonPatchOperations; ++i) {
    ops.push_back({{"op", "test"}, {"path", "/kind"}, {"value", "Namespace"}});
  }
  ApiError error;
  EXPECT_FALSE(ApplyPatch(PatchType::kJsonPatch, kObject, ops.dump(), &error));
  EXPECT_EQ(error.code, 422);
  EXPECT_NE(error.message.find("10000"), std::string::npos) << error.message;
}

TEST(JsonPatchLimitsTest, DeepPatchBodyIsABadRequest) {
  ApiError error;
  EXPECT_FALSE(ApplyPatch(PatchType::kMergePatch, kObject, Nested(20000), &error));
  EXPECT_EQ(error.code, 400);
}

TEST(JsonPatchLimitsTest, ReplacingAndRemovingKeepTheBudget) {
  // 2,000 replacements of a 1 KiB value never hold more than one copy.
  Json ops = Json::array();
  for (int i = 0; i < 2000; ++i) {
    ops.push_back({{"op", i == 0 ? "add" : "replace"},
                   {"path", "/spec/v"},
                   {"value", std::string(1024, 'a' + i % 26)}});
  }
  ApiError error;
  auto got = ApplyPatch(PatchType::kJsonPatch, kObject, ops.dump(), &error);
  ASSERT_TRUE(got) << error.message;
  EXPECT_EQ((*got)["spec"]["v"], std::string(1024, 'a' + 1999 % 26));
}

TEST(JsonPatchLimitsTest, OrdinaryPatchesStillApply) {
  ApiError error;
  auto got = ApplyPatch(PatchType::kJsonPatch, kObject,
                        R"([{"op":"copy","from":"/spec/x","path":"/spec/z"},
                            {"op":"move","from":"/spec/x","path":"/spec/w"},
                            {"op":"remove","path":"/spec/z"}])",
                        &error);
  ASSERT_TRUE(got) << error.message;
  EXPECT_EQ((*got)["spec"], Json::parse(R"({"w":"0123456789"})"));
  EXPECT_FALSE(ApplyPatch(PatchType::kJsonPatch, kObject,
                          R"([{"op":"remove","path":"/spec/nope"}])", &error));
  EXPECT_EQ(error.code, 422);
}

TEST(FieldLabelsTest, KubesFieldsOnly) {
  const ResourceInfo* pods = FindResource("", "pods");
  const ResourceInfo* cqs = FindResource("kueue.x-k8s.io", "clusterqueues");
  const ResourceInfo* events = FindResource("", "events");
  ASSERT_TRUE(pods && cqs && events);
  EXPECT_FALSE(CheckFieldSelector(*pods, "status.phase=Running,metadata.name!=x"));
  EXPECT_FALSE(CheckFieldSelector(*events, "involvedObject.uid=1,reason=Preempted"));
  EXPECT_FALSE(CheckFieldSelector(*cqs, "metadata.name=cq"));
  auto bad = CheckFieldSelector(*cqs, "spec.cohort=x");
  ASSERT_TRUE(bad);
  EXPECT_EQ(*bad, "field label not supported: spec.cohort");
  EXPECT_TRUE(CheckFieldSelector(*pods, "status.phase"));  // no operator
}

}  // namespace
}  // namespace kuota::server
