// ProvisioningRequestConfig admission: the CRD's defaults and rules, in
// kube-apiserver's words.
#include "control/provisioning_config_rules.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json Config(Json spec) {
  return {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
          {"kind", "ProvisioningRequestConfig"},
          {"metadata", {{"name", "prc"}}},
          {"spec", std::move(spec)}};
}

TEST(ProvisioningConfigRules, DefaultsTheRetryStrategy) {
  Json c = Config({{"provisioningClassName", "queued-provisioning.gke.io"}});
  DefaultProvisioningRequestConfig(c);
  EXPECT_EQ(
      c["spec"]["retryStrategy"],
      (Json{{"backoffLimitCount", 3}, {"backoffBaseSeconds", 60}, {"backoffMaxSeconds", 1800}}));
  Json partial =
      Config({{"provisioningClassName", "a"}, {"retryStrategy", {{"backoffBaseSeconds", 1}}}});
  DefaultProvisioningRequestConfig(partial);
  EXPECT_EQ(partial["spec"]["retryStrategy"]["backoffBaseSeconds"], 1);
  EXPECT_EQ(partial["spec"]["retryStrategy"]["backoffLimitCount"], 3);
  EXPECT_TRUE(ValidateProvisioningRequestConfig(partial).ok());
}

struct RuleCase {
  std::string name;
  Json spec;
  std::string want;  // a substring of the message
};

class ProvisioningConfigRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ProvisioningConfigRuleTest, Refused) {
  Status st = ValidateProvisioningRequestConfig(Config(GetParam().spec));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(GetParam().want), std::string::npos) << st.message();
}

Json ManyResources(int n) {
  Json a = Json::array();
  for (int i = 0; i < n; ++i) a.push_back("example.com/r" + std::to_string(i));
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Crd, ProvisioningConfigRuleTest,
    ::testing::Values(
        RuleCase{"ClassRequired", Json::object(), "spec.provisioningClassName: Required value"},
        RuleCase{"ClassPattern",
                 {{"provisioningClassName", "Not_A_Name"}},
                 "spec.provisioningClassName: Invalid value: \"Not_A_Name\": "
                 "spec.provisioningClassName in body should match"},
        RuleCase{"ClassTooLong",
                 {{"provisioningClassName", std::string(254, 'a')}},
                 "spec.provisioningClassName: Too long: may not be more than 253 bytes"},
        RuleCase{"TooManyManagedResources",
                 {{"provisioningClassName", "a"}, {"managedResources", ManyResources(101)}},
                 "spec.managedResources: Too many: 101: must have at most 100 items"},
        RuleCase{"DuplicateManagedResource",
                 {{"provisioningClassName", "a"}, {"managedResources", {"cpu", "cpu"}}},
                 "spec.managedResources[1]: Duplicate value: \"cpu\""},
        RuleCase{"ParameterTooLong",
                 {{"provisioningClassName", "a"}, {"parameters", {{"p", std::string(256, 'x')}}}},
                 "spec.parameters.p: Too long: may not be more than 255 bytes"},
        RuleCase{"RetryNotAnInteger",
                 {{"provisioningClassName", "a"}, {"retryStrategy", {{"backoffLimitCount", "3"}}}},
                 "spec.retryStrategy.backoffLimitCount: Invalid value: \"string\": "
                 "spec.retryStrategy.backoffLimitCount in body must be of type integer"},
        RuleCase{"RetryPastInt32",
                 {{"provisioningClassName", "a"},
                  {"retryStrategy", {{"backoffMaxSeconds", 4294967296}}}},
                 "spec.retryStrategy.backoffMaxSeconds"},
        RuleCase{
            "NodeSelectorKeyRequired",
            {{"provisioningClassName", "a"},
             {"podSetUpdates", {{"nodeSelector", {{{"valueFromProvisioningClassDetail", "d"}}}}}}},
            "spec.podSetUpdates.nodeSelector[0].key: Required value"},
        RuleCase{"MergePolicyEnum",
                 {{"provisioningClassName", "a"}, {"podSetMergePolicy", "Any"}},
                 "spec.podSetMergePolicy: Unsupported value: \"Any\": supported values: "
                 "\"IdenticalPodTemplates\", \"IdenticalWorkloadSchedulingRequirements\""},
        RuleCase{"UnknownField",
                 {{"provisioningClassName", "a"}, {"classname", "b"}},
                 "unknown field \"spec.classname\""}),
    [](const ::testing::TestParamInfo<RuleCase>& i) { return i.param.name; });

}  // namespace
}  // namespace kuota::control
