// AddTopologyGates / RemoveTopologyGates on a started and stopped batch Job
// and JobSet: the topology gate, the workload annotation and podset label
// (Kueue's PodSetInfo), the unconstrained annotation for an implied
// topology, nothing for a workload admitted without topology, and all of
// it taken off again on stop.
#include "control/topology_gates.h"

#include <gtest/gtest.h>

#include "control/topology_ungating.h"
#include "jobs/app_wrapper.h"
#include "jobs/registry.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

api::Workload GateWorkload(const std::vector<std::string>& sets, bool topology, bool requested) {
  api::Workload wl;
  wl.metadata.name = "job-sample-abcde";
  wl.metadata.namespace_ = "ns";
  api::Admission& adm = wl.status.admission.emplace();
  for (const auto& name : sets) {
    api::PodSet ps;
    ps.name = name;
    if (requested) {
      ps.topology_request.emplace();
      ps.topology_request->required = "cloud.com/rack";
    }
    wl.spec.pod_sets.push_back(ps);
    api::PodSetAssignment psa;
    psa.name = name;
    if (topology) psa.topology_assignment = api::TopologyAssignment{{"h"}, {{{"n1"}, 1}}};
    adm.pod_set_assignments.push_back(psa);
  }
  return wl;
}

Json BatchJobJson() {
  return Json::parse(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "sample", "namespace": "ns"},
    "spec": {"suspend": true, "template": {
      "metadata": {"labels": {"app": "x"}},
      "spec": {"schedulingGates": [{"name": "mine"}], "containers": [{"name": "c"}]}}}})");
}

TEST(TopologyGatesTest, StartedJobIsGatedAndNamed) {
  const jobs::JobKind* kind = jobs::FindJobKind("jobs.batch");
  ASSERT_NE(kind, nullptr);
  api::Workload wl = GateWorkload({"main"}, true, true);
  Json job = BatchJobJson();
  AddTopologyGates(*kind, wl, job);
  const Json& tmpl = job["spec"]["template"];
  EXPECT_EQ(tmpl["metadata"]["annotations"][kWorkloadAnnotation], "job-sample-abcde");
  EXPECT_EQ(tmpl["metadata"]["labels"][kPodSetLabel], "main");
  EXPECT_EQ(tmpl["metadata"]["labels"]["app"], "x");
  EXPECT_FALSE(tmpl["metadata"]["annotations"].contains(kUnconstrainedTopologyAnnotation));
  EXPECT_EQ(tmpl["spec"]["schedulingGates"],
            Json::parse(R"([{"name": "mine"}, {"name": "kueue.x-k8s.io/topology"}])"));
  // Twice is once.
  AddTopologyGates(*kind, wl, job);
  EXPECT_EQ(job["spec"]["template"]["spec"]["schedulingGates"].size(), 2u);

  RemoveTopologyGates(*kind, wl, job);
  Json expected = BatchJobJson();
  expected["spec"]["template"]["metadata"]["annotations"] = Json::object();
  EXPECT_EQ(job, expected);
}

TEST(TopologyGatesTest, ImpliedTopologyIsMarkedUnconstrained) {
  const jobs::JobKind* kind = jobs::FindJobKind("jobs.batch");
  api::Workload wl = GateWorkload({"main"}, true, false);
  Json job = BatchJobJson();
  AddTopologyGates(*kind, wl, job);
  EXPECT_EQ(job["spec"]["template"]["metadata"]["annotations"][kUnconstrainedTopologyAnnotation],
            "true");
  RemoveTopologyGates(*kind, wl, job);
  EXPECT_FALSE(job["spec"]["template"]["metadata"]["annotations"].contains(
      kUnconstrainedTopologyAnnotation));
}

TEST(TopologyGatesTest, NoTopologyNoChange) {
  const jobs::JobKind* kind = jobs::FindJobKind("jobs.batch");
  api::Workload wl = GateWorkload({"main"}, false, false);
  Json job = BatchJobJson();
  AddTopologyGates(*kind, wl, job);
  EXPECT_EQ(job, BatchJobJson());
  RemoveTopologyGates(*kind, wl, job);
  EXPECT_EQ(job, BatchJobJson());
}

