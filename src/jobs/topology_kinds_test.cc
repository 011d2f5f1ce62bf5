// Tests of topology requests kind by kind: each job kind puts Kueue's
// topologyRequest on its Workload pod sets from its templates' annotations,
// with the label that numbers its pods (batch Job and JobSet: the completion
// index, JobSet's job index as sub-group; Kubeflow kinds: the replica index;
// Volcano: the task index; plain pods: the pod group index; Ray: none), and
// refuses invalid annotations naming the field as Kueue's webhooks do.
#include <string>

#include <gtest/gtest.h>

#include "jobs/batch_job.h"
#include "jobs/jobset.h"
#include "jobs/mpi_job.h"
#include "jobs/pod_group.h"
#include "jobs/pod_kind.h"
#include "jobs/pytorch_job.h"
#include "jobs/ray_cluster.h"
#include "jobs/ray_job.h"
#include "jobs/tf_job.h"
#include "jobs/topology_request.h"
#include "jobs/volcano_job.h"

namespace kuota::jobs {
namespace {

std::string TasError(const JobKind& kind, const Json& job) {
  const Status st = kind.Validate(job);
  return st.ok() ? "OK" : st.message();
}

// The Workload's pod set `index`'s topologyRequest ("absent" when none).
Json TasRequest(const JobKind& kind, const Json& job, size_t index) {
  Result<Json> wl = kind.BuildWorkload(job);
  EXPECT_TRUE(wl.ok()) << wl.status().message();
  if (!wl.ok()) return "no workload";
  const Json& ps = wl.value()["spec"]["podSets"].at(index);
  return ps.contains("topologyRequest") ? ps["topologyRequest"] : Json("absent");
}

Json TasContainers(const std::string& name) {
  return Json::array({{{"name", name}, {"image", "busybox"}}});
}

Json TasTemplate(const std::string& container, const Json& annotations) {
  Json t = {{"spec", {{"containers", TasContainers(container)}}}};
  if (!annotations.empty()) t["metadata"]["annotations"] = annotations;
  return t;
}

Json TasMeta(const std::string& name) {
  return {{"name", name},
          {"namespace", "default"},
          {"uid", "uid-" + name},
          {"labels", {{kQueueNameLabel, "lq"}}}};
}

const Json kRequiredRack = {{kPodSetRequiredTopologyAnnotation, "cloud.com/rack"}};

// ---------------- batch/v1 Job ----------------

Json TasBatchJob(const Json& annotations) {
  Json t = TasTemplate("c", annotations);
  t["spec"]["restartPolicy"] = "Never";
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", TasMeta("train")},
          {"spec", {{"parallelism", 4}, {"completions", 4}, {"template", t}}}};
}

TEST(TopologyKinds, BatchJobNumbersPodsByCompletionIndex) {
  BatchJob kind;
  EXPECT_EQ(TasError(kind, TasBatchJob(kRequiredRack)), "OK");
  EXPECT_EQ(TasRequest(kind, TasBatchJob(kRequiredRack), 0),
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
  // Kueue always names the index label of a Job's pods.
  EXPECT_EQ(TasRequest(kind, TasBatchJob(Json::object()), 0),
            Json({{"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
  EXPECT_EQ(TasRequest(kind,
                       TasBatchJob({{kPodSetPreferredTopologyAnnotation, "block"},
                                    {kPodSetSliceRequiredTopologyAnnotation, "rack"},
                                    {kPodSetSliceSizeAnnotation, "2"}}),
                       0),
            Json({{"preferred", "block"},
                  {"podSetSliceRequiredTopology", "rack"},
                  {"podSetSliceSize", 2},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"}}));
}

TEST(TopologyKinds, BatchJobRefusesInvalidAnnotations) {
  BatchJob kind;
  EXPECT_EQ(TasError(kind, TasBatchJob({{kPodSetUnconstrainedTopologyAnnotation, "yes"}})),
            "spec.template.metadata.annotations[kueue.x-k8s.io/podset-unconstrained-topology]: "
            "Invalid value: \"yes\": must be a boolean value");
  EXPECT_EQ(TasError(kind, TasBatchJob({{kPodSetSliceRequiredTopologyAnnotation, "rack"},
                                        {kPodSetSliceSizeAnnotation, "8"}})),
            "spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: Invalid "
            "value: \"8\": must not be greater than pod set count 4");
  Json elastic = TasBatchJob(kRequiredRack);
  elastic["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] = "true";
  EXPECT_EQ(TasError(kind, elastic),
            "spec.template.metadata.annotations.kueue.x-k8s.io/podset-required-topology: "
            "Forbidden: required topology is not supported with elastic jobs");
  Json elastic_unconstrained = TasBatchJob({{kPodSetUnconstrainedTopologyAnnotation, "true"}});
  elastic_unconstrained["metadata"]["annotations"]["kueue.x-k8s.io/elastic-job"] = "true";
  EXPECT_EQ(TasError(kind, elastic_unconstrained), "OK");
}

// ---------------- JobSet ----------------

Json TasJobSet(const Json& driver, const Json& workers) {
  Json d = TasTemplate("d", driver);
  Json w = TasTemplate("w", workers);
  return {
      {"apiVersion", "jobset.x-k8s.io/v1alpha2"},
      {"kind", "JobSet"},
      {"metadata", TasMeta("js")},
      {"spec",
       {{"replicatedJobs",
         Json::array(
             {{{"name", "driver"}, {"replicas", 1}, {"template", {{"spec", {{"template", d}}}}}},
              {{"name", "workers"},
               {"replicas", 2},
               {"template",
                {{"spec", {{"parallelism", 3}, {"completions", 3}, {"template", w}}}}}}})}}}};
}

TEST(TopologyKinds, JobSetNumbersPodsWithinJobsAndJobsWithinReplicatedJobs) {
  JobSetKind kind;
  const Json js = TasJobSet(Json::object(), kRequiredRack);
  EXPECT_EQ(TasError(kind, js), "OK");
  EXPECT_EQ(TasRequest(kind, js, 0),
            Json({{"podIndexLabel", "batch.kubernetes.io/job-completion-index"},
                  {"subGroupIndexLabel", "jobset.sigs.k8s.io/job-index"},
                  {"subGroupCount", 1}}));
  EXPECT_EQ(TasRequest(kind, js, 1),
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "batch.kubernetes.io/job-completion-index"},
                  {"subGroupIndexLabel", "jobset.sigs.k8s.io/job-index"},
                  {"subGroupCount", 2}}));
}

TEST(TopologyKinds, JobSetChecksAnnotationsAndPodSetGroups) {
  JobSetKind kind;
  const std::string workers_ann =
      "spec.replicatedJobs[1].template.spec.template.metadata.annotations";
  EXPECT_EQ(
      TasError(kind, TasJobSet(Json::object(), {{kPodSetSliceRequiredTopologyAnnotation, "rack"},
                                                {kPodSetSliceSizeAnnotation, "7"}})),
      workers_ann +
          "[kueue.x-k8s.io/podset-slice-size]: Invalid value: \"7\": must not be greater "
          "than pod set count 6");
  const Json grouped = {{kPodSetRequiredTopologyAnnotation, "rack"},
                        {kPodSetGroupNameAnnotation, "leader-workers"}};
  const Json js = TasJobSet(grouped, grouped);
  EXPECT_EQ(TasError(kind, js), "OK");
  EXPECT_EQ(TasRequest(kind, js, 1).value("podSetGroupName", ""), "leader-workers");
  EXPECT_EQ(TasError(kind, TasJobSet(Json::object(), grouped)),
            workers_ann +
                "[kueue.x-k8s.io/podset-group-name]: Invalid value: \"leader-workers\": can only "
                "define groups of exactly 2 pod sets, got: 1 pod set(s)");
  EXPECT_EQ(TasError(kind, TasJobSet({{kPodSetPreferredTopologyAnnotation, "rack"},
                                      {kPodSetGroupNameAnnotation, "leader-workers"}},
                                     grouped)),
            "spec.replicatedJobs[0].template.spec.template.metadata.annotations: Invalid value: "
            "must specify 'kueue.x-k8s.io/podset-required-topology' or "
            "'kueue.x-k8s.io/podset-preferred-topology' topology consistent with '" +
                workers_ann + "' in group 'leader-workers'");
}

// ---------------- Kubeflow: PyTorchJob, TFJob, MPIJob ----------------

Json TasKubeflow(const std::string& kind, const std::string& field, const Json& replicas) {
  return {{"apiVersion", kind == "MPIJob" ? "kubeflow.org/v2beta1" : "kubeflow.org/v1"},
          {"kind", kind},
          {"metadata", TasMeta("kf")},
          {"spec", {{field, replicas}}}};
}

Json TasPyTorch(const Json& worker) {
  return TasKubeflow("PyTorchJob", "pytorchReplicaSpecs",
                     {{"Master", {{"replicas", 1}, {"template", TasTemplate("pytorch", {})}}},
                      {"Worker", {{"replicas", 3}, {"template", TasTemplate("pytorch", worker)}}}});
}

TEST(TopologyKinds, KubeflowNumbersPodsByReplicaIndex) {
  KubeflowJobKind pytorch(PyTorchJobSpec());
  const Json job = TasPyTorch(kRequiredRack);
  EXPECT_EQ(TasError(pytorch, job), "OK");
  EXPECT_EQ(TasRequest(pytorch, job, 0),
            Json({{"podIndexLabel", "training.kubeflow.org/replica-index"}}));
  EXPECT_EQ(TasRequest(pytorch, job, 1),
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "training.kubeflow.org/replica-index"}}));
  EXPECT_EQ(TasError(pytorch, TasPyTorch({{kPodSetUnconstrainedTopologyAnnotation, "yes"}})),
            "spec.pytorchReplicaSpecs[Worker].template.metadata.annotations[kueue.x-k8s.io/"
            "podset-unconstrained-topology]: Invalid value: \"yes\": must be a boolean value");
  // Kueue's training-operator webhook does not check pod set groups.
  EXPECT_EQ(TasError(pytorch, TasPyTorch({{kPodSetRequiredTopologyAnnotation, "rack"},
                                          {kPodSetGroupNameAnnotation, "alone"}})),
            "OK");

  KubeflowJobKind tf(TFJobSpec());
  const Json tf_job = TasKubeflow(
      "TFJob", "tfReplicaSpecs",
      {{"Worker", {{"replicas", 2}, {"template", TasTemplate("tensorflow", kRequiredRack)}}}});
  EXPECT_EQ(TasRequest(tf, tf_job, 0),
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "training.kubeflow.org/replica-index"}}));
  Json tf_bad = tf_job;
  tf_bad["spec"]["tfReplicaSpecs"]["Worker"]["template"]["metadata"]["annotations"]
        [kPodSetPreferredTopologyAnnotation] = "rack";
  EXPECT_EQ(TasError(tf, tf_bad),
            "spec.tfReplicaSpecs[Worker].template.metadata.annotations: Invalid value: must not "
            "contain more than one topology annotation: "
            "[\"kueue.x-k8s.io/podset-required-topology\", "
            "\"kueue.x-k8s.io/podset-preferred-topology\", "
            "\"kueue.x-k8s.io/podset-unconstrained-topology\"]");
}

Json TasMpi(const Json& launcher, const Json& worker) {
  return TasKubeflow("MPIJob", "mpiReplicaSpecs",
                     {{"Launcher", {{"replicas", 1}, {"template", TasTemplate("l", launcher)}}},
                      {"Worker", {{"replicas", 2}, {"template", TasTemplate("w", worker)}}}});
}

TEST(TopologyKinds, MpiJobNumbersPodsByReplicaIndexAndChecksGroups) {
  KubeflowJobKind mpi(MPIJobSpec());
  const Json grouped = {{kPodSetRequiredTopologyAnnotation, "rack"},
                        {kPodSetGroupNameAnnotation, "mpi"}};
  const Json job = TasMpi(grouped, grouped);
  EXPECT_EQ(TasError(mpi, job), "OK");
  EXPECT_EQ(TasRequest(mpi, job, 1), Json({{"required", "rack"},
                                           {"podIndexLabel", "training.kubeflow.org/replica-index"},
                                           {"podSetGroupName", "mpi"}}));
  EXPECT_EQ(TasError(mpi, TasMpi(grouped, Json::object())),
            "spec.mpiReplicaSpecs[Launcher].template.metadata.annotations[kueue.x-k8s.io/"
            "podset-group-name]: Invalid value: \"mpi\": can only define groups of exactly 2 pod "
            "sets, got: 1 pod set(s)");
}

// ---------------- Ray: RayCluster, RayJob ----------------

Json TasRayClusterSpec(const Json& head, const Json& worker) {
  return {{"headGroupSpec",
           {{"rayStartParams", Json::object()}, {"template", TasTemplate("head", head)}}},
          {"workerGroupSpecs", Json::array({{{"groupName", "gpu"},
                                             {"replicas", 2},
                                             {"minReplicas", 0},
                                             {"maxReplicas", 2},
                                             {"rayStartParams", Json::object()},
                                             {"template", TasTemplate("worker", worker)}}})}};
}

TEST(TopologyKinds, RayClusterNumbersNoPods) {
  RayClusterKind kind;
  Json rc = {{"apiVersion", "ray.io/v1"},
             {"kind", "RayCluster"},
             {"metadata", TasMeta("rc")},
             {"spec", TasRayClusterSpec(Json::object(), kRequiredRack)}};
  EXPECT_EQ(TasError(kind, rc), "OK");
  EXPECT_EQ(TasRequest(kind, rc, 0), "absent");
  EXPECT_EQ(TasRequest(kind, rc, 1), Json({{"required", "cloud.com/rack"}}));
  Json bad = rc;
  bad["spec"]["workerGroupSpecs"][0]["template"]["metadata"]["annotations"]
     [kPodSetSliceSizeAnnotation] = "2";
  EXPECT_EQ(TasError(kind, bad),
            "spec.workerGroupSpecs[0].template.metadata.annotations[kueue.x-k8s.io/"
            "podset-slice-size]: Forbidden: may not be set when "
            "'kueue.x-k8s.io/podset-slice-required-topology' is not specified");
  // Kueue's Ray webhooks check managed jobs only.
  bad["metadata"].erase("labels");
  EXPECT_EQ(TasError(kind, bad), "OK");
}

TEST(TopologyKinds, RayJobAsksForTheClusterAndTheSubmitter) {
  RayJobKind kind;
  Json rj = {{"apiVersion", "ray.io/v1"},
             {"kind", "RayJob"},
             {"metadata", TasMeta("rj")},
             {"spec",
              {{"entrypoint", "python main.py"},
               {"shutdownAfterJobFinishes", true},
               {"rayClusterSpec", TasRayClusterSpec(kRequiredRack, Json::object())}}}};
  kind.Default(rj);
  rj["spec"]["submitterPodTemplate"]["metadata"]["annotations"] = {
      {kPodSetUnconstrainedTopologyAnnotation, "true"}};
  EXPECT_EQ(TasError(kind, rj), "OK");
  EXPECT_EQ(TasRequest(kind, rj, 0), Json({{"required", "cloud.com/rack"}}));
  EXPECT_EQ(TasRequest(kind, rj, 1), "absent");
  EXPECT_EQ(TasRequest(kind, rj, 2), Json({{"unconstrained", true}}));
  Json bad = rj;
  bad["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["metadata"]["annotations"]
     [kPodSetRequiredTopologyAnnotation] = "-rack";
  EXPECT_EQ(TasError(kind, bad).rfind("spec.rayClusterSpec.headGroupSpec.template.metadata."
                                      "annotations[kueue.x-k8s.io/podset-required-topology]: "
                                      "Invalid value: \"-rack\": name part must consist of",
                                      0),
            0u)
      << TasError(kind, bad);
}

// ---------------- Volcano Job ----------------

TEST(TopologyKinds, VolcanoJobNumbersPodsByTaskIndex) {
  VolcanoJobKind kind;
  Json vj = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
             {"kind", "Job"},
             {"metadata", TasMeta("vj")},
             {"spec",
              {{"tasks", Json::array({{{"name", "worker"},
                                       {"replicas", 4},
                                       {"template", TasTemplate("w", kRequiredRack)}}})}}}};
  EXPECT_EQ(TasError(kind, vj), "OK");
  EXPECT_EQ(TasRequest(kind, vj, 0),
            Json({{"required", "cloud.com/rack"}, {"podIndexLabel", "volcano.sh/task-index"}}));
  vj["spec"]["tasks"][0]["template"]["metadata"]["annotations"][kPodSetGroupNameAnnotation] = "7";
  EXPECT_EQ(TasError(kind, vj),
            "spec.tasks[0].template.metadata.annotations[kueue.x-k8s.io/podset-group-name]: "
            "Invalid value: \"7\": must not be a number");
}

// ---------------- Plain pods and pod groups ----------------

Json TasPod(const std::string& name, const Json& annotations) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", TasMeta(name)},
              {"spec", {{"restartPolicy", "Never"}, {"containers", TasContainers("main")}}}};
  if (!annotations.empty()) pod["metadata"]["annotations"] = annotations;
  return pod;
}

