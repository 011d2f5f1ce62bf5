// Kueue's deployment and statefulset webhooks and StatefulSet pod labels, and
// the pod group rules a StatefulSet's pods follow (fast admission, serving).
#include "jobs/serving_workloads.h"

#include <gtest/gtest.h>

#include "jobs/pod_group.h"
#include "jobs/pod_kind.h"

namespace kuota::jobs {
namespace {

using Json = nlohmann::json;

Json Queued(const std::string& kind, int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata",
           {{"name", "db"},
            {"namespace", "ns"},
            {"uid", "u-1"},
            {"labels", {{kQueueNameLabel, "lq"}, {kPriorityClassLabel, "low"}}}}},
          {"spec", {{"replicas", replicas}, {"template", {{"metadata", Json::object()}}}}}};
}

TEST(ServingWorkloadsTest, DefaultMarksTheTemplate) {
  Json d = Queued("Deployment", 2);
  DefaultServingWorkload(kDeploymentFramework, d);
  const Json& t = d["spec"]["template"]["metadata"];
  EXPECT_EQ(t["annotations"][kPodSuspendingParentAnnotation], "deployment");
  EXPECT_EQ(t["labels"][kManagedLabel], "true");
  EXPECT_EQ(t["labels"][kQueueNameLabel], "lq");
  EXPECT_EQ(t["labels"][kPriorityClassLabel], "low");
  Json s = Queued("StatefulSet", 2);
  DefaultServingWorkload(kStatefulSetFramework, s);
  EXPECT_EQ(s["spec"]["template"]["metadata"]["annotations"][kPodSuspendingParentAnnotation],
            "statefulset");
  EXPECT_EQ(s["spec"]["template"]["metadata"]["labels"], Json({{kQueueNameLabel, "lq"}}));
  Json unqueued = Queued("Deployment", 1);
  unqueued["metadata"]["labels"].erase(kQueueNameLabel);
  DefaultServingWorkload(kDeploymentFramework, unqueued);
  EXPECT_EQ(unqueued["spec"]["template"]["metadata"], Json::object());
}

TEST(ServingWorkloadsTest, UpdateRules) {
  Json old = Queued("StatefulSet", 2);
  Json bigger = old;
  bigger["spec"]["replicas"] = 3;
  EXPECT_EQ(ValidateServingUpdate(kStatefulSetFramework, old, bigger).message(),
            "spec.replicas: Invalid value: 3: field is immutable");
  EXPECT_TRUE(ValidateServingUpdate(kDeploymentFramework, old, bigger).ok());
  Json zero = old;
  zero["spec"]["replicas"] = 0;
  EXPECT_TRUE(ValidateServingUpdate(kStatefulSetFramework, old, zero).ok());
  Json back = zero;
  back["spec"]["replicas"] = 2;
  back["status"]["replicas"] = 1;
  EXPECT_EQ(ValidateServingUpdate(kStatefulSetFramework, zero, back).code(),
            StatusCode::kForbidden);
  back["status"]["replicas"] = 0;
  EXPECT_TRUE(ValidateServingUpdate(kStatefulSetFramework, zero, back).ok());
  Json ready = old;
  ready["status"]["readyReplicas"] = 1;
  Json moved = ready;
  moved["metadata"]["labels"][kQueueNameLabel] = "other";
  EXPECT_EQ(ValidateServingUpdate(kDeploymentFramework, ready, moved).message(),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"other\": field is "
            "immutable");
  Json moved_unready = old;
  moved_unready["metadata"]["labels"][kQueueNameLabel] = "other";
  EXPECT_TRUE(ValidateServingUpdate(kDeploymentFramework, old, moved_unready).ok());
}

TEST(ServingWorkloadsTest, StatefulSetPodsAreOneServingGroup) {
  const Json sts = Queued("StatefulSet", 3);
  Json pod = {{"metadata",
               {{"name", "db-0"},
                {"namespace", "ns"},
                {"uid", "p0"},
                {"creationTimestamp", "2026-01-01T00:00:00Z"},
                {"labels", {{"apps.kubernetes.io/pod-index", "0"}}}}},
              {"spec", {{"containers", {{{"name", "main"}}}}}},
              {"status", {{"phase", "Pending"}}}};
  DefaultStatefulSetPod(sts, pod);
  const std::string wl = StatefulSetWorkloadName(sts);
  EXPECT_EQ(wl.rfind("statefulset-db-", 0), 0u) << wl;
  EXPECT_EQ(pod["metadata"]["labels"][kPodGroupNameLabel], wl);
  EXPECT_EQ(pod["metadata"]["annotations"][kPodGroupTotalCountAnnotation], "3");
  EXPECT_EQ(PodGroup::WorkloadKeyOf(pod), "ns/" + wl);
  // Fast admission: one pod of three makes the Workload, for all three.
  PodGroup group("ns/" + wl, {pod});
  EXPECT_TRUE(group.FastAdmission());
  EXPECT_TRUE(group.Complete());
  Result<Json> built = group.BuildWorkload();
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_EQ((*built)["spec"]["podSets"].size(), 1u);
  EXPECT_EQ((*built)["spec"]["podSets"][0]["name"], "main");
  EXPECT_EQ((*built)["spec"]["podSets"][0]["count"], 3);
  // Serving: its pods ending does not finish it.
  pod["status"]["phase"] = "Succeeded";
  bool succeeded = false;
  EXPECT_FALSE(PodGroup("ns/" + wl, {pod, pod, pod}).Finished(&succeeded));
  // Managed although a controller owns it.
  pod["metadata"]["ownerReferences"] = {{{"controller", true}, {"kind", "StatefulSet"}}};
  EXPECT_FALSE(IsPodIntegrationCandidate(pod));
  pod["metadata"]["annotations"][kPodSuspendingParentAnnotation] = "statefulset";
  EXPECT_TRUE(IsPodIntegrationCandidate(pod));
}

}  // namespace
}  // namespace kuota::jobs
