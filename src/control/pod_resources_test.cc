// Pod resources: a pod's summed requests (init containers raise, limits
// default requests), field-path errors, and the first shortfall named.
#include "control/pod_resources.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

using Json = nlohmann::json;

TEST(PodRequests, ContainersAddUpInitContainersRaiseAndLimitsDefaultRequests) {
  Json pod = Json::parse(R"J({"spec": {
      "containers": [
        {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}},
        {"name": "b", "resources": {"limits": {"cpu": "1", "nvidia.com/gpu": "2"}}}],
      "initContainers": [
        {"name": "i", "resources": {"requests": {"cpu": "4"}}}]}})J");
  auto r = PodRequests(pod);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["cpu"], 4000);
  EXPECT_EQ((*r)["memory"], (int64_t{1} << 30) * 1000);
  EXPECT_EQ((*r)[kGpuResource], 2000);
  EXPECT_EQ((*r)["pods"], 1000);
}

TEST(PodRequests, BadQuantityNamesTheField) {
  Json pod = Json::parse(
      R"J({"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "lots"}}}]}})J");
  auto r = PodRequests(pod);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.containers[0].resources.requests.cpu"),
            std::string::npos);
}

TEST(FirstShortfall, NamesWhatIsMissingAndIgnoresUntrackedResources) {
  ResourceAmounts have = {{"cpu", 2000}, {kGpuResource, 0}};
  EXPECT_EQ(FirstShortfall({{"cpu", 1000}, {"ephemeral-storage", 5000}}, have), "");
  EXPECT_EQ(FirstShortfall({{kGpuResource, 1000000}}, have),
            "1000 nvidia.com/gpu (the machine has 0 nvidia.com/gpu)");
}

}  // namespace
}  // namespace kuota::control
