// Kueue's queue-name label rule on a managed job (jobframework's
// ValidateLabelAsCRDName).
#include "control/job_create_rules.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace kuota::control
