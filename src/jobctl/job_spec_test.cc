// JobSpec: defaults and the API server's checks on the fields the Job
// controller reads, with field-path messages.
#include "jobctl/job_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace kuota::jobctl {
namespace {

Json MinimalJob() {
  return Json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "pi", "namespace": "team-a", "uid": "uid-1"},
    "spec": {"template": {"spec": {"restartPolicy": "Never",
                                   "containers": [{"name": "main", "image": "busybox"}]}}}
  })");
}

TEST(ParseJobSpecTest, AppliesKubernetesDefaults) {
  Result<JobSpec> spec = ParseJobSpec(MinimalJob());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "pi");
  EXPECT_EQ(spec->ns, "team-a");
  EXPECT_EQ(spec->uid, "uid-1");
  EXPECT_EQ(spec->parallelism, 1);
  EXPECT_FALSE(spec->completions.has_value());
  EXPECT_FALSE(spec->indexed);
  EXPECT_EQ(spec->backoff_limit, 6);
  EXPECT_FALSE(spec->active_deadline_seconds.has_value());
  EXPECT_FALSE(spec->ttl_seconds_after_finished.has_value());
  EXPECT_FALSE(spec->suspend);
  EXPECT_FALSE(spec->managed_elsewhere);
  EXPECT_FALSE(spec->deleting);
  EXPECT_EQ(spec->restart_policy, RestartPolicy::kNever);
}

TEST(ParseJobSpecTest, ReadsEveryField) {
  Json job = MinimalJob();
  job["metadata"].erase("namespace");
  job["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  job["spec"].update(Json::parse(R"({"parallelism": 2, "completions": 5,
      "completionMode": "Indexed", "backoffLimit": 0, "activeDeadlineSeconds": 30,
      "ttlSecondsAfterFinished": 0, "suspend": true,
      "managedBy": "kueue.x-k8s.io/multikueue"})"));
  job["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure";
  Result<JobSpec> spec = ParseJobSpec(job);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->ns, "default");
  EXPECT_EQ(spec->parallelism, 2);
  EXPECT_EQ(spec->completions, 5);
  EXPECT_TRUE(spec->indexed);
  EXPECT_EQ(spec->backoff_limit, 0);
  EXPECT_EQ(spec->active_deadline_seconds, 30);
  EXPECT_EQ(spec->ttl_seconds_after_finished, 0);
  EXPECT_TRUE(spec->suspend);
  EXPECT_TRUE(spec->managed_elsewhere);
  EXPECT_TRUE(spec->deleting);
  EXPECT_EQ(spec->restart_policy, RestartPolicy::kOnFailure);
}

TEST(ParseJobSpecTest, BuiltInManagedByIsOurs) {
  Json job = MinimalJob();
  job["spec"]["managedBy"] = "kubernetes.io/job-controller";
  Result<JobSpec> spec = ParseJobSpec(job);
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(spec->managed_elsewhere);
}

struct InvalidCase {
  std::string name;
  std::string pointer;  // JSON pointer to set (or to remove when value is discarded)
  Json value;
  std::string want;  // substring of the message
};

class ParseJobSpecInvalidTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ParseJobSpecInvalidTest, NamesTheField) {
  const InvalidCase& c = GetParam();
  Json job = MinimalJob();
  const Json::json_pointer ptr(c.pointer);
  if (c.value.is_discarded()) {
    job[ptr.parent_pointer()].erase(ptr.back());
  } else {
    job[ptr] = c.value;
  }
  Status st = ValidateJob(job);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find(c.want), std::string::npos) << st.message();
}

const Json kRemove = Json::value_t::discarded;

