// Kueue's job update rules (jobframework's ValidateJobOnUpdate): the queue
// name of a running job, its WorkloadPriorityClass label and its
// max-exec-time-seconds label.
#include "control/job_update_rules.h"

#include <gtest/gtest.h>

#include <string>

#include "jobs/registry.h"

namespace kuota::control {
namespace {

nlohmann::json JurJob(bool suspend, const std::string& queue, const std::string& priority = "") {
  nlohmann::json job = {{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"metadata", {{"name", "j"}, {"namespace", "ns"}}},
                        {"spec", {{"suspend", suspend}}}};
  if (!queue.empty()) job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = queue;
  if (!priority.empty()) job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] = priority;
  return job;
}

nlohmann::json WithMaxExec(nlohmann::json job, const std::string& seconds) {
  job["metadata"]["labels"]["kueue.x-k8s.io/max-exec-time-seconds"] = seconds;
  return job;
}

TEST(JobUpdateRulesTest, KueuesRulesOnARunningOrSuspendedJob) {
  const jobs::JobKind& kind = *jobs::FindJobKind("jobs.batch");
  struct Case {
    const char* name;
    nlohmann::json old_job, new_job;
    std::string want;  // "" = accepted
  };
  const Case cases[] = {
      {"unchanged running job", JurJob(false, "a"), JurJob(false, "a"), ""},
      {"queue changed while suspended", JurJob(true, "a"), JurJob(true, "b"), ""},
      {"queue changed while running", JurJob(false, "a"), JurJob(false, "b"),
       "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is immutable"},
      {"queue removed from a running job", JurJob(false, "a"), JurJob(false, ""),
       "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is immutable"},
      {"priority class added while suspended", JurJob(true, "a"), JurJob(true, "a", "high"), ""},
      {"priority class added while running", JurJob(false, "a"), JurJob(false, "a", "high"),
       "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"high\": "
       "WorkloadPriorityClass cannot be added to a non-suspended workload"},
      {"priority class changed while running", JurJob(false, "a", "low"),
       JurJob(false, "a", "high"), ""},
      {"priority class removed", JurJob(true, "a", "low"), JurJob(true, "a"),
       "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"\": "
       "WorkloadPriorityClass cannot be removed from a workload"},
      {"max exec time changed while suspended", WithMaxExec(JurJob(true, "a"), "60"),
       WithMaxExec(JurJob(true, "a"), "120"), ""},
      {"max exec time changed while running", WithMaxExec(JurJob(false, "a"), "60"),
       WithMaxExec(JurJob(false, "a"), "120"),
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"120\": field is "
       "immutable"},
      {"max exec time changed as the job is started", WithMaxExec(JurJob(true, "a"), "60"),
       WithMaxExec(JurJob(false, "a"), "120"),
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"120\": field is "
       "immutable"},
      {"max exec time added to a running job", JurJob(false, "a"),
       WithMaxExec(JurJob(false, "a"), "60"),
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"60\": field is "
       "immutable"},
  };
  for (const Case& c : cases) {
    Status st = ValidateJobUpdate(kind, c.old_job, c.new_job);
    EXPECT_EQ(st.ok() ? "" : st.message(), c.want) << c.name;
  }
}

// Kueue's ElasticJobsViaWorkloadSlices: an elastic Job scales while it runs;
// whether it is elastic never changes.
TEST(JobUpdateRulesTest, AnElasticJobScalesWhileRunningAndStaysElastic) {
  const jobs::JobKind& kind = *jobs::FindJobKind("jobs.batch");
  auto job = [](bool elastic, int parallelism) {
    nlohmann::json j = JurJob(false, "a");
    if (elastic) j["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] = "true";
    j["spec"]["parallelism"] = parallelism;
    return j;
  };
  EXPECT_TRUE(ValidateJobUpdate(kind, job(true, 2), job(true, 4)).ok());
  EXPECT_TRUE(ValidateJobUpdate(kind, job(true, 4), job(true, 1)).ok());
  EXPECT_EQ(ValidateJobUpdate(kind, job(true, 2), job(false, 2)).message(),
            "metadata.annotations[kueue.x-k8s.io/elastic-job]: Invalid value: false: field is "
            "immutable");
  EXPECT_EQ(ValidateJobUpdate(kind, job(false, 2), job(true, 2)).message(),
            "metadata.annotations[kueue.x-k8s.io/elastic-job]: Invalid value: true: field is "
            "immutable");
}

TEST(JobUpdateRulesTest, AManagedPodKeepsItsQueueWhileUngatedAndItsGroupAlways) {
  auto pod = [](bool gated, const std::string& queue, const std::string& group) {
    nlohmann::json p = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", "p"}, {"labels", {{"kueue.x-k8s.io/queue-name", queue}}}}},
        {"spec", nlohmann::json::object()}};
    if (gated) p["spec"]["schedulingGates"] = {{{"name", "kueue.x-k8s.io/admission"}}};
    if (!group.empty()) p["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] = group;
    return p;
  };
  EXPECT_TRUE(ValidateManagedPodUpdate(pod(true, "a", ""), pod(true, "b", "")).ok());
  EXPECT_TRUE(ValidateManagedPodUpdate(pod(true, "a", "g"), pod(false, "a", "g")).ok());
  EXPECT_EQ(ValidateManagedPodUpdate(pod(false, "a", ""), pod(false, "b", "")).message(),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is immutable");
  EXPECT_EQ(ValidateManagedPodUpdate(pod(true, "a", "g"), pod(true, "a", "h")).message(),
            "metadata.labels[kueue.x-k8s.io/pod-group-name]: Invalid value: \"h\": field is "
            "immutable");
}

}  // namespace
}  // namespace kuota::control
