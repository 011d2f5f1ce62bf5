// BatchJob and Kueue's elastic Jobs (kueue.x-k8s.io/elastic-job: "true"):
// pods gated from the start, no partial admission, a parallelism that is
// the user's to change (not saved and restored around a run).
#include "jobs/batch_job.h"

#include <gtest/gtest.h>

namespace kuota::jobs {
namespace {

Json ElasticBatchJob(bool elastic, int parallelism) {
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", "scale"},
                {"namespace", "ml"},
                {"uid", "u-1"},
                {"labels", {{"kueue.x-k8s.io/queue-name", "lq"}}}}},
              {"spec",
               {{"parallelism", parallelism},
                {"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers",
                     Json::array({{{"name", "main"},
                                   {"image", "busybox"},
                                   {"resources", {{"requests", {{"cpu", "100m"}}}}}}})}}}}}}}};
  if (elastic) job["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] = "true";
  return job;
}

TEST(BatchJobElasticTest, KueuesWebhookGatesAnElasticJobsPods) {
  BatchJob kind;
  Json job = ElasticBatchJob(true, 2);
  kind.DefaultOnCreate(job);
  EXPECT_EQ(job["spec"]["suspend"], true);
  EXPECT_EQ(job["spec"]["template"]["spec"]["schedulingGates"],
            Json::array({{{"name", "kueue.x-k8s.io/elastic-job"}}}));
  kind.DefaultOnCreate(job);  // once only
  EXPECT_EQ(job["spec"]["template"]["spec"]["schedulingGates"].size(), 1u);
  Json plain = ElasticBatchJob(false, 2);
  kind.DefaultOnCreate(plain);
  EXPECT_FALSE(plain["spec"]["template"]["spec"].contains("schedulingGates"));
}

TEST(BatchJobElasticTest, NoPartialAdmissionForAnElasticJob) {
  BatchJob kind;
  Json job = ElasticBatchJob(true, 4);
  EXPECT_TRUE(kind.Validate(job).ok()) << kind.Validate(job).message();
  job["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"] = "2";
  EXPECT_EQ(kind.Validate(job).message(),
            "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: \"2\": "
            "partial admission and elastic job cannot be used together");
}

TEST(BatchJobElasticTest, TheWorkloadIsMarkedElasticAndCountsTheCurrentParallelism) {
  BatchJob kind;
  Json job = kind.Start(ElasticBatchJob(true, 2), {{.name = "main", .count = 2}});
  // Scaled while running: the Workload counts what the Job asks now.
  job["spec"]["parallelism"] = 4;
  Result<Json> wl = kind.BuildWorkload(job);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  EXPECT_EQ((*wl)["spec"]["podSets"][0]["count"], 4);
  EXPECT_EQ((*wl)["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"], "true");
  // Stopped (preempted): the parallelism stays what the user made it.
  Json stopped = kind.Stop(job);
  EXPECT_EQ(stopped["spec"]["parallelism"], 4);
  EXPECT_EQ(stopped["spec"]["suspend"], true);
  // A job that is not elastic still gets its parallelism back after a
  // partial admission.
  Json partial = kind.Start(ElasticBatchJob(false, 4), {{.name = "main", .count = 2}});
  EXPECT_EQ(partial["spec"]["parallelism"], 2);
  EXPECT_EQ(kind.Stop(partial)["spec"]["parallelism"], 4);
}

}  // namespace
}  // namespace kuota::jobs
