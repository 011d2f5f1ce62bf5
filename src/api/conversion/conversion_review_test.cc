#include "api/conversion/conversion_review.h"

#include <gtest/gtest.h>

namespace kuota::conversion {
namespace {

using Json = nlohmann::json;

// A ConversionReview asking for `desired` with `objects`.
Json Review(const std::string& desired, Json objects) {
  Json request = {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
                  {"desiredAPIVersion", desired},
                  {"objects", std::move(objects)}};
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "ConversionReview"},
          {"request", std::move(request)}};
}

Json V1beta1ClusterQueue() {
  return Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue",
    "metadata":{"name":"cq","resourceVersion":"7","uid":"u-1","labels":{"team":"a"}},
    "spec":{"cohort":"all","namespaceSelector":{}}})");
}

Json V1beta2LocalQueue() {
  return Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue",
    "metadata":{"name":"lq","namespace":"team-a"},"spec":{"clusterQueue":"cq"}})");
}

void ExpectFailure(const Json& answer, const std::string& needle) {
  ASSERT_TRUE(answer.contains("response")) << answer.dump();
  EXPECT_EQ(answer["response"]["result"]["status"], "Failure") << answer.dump();
  EXPECT_NE(answer["response"]["result"]["message"].get<std::string>().find(needle),
            std::string::npos)
      << answer.dump();
  EXPECT_TRUE(answer["response"]["convertedObjects"].empty());
}

TEST(ConversionReview, ConvertsEachObjectAndEchoesTheUid) {
  Json answer =
      ReviewConversion(Review("kueue.x-k8s.io/v1beta2", Json::array({V1beta1ClusterQueue()})));
  EXPECT_EQ(answer["apiVersion"], "apiextensions.k8s.io/v1");
  EXPECT_EQ(answer["kind"], "ConversionReview");
  EXPECT_EQ(answer["response"]["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(answer["response"]["result"]["status"], "Success");
  ASSERT_EQ(answer["response"]["convertedObjects"].size(), 1u);
  const Json& cq = answer["response"]["convertedObjects"][0];
  EXPECT_EQ(cq["apiVersion"], "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(cq["spec"]["cohortName"], "all");
  EXPECT_FALSE(cq["spec"].contains("cohort"));
  // metadata is the API server's: kept as it came.
  EXPECT_EQ(cq["metadata"], V1beta1ClusterQueue()["metadata"]);
}

TEST(ConversionReview, ConvertsDownToV1beta1) {
  Json v2 = V1beta1ClusterQueue();
  v2["apiVersion"] = "kueue.x-k8s.io/v1beta2";
  v2["spec"].erase("cohort");
  v2["spec"]["cohortName"] = "all";
  Json answer = ReviewConversion(Review("kueue.x-k8s.io/v1beta1", Json::array({v2})));
  ASSERT_EQ(answer["response"]["result"]["status"], "Success") << answer.dump();
  EXPECT_EQ(answer["response"]["convertedObjects"][0], V1beta1ClusterQueue());
}

TEST(ConversionReview, MixedKindsAndVersionsKeepTheirOrder) {
  Json objects = Json::array({V1beta2LocalQueue(), V1beta1ClusterQueue(),
                              Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2",
    "kind":"ResourceFlavor","metadata":{"name":"gpu"},"spec":{"nodeLabels":{"a":"b"}}})")});
  Json answer = ReviewConversion(Review("kueue.x-k8s.io/v1beta1", objects));
  ASSERT_EQ(answer["response"]["result"]["status"], "Success") << answer.dump();
  const Json& out = answer["response"]["convertedObjects"];
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0]["kind"], "LocalQueue");
  EXPECT_EQ(out[0]["apiVersion"], "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(out[1], V1beta1ClusterQueue());  // already in the desired version
  EXPECT_EQ(out[2]["kind"], "ResourceFlavor");
  EXPECT_EQ(out[2]["apiVersion"], "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(out[2]["spec"]["nodeLabels"]["a"], "b");
}

TEST(ConversionReview, EmptyObjectListSucceeds) {
  Json answer = ReviewConversion(Review("kueue.x-k8s.io/v1beta2", Json::array()));
  EXPECT_EQ(answer["response"]["result"]["status"], "Success");
  EXPECT_TRUE(answer["response"]["convertedObjects"].is_array());
}

TEST(ConversionReview, WrongDesiredApiVersion) {
  for (const char* desired : {"kueue.x-k8s.io/v1", "batch/v1", "v1beta2", ""}) {
    SCOPED_TRACE(desired);
    Json answer = ReviewConversion(Review(desired, Json::array({V1beta1ClusterQueue()})));
    ExpectFailure(answer, "request.desiredAPIVersion: Unsupported value");
    EXPECT_EQ(answer["response"]["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
  }
}

TEST(ConversionReview, MalformedObjects) {
  struct Case {
    const char* name;
    Json object;
    const char* needle;
  } cases[] = {
      {"not an object", Json("text"), "request.objects[1]: expected an object"},
      {"no apiVersion", Json::parse(R"({"kind":"ClusterQueue","metadata":{"name":"x"}})"),
       "request.objects[1] (ClusterQueue x): apiVersion: Unsupported value: \"\""},
      {"another group", Json::parse(R"({"apiVersion":"batch/v1","kind":"Job"})"),
       "this webhook converts kueue.x-k8s.io objects only"},
      {"unknown kind", Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Nope"})"),
       "kind: Unsupported value: \"Nope\""},
      {"unknown version",
       Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1alpha1","kind":"ClusterQueue"})"),
       "supported versions: v1beta1, v1beta2"},
      {"no form in v1beta1", Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2",
        "kind":"Workload","metadata":{"name":"w"},
        "spec":{"priorityClassRef":{"group":"example.com","kind":"Other","name":"p"}}})"),
       "request.objects[1] (Workload w): spec.priorityClassRef"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Json objects = Json::array({V1beta2LocalQueue(), c.object});
    ExpectFailure(ReviewConversion(Review("kueue.x-k8s.io/v1beta1", objects)), c.needle);
  }
}

TEST(ConversionReview, NotAReview) {
  ExpectFailure(ReviewConversion(Json::array()), "not a ConversionReview object");
  ExpectFailure(ReviewConversion(Json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1beta1",
    "kind":"ConversionReview","request":{"uid":"x"}})")),
                "apiVersion \"apiextensions.k8s.io/v1beta1\"");
  ExpectFailure(ReviewConversion(Json::parse(
                    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"})")),
                "request: Required value");
  Json no_uid = Review("kueue.x-k8s.io/v1beta2", Json::array());
  no_uid["request"].erase("uid");
  ExpectFailure(ReviewConversion(no_uid), "request.uid: Required value");
  Json no_objects = Review("kueue.x-k8s.io/v1beta2", Json::array());
  no_objects["request"]["objects"] = Json::object();
  ExpectFailure(ReviewConversion(no_objects), "request.objects: Required value");
}

}  // namespace
}  // namespace kuota::conversion