TEST(TopologyKinds, PodsNumberedByThePodGroupIndex) {
  Result<Json> single = BuildSinglePodWorkload(TasPod("p", kRequiredRack));
  ASSERT_TRUE(single.ok()) << single.status().message();
  EXPECT_EQ(single.value()["spec"]["podSets"][0]["topologyRequest"],
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "kueue.x-k8s.io/pod-group-pod-index"}}));

  Json a = TasPod("a", kRequiredRack);
  Json b = TasPod("b", kRequiredRack);
  for (Json* p : {&a, &b}) {
    (*p)["metadata"]["labels"][kPodGroupNameLabel] = "g";
    (*p)["metadata"]["annotations"][kPodGroupTotalCountAnnotation] = "2";
  }
  Result<Json> group = PodGroup("default/g", {a, b}).BuildWorkload();
  ASSERT_TRUE(group.ok()) << group.status().message();
  ASSERT_EQ(group.value()["spec"]["podSets"].size(), 1u);
  EXPECT_EQ(group.value()["spec"]["podSets"][0]["count"], 2);
  EXPECT_EQ(group.value()["spec"]["podSets"][0]["topologyRequest"],
            Json({{"required", "cloud.com/rack"},
                  {"podIndexLabel", "kueue.x-k8s.io/pod-group-pod-index"}}));
}

