// TopologyUngater over a store: pods of an admitted topology-placed Workload
// lose the topology gate and get their domain's nodeSelector (other gates
// kept), only once the Workload is admitted, only for the touched Workload,
// and a pod deleted before it is ungated is skipped.
#include "control/topology_ungater.h"

#include <gtest/gtest.h>

#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

class TopologyUngaterTest : public testing::SqliteStoreTest {
 protected:
  void SetUp() override {
    SqliteStoreTest::SetUp();
    if (HasFatalFailure()) return;
    wl_.metadata.name = "wl";
    wl_.metadata.namespace_ = "ns";
    api::PodSet ps;
    ps.name = "main";
    ps.count = 2;
    ps.topology_request.emplace();
    ps.topology_request->required = "rack";
    ps.topology_request->pod_index_label = "idx";
    wl_.spec.pod_sets.push_back(ps);
    api::PodSetAssignment psa;
    psa.name = "main";
    psa.count = 2;
    psa.topology_assignment = api::TopologyAssignment{{"rack", "kubernetes.io/hostname"},
                                                      {{{"r1", "n2"}, 1}, {{"r1", "n1"}, 1}}};
    wl_.status.admission.emplace().pod_set_assignments.push_back(psa);
  }

  Json CreatePod(const std::string& name, int index) {
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", name},
                  {"namespace", "ns"},
                  {"labels", {{"idx", std::to_string(index)}, {"kueue.x-k8s.io/podset", "main"}}},
                  {"annotations",
                   {{"kueue.x-k8s.io/workload", "wl"},
                    {"kueue.x-k8s.io/podset-required-topology", "rack"}}}}},
                {"spec",
                 {{"schedulingGates",
                   Json::array({{{"name", "kueue.x-k8s.io/topology"}}, {{"name", "other"}}})},
                  {"nodeSelector", {{"pool", "a"}}},
                  {"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
    auto stored = store_->Create("pods", pod);
    EXPECT_TRUE(stored.ok()) << stored.status().ToString();
    return stored.ok() ? *stored : pod;
  }

  Json Stored(const std::string& name) {
    auto got = store_->Get("pods", "ns", name);
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : Json();
  }

  api::Workload wl_;
};

TEST_F(TopologyUngaterTest, UngatesAdmittedWorkloadsPodsByRank) {
  TopologyUngater ungater(*store_);
  ungater.Observe(CreatePod("b", 1), false);
  ungater.Observe(CreatePod("a", 0), false);
  EXPECT_EQ(ungater.tracked_pods(), 2u);
  // Not admitted yet: nothing happens.
  EXPECT_EQ(ungater.Reconcile([](const std::string&) { return nullptr; }), 0);
  EXPECT_TRUE(Stored("a")["spec"].contains("schedulingGates"));
  ungater.Touch("ns/wl");
  auto admitted = [&](const std::string& key) { return key == "ns/wl" ? &wl_ : nullptr; };
  EXPECT_EQ(ungater.Reconcile(admitted), 2);
  Json a = Stored("a"), b = Stored("b");
  EXPECT_EQ(a["spec"]["schedulingGates"], Json::parse(R"([{"name": "other"}])"));
  EXPECT_EQ(a["spec"]["nodeSelector"],
            Json::parse(R"({"pool": "a", "rack": "r1", "kubernetes.io/hostname": "n2"})"));
  EXPECT_EQ(b["spec"]["nodeSelector"]["kubernetes.io/hostname"], "n1");
  // Again: nothing left to ungate.
  ungater.Touch("ns/wl");
  EXPECT_EQ(ungater.Reconcile(admitted), 0);
}

TEST_F(TopologyUngaterTest, AtMostMaxWritesACall) {
  TopologyUngater ungater(*store_);
  ungater.Observe(CreatePod("a", 0), false);
  ungater.Observe(CreatePod("b", 1), false);
  auto admitted = [&](const std::string&) { return &wl_; };
  EXPECT_EQ(ungater.Reconcile(admitted, 1), 1);
  EXPECT_TRUE(ungater.pending());
  EXPECT_EQ(ungater.Reconcile(admitted, 1), 1);
  EXPECT_EQ(Stored("a")["spec"]["nodeSelector"]["kubernetes.io/hostname"], "n2");
  EXPECT_EQ(Stored("b")["spec"]["nodeSelector"]["kubernetes.io/hostname"], "n1");
  EXPECT_EQ(ungater.Reconcile(admitted, 1), 0);
  EXPECT_FALSE(ungater.pending());
}

TEST_F(TopologyUngaterTest, StalePodIsReadAgain) {
  TopologyUngater ungater(*store_);
  Json seen = CreatePod("a", 0);
  ungater.Observe(seen, false);
  // Changed since it was seen (a label added): the write over the old version
  // conflicts, the pod is read again and ungated.
  Json changed = seen;
  changed["metadata"]["labels"]["extra"] = "1";
  ASSERT_TRUE(store_->Update("pods", changed).ok());
  EXPECT_EQ(ungater.Reconcile([&](const std::string&) { return &wl_; }), 1);
  Json a = Stored("a");
  EXPECT_EQ(a["metadata"]["labels"]["extra"], "1");
  EXPECT_EQ(a["spec"]["nodeSelector"]["kubernetes.io/hostname"], "n2");
}

TEST_F(TopologyUngaterTest, DeletedPodIsSkipped) {
  TopologyUngater ungater(*store_);
  ungater.Observe(CreatePod("a", 0), false);
  ASSERT_TRUE(store_->Delete("pods", "ns", "a").ok());
  EXPECT_EQ(ungater.Reconcile([&](const std::string&) { return &wl_; }), 0);
  Json gone = {{"metadata", {{"name", "a"}, {"namespace", "ns"}}}};
  ungater.Observe(gone, true);
  EXPECT_EQ(ungater.tracked_pods(), 0u);
}

TEST_F(TopologyUngaterTest, PodsWithoutWorkloadAnnotationAreIgnored) {
  TopologyUngater ungater(*store_);
  Json pod = CreatePod("a", 0);
  pod["metadata"]["annotations"].erase("kueue.x-k8s.io/workload");
  ungater.Observe(pod, false);
  EXPECT_EQ(ungater.tracked_pods(), 0u);
}

}  // namespace
}  // namespace kuota::control