INSTANTIATE_TEST_SUITE_P(
    Table, ParseJobSpecInvalidTest,
    ::testing::Values(
        InvalidCase{"NegativeCompletions", "/spec/completions", -1,
                    "spec.completions: Invalid value: -1: must be greater than or equal to 0"},
        InvalidCase{"ParallelismNotANumber", "/spec/parallelism", "two",
                    "spec.parallelism: Invalid value: \"two\": must be an integer"},
        InvalidCase{"ParallelismFraction", "/spec/parallelism", 1.5,
                    "spec.parallelism: Invalid value: 1.5: must be an integer"},
        InvalidCase{"ParallelismTooBig", "/spec/parallelism", 4294967296LL,
                    "spec.parallelism: Invalid value: 4294967296: must be less than"},
        InvalidCase{"NegativeBackoffLimit", "/spec/backoffLimit", -1, "spec.backoffLimit"},
        InvalidCase{"ZeroDeadline", "/spec/activeDeadlineSeconds", 0,
                    "spec.activeDeadlineSeconds: Invalid value: 0: must be greater than or "
                    "equal to 1"},
        InvalidCase{"NegativeTtl", "/spec/ttlSecondsAfterFinished", -5,
                    "spec.ttlSecondsAfterFinished"},
        InvalidCase{"SuspendNotBool", "/spec/suspend", "yes",
                    "spec.suspend: Invalid value: \"yes\": must be a boolean"},
        InvalidCase{"UnknownCompletionMode", "/spec/completionMode", "Sometimes",
                    "spec.completionMode: Unsupported value: \"Sometimes\""},
        InvalidCase{"IndexedWithoutCompletions", "/spec/completionMode", "Indexed",
                    "spec.completions: Required value: when completion mode is Indexed"},
        InvalidCase{"RestartPolicyAlways", "/spec/template/spec/restartPolicy", "Always",
                    "spec.template.spec.restartPolicy: Unsupported value: \"Always\""},
        InvalidCase{"RestartPolicyMissing", "/spec/template/spec/restartPolicy", kRemove,
                    "spec.template.spec.restartPolicy: Required value"},
        InvalidCase{"TemplateMissing", "/spec/template", kRemove, "spec.template: Required value"},
        InvalidCase{"TemplateNotObject", "/spec/template", Json::array(),
                    "spec.template: Invalid value"},
        InvalidCase{"NoContainers", "/spec/template/spec/containers", Json::array(),
                    "spec.template.spec.containers: Required value"},
        InvalidCase{"ContainerWithoutName", "/spec/template/spec/containers/0/name", kRemove,
                    "spec.template.spec.containers[0].name: Required value"},
        InvalidCase{"EnvNotAList", "/spec/template/spec/containers/0/env", "A=1",
                    "spec.template.spec.containers[0].env: Invalid value"},
        InvalidCase{"InitContainerNotObject", "/spec/template/spec/initContainers",
                    Json::array({1}), "spec.template.spec.initContainers[0]: Invalid value"},
        InvalidCase{"LabelNotString", "/spec/template/metadata/labels/app", 3,
                    "spec.template.metadata.labels[app]: Invalid value: 3"},
        InvalidCase{"NoUid", "/metadata/uid", kRemove, "metadata.uid: Required value"},
        InvalidCase{"NoName", "/metadata/name", "", "metadata.name: Required value"},
        InvalidCase{"NoSpec", "/spec", kRemove, "spec: Required value"},
        InvalidCase{"NamespaceNotString", "/metadata/namespace", 7, "metadata.namespace"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

TEST(ParseJobSpecTest, IndexedCompletionsAreCapped) {
  Json job = MinimalJob();
  job["spec"]["completionMode"] = "Indexed";
  job["spec"]["completions"] = 100001;
  Status st = ValidateJob(job);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("spec.completions: Invalid value: 100001: must be less than or "
                              "equal to 100000"),
            std::string::npos)
      << st.message();
}

TEST(ParseJobSpecTest, NotAnObject) {
  for (const Json& bad : {Json(), Json(3), Json::array(), Json("job")}) {
    Status st = ValidateJob(bad);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "job: must be a JSON object");
  }
}

}  // namespace
}  // namespace kuota::jobctl