TEST(TopologyKinds, PodWebhookChecksAnnotationsAndCopiesTheIndexLabel) {
  EXPECT_TRUE(ValidateManagedPod(TasPod("p", kRequiredRack)).ok());
  const Status st = ValidateManagedPod(TasPod("p", {{kPodSetGroupNameAnnotation, "g"}}));
  EXPECT_EQ(st.ok() ? "OK" : st.message(),
            "metadata.annotations[kueue.x-k8s.io/podset-group-name]: Forbidden: may not be set "
            "when neither 'kueue.x-k8s.io/podset-preferred-topology' nor "
            "'kueue.x-k8s.io/podset-required-topology' is specified");
  Json grouped = TasPod("p", {{kPodSetSliceRequiredTopologyAnnotation, "rack"}});
  grouped["metadata"]["labels"][kPodGroupNameLabel] = "g";
  grouped["metadata"]["annotations"][kPodGroupTotalCountAnnotation] = "2";
  const Status gst = ValidateManagedPod(grouped);
  EXPECT_EQ(gst.ok() ? "OK" : gst.message(),
            "metadata.annotations[kueue.x-k8s.io/podset-slice-size]: Required value: must be set "
            "when 'kueue.x-k8s.io/podset-slice-required-topology' is specified");

  Json pod = TasPod("p", {{kPodGroupPodIndexLabelAnnotation, "apps.kubernetes.io/pod-index"}});
  pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] = "3";
  DefaultManagedPodOnCreate(pod);
  EXPECT_EQ(pod["metadata"]["labels"][kPodGroupPodIndexLabel], "3");
  Json unnamed = TasPod("p", {{kPodGroupPodIndexLabelAnnotation, "missing"}});
  DefaultManagedPodOnCreate(unnamed);
  EXPECT_EQ(unnamed["metadata"]["labels"][kPodGroupPodIndexLabel], "");
  Json plain = TasPod("p", Json::object());
  DefaultManagedPodOnCreate(plain);
  EXPECT_FALSE(plain["metadata"]["labels"].contains(kPodGroupPodIndexLabel));
}

}  // namespace
}  // namespace kuota::jobs