TEST(TopologyGatesTest, LabelsTheWorkloadTemplateHadAreKept) {
  const jobs::JobKind* kind = jobs::FindJobKind("jobs.batch");
  api::Workload wl = GateWorkload({"main"}, true, true);
  wl.spec.pod_sets[0].template_.labels[kPodSetLabel] = "user-set";
  Json job = BatchJobJson();
  AddTopologyGates(*kind, wl, job);
  RemoveTopologyGates(*kind, wl, job);
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"][kPodSetLabel], "user-set");
}

TEST(TopologyGatesTest, EachJobSetReplicatedJobGetsItsPodSet) {
  const jobs::JobKind* kind = jobs::FindJobKind("jobsets.jobset.x-k8s.io");
  if (kind == nullptr) GTEST_SKIP() << "no JobSet kind";
  Json js = Json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "js", "namespace": "ns"},
    "spec": {"suspend": true, "replicatedJobs": [
      {"name": "leader", "replicas": 1, "template": {"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}},
      {"name": "workers", "replicas": 2, "template": {"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}}}]}})");
  api::Workload wl = GateWorkload({"leader", "workers"}, false, true);
  wl.status.admission->pod_set_assignments[1].topology_assignment =
      api::TopologyAssignment{{"h"}, {{{"n1"}, 2}}};
  AddTopologyGates(*kind, wl, js);
  const Json& leader = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"];
  const Json& workers = js["spec"]["replicatedJobs"][1]["template"]["spec"]["template"];
  EXPECT_EQ(leader["metadata"]["labels"][kPodSetLabel], "leader");
  EXPECT_FALSE(leader["spec"].contains("schedulingGates"));
  EXPECT_EQ(workers["metadata"]["labels"][kPodSetLabel], "workers");
  EXPECT_EQ(workers["metadata"]["annotations"][kWorkloadAnnotation], "job-sample-abcde");
  EXPECT_EQ(workers["spec"]["schedulingGates"],
            Json::parse(R"([{"name": "kueue.x-k8s.io/topology"}])"));
  RemoveTopologyGates(*kind, wl, js);
  EXPECT_FALSE(js["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"].contains(
      "schedulingGates"));
}

// An AppWrapper's templates are immutable: Kueue passes the topology gate,
// the workload annotation and the pod set label in its podSetInfos, which
// its controller injects into the components it creates.
TEST(TopologyGatesTest, AppWrapperGetsThemThroughPodSetInfos) {
  const jobs::JobKind* kind = jobs::FindJobKind("appwrappers.workload.codeflare.dev");
  ASSERT_NE(kind, nullptr);
  ASSERT_TRUE(kind->TopologyGatesInPlacement());
  api::Workload wl = GateWorkload({"aw-0"}, true, false);
  std::vector<jobs::PodSetPlacement> placement(1);
  placement[0].name = "aw-0";
  AddTopologyGatesToPlacement(wl, placement);
  EXPECT_EQ(placement[0].scheduling_gates, std::vector<std::string>{kTopologySchedulingGate});
  EXPECT_EQ(placement[0].labels[kPodSetLabel], "aw-0");
  EXPECT_EQ(placement[0].annotations[kWorkloadAnnotation], "job-sample-abcde");
  EXPECT_EQ(placement[0].annotations[kUnconstrainedTopologyAnnotation], "true");

  Json aw = Json::parse(R"({"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
    "metadata": {"name": "aw", "namespace": "ns", "uid": "u"},
    "spec": {"suspend": true, "components": [{"template": {
      "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
      "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c"}]}}}}}]}})");
  Json started = kind->Start(aw, placement);
  const Json before = started;
  AddTopologyGates(*kind, wl, started);
  EXPECT_EQ(started, before) << "the templates are left alone";
  const Json& info = started["spec"]["components"][0]["podSetInfos"][0];
  EXPECT_EQ(info["schedulingGates"], Json::parse(R"([{"name": "kueue.x-k8s.io/topology"}])"));
  EXPECT_EQ(info["labels"][kPodSetLabel], "aw-0");
  Result<Json> component = jobs::AppWrapperKind::ComponentObject(started, 0);
  ASSERT_TRUE(component.ok()) << component.status().message();
  const Json& tmpl = (*component)["spec"]["template"];
  EXPECT_EQ(tmpl["spec"]["schedulingGates"][0]["name"], kTopologySchedulingGate);
  EXPECT_EQ(tmpl["metadata"]["annotations"][kWorkloadAnnotation], "job-sample-abcde");
}

}  // namespace
}  // namespace kuota::control
