// The Pod/Job schema: every type error names its field path; valid specs,
// nulls and unknown fields pass.
#include "jobctl/pod_spec_schema.h"

#include <gtest/gtest.h>

#include "jobctl/job_spec.h"

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

struct SchemaCase {
  const char* name;
  const char* pod_spec;
  const char* want;  // "" = valid; else the start of the error message
};

class PodSpecSchemaTest : public ::testing::TestWithParam<SchemaCase> {};

TEST_P(PodSpecSchemaTest, Checks) {
  const SchemaCase& c = GetParam();
  Status st = ValidatePodSpecSchema(Json::parse(c.pod_spec), "spec");
  if (std::string(c.want).empty()) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  } else {
    EXPECT_EQ(st.code(), StatusCode::kInvalid);
    EXPECT_EQ(st.message().rfind(c.want, 0), 0u) << st.message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PodSpecSchemaTest,
    ::testing::Values(
        SchemaCase{"valid",
                   R"({"containers":[{"name":"c","command":["a"],"env":[{"name":"A","value":"1"},
                       {"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
                       "resources":{"requests":{"cpu":"500m","memory":1024}}}],
                       "tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":5}],
                       "nodeSelector":{"a":"b"},"terminationGracePeriodSeconds":3,
                       "someFutureField":{"x":1}})",
                   ""},
        SchemaCase{"nulls are absent",
                   R"({"containers":[{"name":"c","env":null}],"affinity":null})", ""},
        SchemaCase{"numeric env name", R"({"containers":[{"name":"c","env":[{"name":1}]}]})",
                   "spec.containers[0].env[0].name: Invalid value: 1: must be a string"},
        SchemaCase{"missing env name", R"({"containers":[{"name":"c","env":[{"value":"x"}]}]})",
                   "spec.containers[0].env[0].name: Required value"},
        SchemaCase{"command of numbers", R"({"containers":[{"name":"c","command":[1]}]})",
                   "spec.containers[0].command[0]: Invalid value: 1: must be a string"},
        SchemaCase{"bad quantity",
                   R"({"containers":[{"name":"c","resources":{"limits":{"cpu":"10x"}}}]})",
                   "spec.containers[0].resources.limits[cpu]: Invalid value: \"10x\""},
        SchemaCase{"quantity of the wrong type",
                   R"({"containers":[{"name":"c","resources":{"requests":{"cpu":[]}}}]})",
                   "spec.containers[0].resources.requests[cpu]: Invalid value: []"},
        SchemaCase{"nodeSelector values", R"({"containers":[],"nodeSelector":{"a":1}})",
                   "spec.nodeSelector[a]: Invalid value: 1: must be a string"},
        SchemaCase{
            "toleration seconds", R"({"tolerations":[{"tolerationSeconds":"5"}]})",
            "spec.tolerations[0].tolerationSeconds: Invalid value: \"5\": must be an integer"},
        SchemaCase{"null list item", R"({"initContainers":[null]})",
                   "spec.initContainers[0]: Invalid value: null: must not be null"},
        SchemaCase{"affinity term",
                   R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
                       {"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","values":[1]}]}]}}}})",
                   "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                   "nodeSelectorTerms[0].matchExpressions[0].values[0]"},
        SchemaCase{"grace period", R"({"terminationGracePeriodSeconds":1.5})",
                   "spec.terminationGracePeriodSeconds: Invalid value: 1.5: must be an integer"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return n;
    });

TEST(StatusSchemaTest, JobAndPodStatus) {
  EXPECT_TRUE(
      ValidateJobStatusSchema(Json::parse(R"({"succeeded":1,"conditions":[]})"), "status").ok());
  EXPECT_EQ(ValidateJobStatusSchema(Json::parse(R"({"succeeded":"many"})"), "status").message(),
            "status.succeeded: Invalid value: \"many\": must be an integer");
  EXPECT_FALSE(ValidateJobStatusSchema(Json::parse(R"({"conditions":"none"})"), "status").ok());
  EXPECT_TRUE(
      ValidatePodStatusSchema(Json::parse(R"({"phase":"Failed","containerStatuses":[{"name":"c",
                      "state":{"terminated":{"exitCode":1}}}]})"),
                              "status")
          .ok());
  EXPECT_FALSE(
      ValidatePodStatusSchema(
          Json::parse(R"({"containerStatuses":[{"state":{"terminated":{"exitCode":"1"}}}]})"),
          "status")
          .ok());
  EXPECT_FALSE(ValidateObjectMetaSchema(Json::parse(R"({"labels":{"a":1}})"), "metadata").ok());
  EXPECT_FALSE(ValidateObjectMetaSchema(Json::parse(R"({"finalizers":[1]})"), "metadata").ok());
}

TEST(StatusSchemaTest, ParseJobSpecChecksTheTemplate) {
  Json job = Json::parse(R"({"metadata":{"name":"j","uid":"u"},"spec":{"completionMode":"Indexed",
      "completions":2,"template":{"spec":{"restartPolicy":"Never",
      "containers":[{"name":"c","env":[{"name":7}]}]}}}})");
  Status st = ValidateJob(job);
  EXPECT_EQ(st.message(),
            "spec.template.spec.containers[0].env[0].name: Invalid value: 7: must be a string");
}

}  // namespace
}  // namespace kuota::jobctl
