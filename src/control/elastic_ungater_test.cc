// ElasticUngater over a real store: an elastic Job's gated pods are ungated
// up to the admitted count, oldest name first, other gates kept; pods already
// running (ungated before, even unseen gated) count; ended pods do not; no
// admitted slice, no ungating.
#include "control/elastic_ungater.h"

#include <gtest/gtest.h>

#include <optional>

#include "testing/sqlite_store_test.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

class ElasticUngaterTest : public testing::SqliteStoreTest {
 protected:
  // A pod of Job "job-uid", gated by the elastic gate (and "other") or not.
  Json Pod(const std::string& name, bool gated, const std::string& phase = "") {
    Json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", name},
                  {"namespace", "ns"},
                  {"ownerReferences", Json::array({{{"apiVersion", "batch/v1"},
                                                    {"kind", "Job"},
                                                    {"name", "j"},
                                                    {"uid", "job-uid"},
                                                    {"controller", true}}})}}},
                {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
    if (gated) {
      pod["spec"]["schedulingGates"] =
          Json::array({{{"name", kElasticJobSchedulingGate}}, {{"name", "other"}}});
    }
    if (!phase.empty()) pod["status"]["phase"] = phase;
    auto stored = store_->Create("pods", pod);
    EXPECT_TRUE(stored.ok()) << stored.status().ToString();
    return stored.ok() ? *stored : pod;
  }

  // The gates left on pod `name`, as names joined by ",".
  std::string Gates(const std::string& name) {
    auto pod = store_->Get("pods", "ns", name);
    if (!pod.ok()) return "<gone>";
    std::string out;
    for (const auto& g : (*pod)["spec"].value("schedulingGates", Json::array())) {
      out += (out.empty() ? "" : ",") + g.value("name", "");
    }
    return out;
  }

  ElasticUngater::AdmittedCount Admitted(std::optional<int32_t> count) {
    return [count](const std::string& uid) -> std::optional<int32_t> {
      return uid == "job-uid" ? count : std::nullopt;
    };
  }
};

TEST_F(ElasticUngaterTest, UngatesUpToTheAdmittedCount) {
  ElasticUngater u(*store_);
  for (const char* name : {"p-a", "p-b", "p-c"}) u.Observe(Pod(name, true), false);
  EXPECT_EQ(u.Reconcile(Admitted(std::nullopt)), 0);  // no slice admitted yet
  EXPECT_EQ(Gates("p-a"), "kueue.x-k8s.io/elastic-job,other");
  u.Touch("job-uid");
  EXPECT_EQ(u.Reconcile(Admitted(2)), 2);
  EXPECT_EQ(Gates("p-a"), "other");
  EXPECT_EQ(Gates("p-b"), "other");
  EXPECT_EQ(Gates("p-c"), "kueue.x-k8s.io/elastic-job,other");
  // A new slice admits 3: only the third pod is ungated now.
  u.Touch("job-uid");
  EXPECT_EQ(u.Reconcile(Admitted(3)), 1);
  EXPECT_EQ(Gates("p-c"), "other");
}

TEST_F(ElasticUngaterTest, RunningPodsCountEndedOnesDoNot) {
  ElasticUngater u(*store_);
  // Ungated before (a restart of kuotad): seen without the gate, it counts.
  u.Observe(Pod("p-a", false), false);
  u.Observe(Pod("p-b", false, "Succeeded"), false);
  u.Observe(Pod("p-c", true), false);
  u.Observe(Pod("p-d", true), false);
  EXPECT_EQ(u.Reconcile(Admitted(2)), 1);  // p-a runs, p-b ended: one more
  EXPECT_EQ(Gates("p-c"), "other");
  EXPECT_EQ(Gates("p-d"), "kueue.x-k8s.io/elastic-job,other");
  // p-a gone: its place is p-d's.
  u.Observe(*store_->Get("pods", "ns", "p-a"), true);
  EXPECT_EQ(u.Reconcile(Admitted(2)), 1);
  EXPECT_EQ(Gates("p-d"), "other");
}

TEST_F(ElasticUngaterTest, PodsOfNoJobAreLeftAlone) {
  ElasticUngater u(*store_);
  Json pod = Pod("loose", true);
  pod["metadata"].erase("ownerReferences");
  u.Observe(pod, false);
  EXPECT_EQ(u.Reconcile([](const std::string&) { return std::optional<int32_t>(5); }), 0);
}

}  // namespace
}  // namespace kuota::control
