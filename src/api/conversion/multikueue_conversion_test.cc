// MultiKueueCluster's kubeConfig moves under v1beta2's clusterSource and
// back; MultiKueueConfig's v1beta2-only quotaManagement is dropped going down.
#include <gtest/gtest.h>

#include "api/conversion/kueue_conversion.h"

namespace kuota::conversion {
namespace {

using Json = nlohmann::json;

Json MkConvert(const Json& in, std::string_view version) {
  Result<Json> r = Convert(in, version);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Json();
}

TEST(MultiKueueConversion, ClusterKubeConfigMovesUnderClusterSource) {
  const Json v1 = Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"MultiKueueCluster",
    "metadata":{"name":"w1"},
    "spec":{"kubeConfig":{"location":"w1-secret","locationType":"Secret"}},
    "status":{"conditions":[{"type":"Active","status":"True"}]}})");
  const Json v2 = Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"MultiKueueCluster",
    "metadata":{"name":"w1"},
    "spec":{"clusterSource":{"kubeConfig":{"location":"w1-secret","locationType":"Secret"}}},
    "status":{"conditions":[{"type":"Active","status":"True"}]}})");
  EXPECT_EQ(MkConvert(v1, kV1beta2), v2);
  EXPECT_EQ(MkConvert(v2, kV1beta1), v1);
}

TEST(MultiKueueConversion, ClusterProfileRefToo) {
  const Json v2 = Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"MultiKueueCluster",
    "metadata":{"name":"w1"},"spec":{"clusterSource":{"clusterProfileRef":{"name":"p"}}}})");
  const Json v1 = MkConvert(v2, kV1beta1);
  EXPECT_EQ(v1["spec"], Json::parse(R"({"clusterProfileRef":{"name":"p"}})"));
  EXPECT_EQ(MkConvert(v1, kV1beta2), v2);
}

TEST(MultiKueueConversion, ConfigDropsQuotaManagementGoingDown) {
  const Json v2 = Json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"MultiKueueConfig",
    "metadata":{"name":"lab"},"spec":{"clusters":["w1","w2"],"quotaManagement":"Manual"}})");
  const Json v1 = MkConvert(v2, kV1beta1);
  EXPECT_EQ(v1["apiVersion"], "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(v1["spec"], Json::parse(R"({"clusters":["w1","w2"]})"));
  EXPECT_EQ(MkConvert(v1, kV1beta2)["spec"], v1["spec"]);
}

}  // namespace
}  // namespace kuota::conversion
