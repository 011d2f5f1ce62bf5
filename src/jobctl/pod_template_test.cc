// Pod template: the Pod a Job creates, NonIndexed and Indexed.
#include "jobctl/pod_template.h"

#include <gtest/gtest.h>

#include <string>

#include "jobctl/job_labels.h"

namespace kuota::jobctl {
namespace {

JobSpec Spec(bool indexed) {
  Json job = Json::parse(R"({
    "metadata": {"name": "train", "namespace": "team-a", "uid": "uid-7"},
    "spec": {"completions": 3, "template": {
      "metadata": {"labels": {"app": "train"}, "annotations": {"note": "x"}},
      "spec": {"restartPolicy": "OnFailure",
               "initContainers": [{"name": "setup"}],
               "containers": [{"name": "main", "image": "busybox",
                               "env": [{"name": "A", "value": "1"}]},
                              {"name": "side",
                               "env": [{"name": "JOB_COMPLETION_INDEX", "value": "mine"}]}]}}}
  })");
  if (indexed) job["spec"]["completionMode"] = "Indexed";
  Result<JobSpec> spec = ParseJobSpec(job);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return *spec;
}

TEST(BuildPodTest, NonIndexedPodCarriesJobLabelsAndOwner) {
  Json pod = BuildPod(Spec(false), std::nullopt);
  EXPECT_EQ(pod["apiVersion"], "v1");
  EXPECT_EQ(pod["kind"], "Pod");
  const Json& meta = pod["metadata"];
  EXPECT_FALSE(meta.contains("name"));
  EXPECT_EQ(meta["generateName"], "train-");
  EXPECT_EQ(meta["namespace"], "team-a");
  EXPECT_EQ(meta["labels"], Json::parse(R"({"app": "train",
      "batch.kubernetes.io/controller-uid": "uid-7", "batch.kubernetes.io/job-name": "train",
      "controller-uid": "uid-7", "job-name": "train"})"));
  EXPECT_EQ(meta["annotations"], Json::parse(R"({"note": "x"})"));
  EXPECT_EQ(meta["ownerReferences"], Json::parse(R"([{"apiVersion": "batch/v1", "kind": "Job",
      "name": "train", "uid": "uid-7", "controller": true, "blockOwnerDeletion": true}])"));
  EXPECT_EQ(pod["spec"]["restartPolicy"], "OnFailure");
  EXPECT_EQ(pod["spec"]["containers"][0]["env"], Json::parse(R"([{"name": "A", "value": "1"}])"));
  EXPECT_FALSE(pod["spec"].contains("hostname"));
}

TEST(BuildPodTest, IndexedPodCarriesItsIndexEverywhere) {
  Json pod = BuildPod(Spec(true), 2);
  const Json& meta = pod["metadata"];
  EXPECT_EQ(meta["generateName"], "train-2-");
  EXPECT_EQ(meta["labels"][kCompletionIndexKey], "2");
  EXPECT_EQ(meta["annotations"][kCompletionIndexKey], "2");
  EXPECT_EQ(meta["annotations"]["note"], "x");
  EXPECT_EQ(pod["spec"]["hostname"], "train-2");
  EXPECT_EQ(pod["spec"]["containers"][0]["env"], Json::parse(R"([{"name": "A", "value": "1"},
                            {"name": "JOB_COMPLETION_INDEX", "value": "2"}])"));
  // A container that sets the variable itself keeps its own value.
  EXPECT_EQ(pod["spec"]["containers"][1]["env"],
            Json::parse(R"([{"name": "JOB_COMPLETION_INDEX", "value": "mine"}])"));
  EXPECT_EQ(pod["spec"]["initContainers"][0]["env"],
            Json::parse(R"([{"name": "JOB_COMPLETION_INDEX", "value": "2"}])"));
}

TEST(PodGenerateNameTest, ShortensTheJobNameAndKeepsTheIndex) {
  const std::string long_name(70, 'a');
  EXPECT_EQ(PodGenerateName("pi", std::nullopt), "pi-");
  EXPECT_EQ(PodGenerateName("pi", 12), "pi-12-");
  std::string plain = PodGenerateName(long_name, std::nullopt);
  EXPECT_EQ(plain.size(), kMaxGenerateNameLength);
  EXPECT_EQ(plain.back(), '-');
  std::string indexed = PodGenerateName(long_name, 12345);
  EXPECT_EQ(indexed.size(), kMaxGenerateNameLength);
  EXPECT_EQ(indexed.substr(indexed.size() - 7), "-12345-");
}

}  // namespace
}  // namespace kuota::jobctl
