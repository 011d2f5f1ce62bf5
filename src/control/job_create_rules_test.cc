// Kueue's label rules on a managed job at creation (jobframework's
// ValidateLabelAsCRDName and validateCreateForMaxExecTime).
#include "control/job_create_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "jobs/registry.h"

namespace kuota::control {
namespace {

nlohmann::json JcrJob(const std::string& queue) {
  return {{"metadata", {{"name", "j"}, {"labels", {{"kueue.x-k8s.io/queue-name", queue}}}}}};
}

TEST(JobCreateRulesTest, QueueNameLabelIsADnsSubdomain) {
  EXPECT_TRUE(ValidateJobQueueNameLabel(JcrJob("user-queue")).ok());
  EXPECT_TRUE(ValidateJobQueueNameLabel(JcrJob("team.a-queue")).ok());
  EXPECT_TRUE(ValidateJobQueueNameLabel({{"metadata", {{"name", "j"}}}}).ok());
  Status st = ValidateJobQueueNameLabel(JcrJob("User_Queue"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_EQ(st.message().rfind("metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: "
                               "\"User_Queue\": a lowercase RFC 1123 subdomain must consist of",
                               0),
            0u)
      << st.message();
}

nlohmann::json MaxExecJob(const std::string& seconds) {
  return {{"metadata",
           {{"name", "j"}, {"labels", {{"kueue.x-k8s.io/max-exec-time-seconds", seconds}}}}}};
}

TEST(JobCreateRulesTest, MaxExecTimeLabelIsAPositiveInteger) {
  EXPECT_TRUE(ValidateJobMaxExecTimeLabel(MaxExecJob("3600")).ok());
  EXPECT_TRUE(ValidateJobMaxExecTimeLabel(MaxExecJob("+5")).ok());  // Atoi takes a sign
  EXPECT_TRUE(ValidateJobMaxExecTimeLabel({{"metadata", {{"name", "j"}}}}).ok());
  const std::string path = "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: ";
  struct Case {
    const char* value;
    std::string want;
  };
  const Case cases[] = {
      {"0", path + "0: should be greater than 0"},
      {"-3", path + "-3: should be greater than 0"},
      {"ten", path + "\"ten\": strconv.Atoi: parsing \"ten\": invalid syntax"},
      {"", path + "\"\": strconv.Atoi: parsing \"\": invalid syntax"},
      {"1.5", path + "\"1.5\": strconv.Atoi: parsing \"1.5\": invalid syntax"},
      {"99999999999999999999",
       path + "\"99999999999999999999\": strconv.Atoi: parsing \"99999999999999999999\": value "
              "out of range"},
  };
  for (const Case& c : cases) {
    Status st = ValidateJobMaxExecTimeLabel(MaxExecJob(c.value));
    EXPECT_EQ(st.ok() ? "" : st.message(), c.want) << c.value;
  }
}

TEST(JobCreateRulesTest, ElasticJobAnnotationOnlyOnKindsThatScaleBySlices) {
  auto elastic = [](const char* value) {
    return nlohmann::json{
        {"metadata", {{"name", "j"}, {"annotations", {{"kueue.x-k8s.io/elastic-job", value}}}}}};
  };
  EXPECT_TRUE(ValidateElasticJobAnnotation(*jobs::FindJobKind("jobs.batch"), elastic("true")).ok());
  EXPECT_TRUE(
      ValidateElasticJobAnnotation(*jobs::FindJobKind("rayclusters.ray.io"), elastic("true")).ok());
  const jobs::JobKind& pytorch = *jobs::FindJobKind("pytorchjobs.kubeflow.org");
  EXPECT_EQ(ValidateElasticJobAnnotation(pytorch, elastic("true")).message(),
            "metadata.annotations[kueue.x-k8s.io/elastic-job]: Forbidden: elastic job is not "
            "supported for \"kubeflow.org/v1, Kind=PyTorchJob\"");
  EXPECT_TRUE(ValidateElasticJobAnnotation(pytorch, elastic("false")).ok());
}

}  // namespace
}  // namespace kuota::control
