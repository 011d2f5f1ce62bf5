#include "control/volcano_queue.h"

#include <gtest/gtest.h>

#include "api/codec/decode.h"
#include "jobs/volcano_job.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json Queue(const std::string& name, Json spec) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

// 4 CPUs, 8Gi, 1 GPU.
const ResourceAmounts kMachine = {{"cpu", 4000},
                                  {"memory", (int64_t{8} << 30) * 1000},
                                  {"nvidia.com/gpu", 1000},
                                  {"pods", 110000}};

// The quota of `resource` in a mapped ClusterQueue's only flavor.
Json QuotaOf(const Json& cq, const std::string& resource) {
  for (const Json& r : cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"]) {
    if (r["name"] == resource) return r;
  }
  return nullptr;
}

TEST(VolcanoQueueDefaultTest, WeightOneAndReclaimableWhenAbsent) {
  Json q = Queue("q", Json::object());
  DefaultVolcanoQueue(q);
  EXPECT_EQ(q["spec"]["weight"], 1);
  EXPECT_EQ(q["spec"]["reclaimable"], true);
  Json kept = Queue("q", {{"weight", 3}, {"reclaimable", false}});
  DefaultVolcanoQueue(kept);
  EXPECT_EQ(kept["spec"]["weight"], 3);
  EXPECT_EQ(kept["spec"]["reclaimable"], false);
  Json no_spec = {{"metadata", {{"name", "q"}}}};
  DefaultVolcanoQueue(no_spec);
  EXPECT_EQ(no_spec["spec"]["weight"], 1);
}

TEST(VolcanoQueueValidateTest, ErrorsNameTheField) {
  struct Case {
    const char* name;
    Json spec;
    Json status;
    std::string want;  // prefix of the message; empty: valid
  };
  const Case cases[] = {
      {"plain", {{"weight", 1}}, nullptr, ""},
      {"everything",
       {{"weight", 2},
        {"capability", {{"cpu", "4"}, {"memory", "8Gi"}, {"nvidia.com/gpu", 2}}},
        {"deserved", {{"cpu", "2"}, {"memory", "4Gi"}}},
        {"guarantee", {{"resource", {{"cpu", "1"}}}}},
        {"reclaimable", false},
        {"state", "Closed"}},
       {{"state", "Open"}},
       ""},
      {"zero weight",
       {{"weight", 0}},
       nullptr,
       "spec.weight: Invalid value: 0: queue weight must be a positive integer"},
      {"negative weight", {{"weight", -2}}, nullptr, "spec.weight: Invalid value: -2"},
      {"string weight", {{"weight", "x"}}, nullptr, "spec.weight: Invalid value: \"x\""},
      {"bad quantity",
       {{"capability", {{"cpu", "lots"}}}},
       nullptr,
       "spec.capability.cpu: Invalid value: \"lots\": quantities must match"},
      {"negative quantity",
       {{"deserved", {{"memory", "-1Gi"}}}},
       nullptr,
       "spec.deserved.memory: Invalid value: \"-1Gi\": must be greater than or equal to 0"},
      {"bad guarantee",
       {{"guarantee", {{"resource", {{"nvidia.com/gpu", "one"}}}}}},
       nullptr,
       "spec.guarantee.resource.nvidia.com/gpu: Invalid value"},
      {"capability not an object",
       {{"capability", "4"}},
       nullptr,
       "spec.capability: Invalid value: \"4\""},
      {"deserved above capability",
       {{"capability", {{"cpu", "2"}}}, {"deserved", {{"cpu", "3"}}}},
       nullptr,
       "spec.deserved.cpu: Invalid value: \"3\": deserved should less equal than capability"},
      {"guarantee above capability",
       {{"capability", {{"memory", "1Gi"}}}, {"guarantee", {{"resource", {{"memory", "2Gi"}}}}}},
       nullptr,
       "spec.guarantee.resource.memory: Invalid value: \"2Gi\": guarantee should less equal than "
       "capability"},
      {"guarantee above deserved",
       {{"deserved", {{"cpu", "1"}}}, {"guarantee", {{"resource", {{"cpu", "1500m"}}}}}},
       nullptr,
       "spec.guarantee.resource.cpu: Invalid value: \"1500m\": guarantee should less equal than "
       "deserved"},
      {"only shared resources compared",
       {{"capability", {{"cpu", "2"}}}, {"deserved", {{"memory", "3Gi"}}}},
       nullptr,
       ""},
      {"bad spec state",
       {{"state", "Paused"}},
       nullptr,
       "spec.state: Unsupported value: \"Paused\": supported values: \"Open\", \"Closed\""},
      {"bad status state",
       Json::object(),
       {{"state", "Closing"}},
       "status.state: Unsupported value: \"Closing\""},
      {"reclaimable not a boolean",
       {{"reclaimable", "yes"}},
       nullptr,
       "spec.reclaimable: Invalid value"},
  };
  for (const Case& c : cases) {
    Json q = Queue("q", c.spec);
    if (!c.status.is_null()) q["status"] = c.status;
    Status st = ValidateVolcanoQueue(q);
    if (c.want.empty()) {
      EXPECT_TRUE(st.ok()) << c.name << ": " << st.message();
    } else {
      EXPECT_EQ(st.code(), StatusCode::kInvalid) << c.name;
      EXPECT_EQ(st.message().rfind(c.want, 0), 0u) << c.name << ": " << st.message();
    }
  }
}

TEST(VolcanoQueueValidateTest, DefaultQueueCannotBeDeleted) {
  EXPECT_FALSE(ValidateVolcanoQueueDeletion(Queue("default", Json::object())).ok());
  EXPECT_TRUE(ValidateVolcanoQueueDeletion(Queue("team", Json::object())).ok());
}

TEST(VolcanoQueueMapTest, CapabilityIsNominalWithoutBorrowing) {
  Json q = Queue(
      "team",
      {{"weight", 1}, {"reclaimable", true}, {"capability", {{"cpu", "2"}, {"memory", "1Gi"}}}});
  VolcanoQueueMapping m = MapVolcanoQueue(q, kMachine, true);
  const Json& cq = m.cluster_queue;
  EXPECT_EQ(cq["metadata"]["name"], "volcano-team");
  EXPECT_EQ(cq["metadata"]["labels"]["kuota.dev/volcano-queue"], "team");
  EXPECT_EQ(cq["spec"]["cohortName"], "volcano");
  EXPECT_EQ(cq["spec"]["namespaceSelector"], Json::object());
  EXPECT_EQ(cq["spec"]["resourceGroups"][0]["coveredResources"],
            Json::array({"cpu", "memory", "nvidia.com/gpu"}));
  EXPECT_EQ(cq["spec"]["resourceGroups"][0]["flavors"][0]["name"], "volcano");
  EXPECT_EQ(QuotaOf(cq, "cpu"),
            Json({{"name", "cpu"}, {"nominalQuota", "2"}, {"borrowingLimit", "0"}}));
  EXPECT_EQ(QuotaOf(cq, "memory"),
            Json({{"name", "memory"}, {"nominalQuota", "1Gi"}, {"borrowingLimit", "0"}}));
  // Not named: the machine's capacity, no limits.
  EXPECT_EQ(QuotaOf(cq, "nvidia.com/gpu"),
            Json({{"name", "nvidia.com/gpu"}, {"nominalQuota", "1"}}));
  EXPECT_EQ(cq["spec"]["fairSharing"]["weight"], "1");
  EXPECT_EQ(cq["spec"]["preemption"]["reclaimWithinCohort"], "Any");
  EXPECT_EQ(cq["spec"]["stopPolicy"], "None");
  EXPECT_EQ(m.state, "Open");
  EXPECT_TRUE(m.warnings.empty());

  // What the engine reads: the codec accepts it.
  codec::DecodeOptions opts;
  auto decoded = codec::DecodeObject(cq.dump(), opts);
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
}

TEST(VolcanoQueueMapTest, DeservedIsNominalCapabilityBoundsBorrowingGuaranteeBoundsLending) {
  Json q =
      Queue("ml", {{"weight", 3},
                   {"capability", {{"cpu", "8"}, {"nvidia.com/gpu", 4}, {"example.com/fpga", "2"}}},
                   {"deserved", {{"cpu", "4"}, {"nvidia.com/gpu", 2}}},
                   {"guarantee", {{"resource", {{"cpu", "1"}, {"memory", "2Gi"}}}}}});
  ASSERT_TRUE(ValidateVolcanoQueue(q).ok()) << ValidateVolcanoQueue(q).message();
  const Json cq = MapVolcanoQueue(q, kMachine, false).cluster_queue;
  EXPECT_EQ(cq["spec"]["resourceGroups"][0]["coveredResources"],
            Json::array({"cpu", "memory", "nvidia.com/gpu", "example.com/fpga"}));
  EXPECT_EQ(QuotaOf(cq, "cpu"), Json({{"name", "cpu"},
                                      {"nominalQuota", "4"},
                                      {"borrowingLimit", "4"},
                                      {"lendingLimit", "3"}}));
  EXPECT_EQ(QuotaOf(cq, "nvidia.com/gpu"),
            Json({{"name", "nvidia.com/gpu"}, {"nominalQuota", "2"}, {"borrowingLimit", "2"}}));
  // Guarantee only: nominal = guarantee, nothing to lend.
  EXPECT_EQ(QuotaOf(cq, "memory"),
            Json({{"name", "memory"}, {"nominalQuota", "2Gi"}, {"lendingLimit", "0"}}));
  // Capability only, on a resource the machine does not count.
  EXPECT_EQ(QuotaOf(cq, "example.com/fpga"),
            Json({{"name", "example.com/fpga"}, {"nominalQuota", "2"}, {"borrowingLimit", "0"}}));
  EXPECT_EQ(cq["spec"]["fairSharing"]["weight"], "3");
  EXPECT_EQ(cq["spec"]["preemption"]["reclaimWithinCohort"], "Never");
  auto decoded = codec::DecodeObject(cq.dump());
  EXPECT_TRUE(decoded.ok()) << decoded.status().message();
}

TEST(VolcanoQueueMapTest, ClosedHolds) {
  Json by_spec = Queue("q", {{"weight", 1}, {"state", "Closed"}});
  EXPECT_EQ(MapVolcanoQueue(by_spec, kMachine, true).cluster_queue["spec"]["stopPolicy"], "Hold");
  EXPECT_EQ(MapVolcanoQueue(by_spec, kMachine, true).state, "Closed");
  Json by_status = Queue("q", {{"weight", 1}});
  by_status["status"] = {{"state", "Closed"}};
  EXPECT_EQ(VolcanoQueueState(by_status), "Closed");
  by_status["spec"]["state"] = "Open";  // the spec wins
  EXPECT_EQ(VolcanoQueueState(by_status), "Open");
  EXPECT_EQ(MapVolcanoQueue(by_status, kMachine, true).cluster_queue["spec"]["stopPolicy"], "None");
}

TEST(VolcanoQueueWarningsTest, UnmappedFieldsWarn) {
  EXPECT_TRUE(VolcanoQueueWarnings(Queue("q", {{"weight", 1}, {"reclaimable", true}})).empty());
  Json q = Queue("q", {{"weight", 1},
                       {"reclaimable", false},
                       {"parent", "research"},
                       {"affinity", {{"nodeGroupAffinity", Json::object()}}},
                       {"extendClusters", Json::array({{{"name", "c1"}}})},
                       {"priority", 5},
                       {"colour", "blue"}});
  q["metadata"]["annotations"] = {{"volcano.sh/hierarchy", "root/a"}};
  std::vector<std::string> w = VolcanoQueueWarnings(q);
  std::string all;
  for (const auto& s : w) all += s + "\n";
  for (const char* want :
       {"spec.reclaimable: false", "spec.parent: ignored", "spec.affinity: ignored",
        "spec.extendClusters: ignored", "spec.priority: ignored",
        "metadata.annotations[volcano.sh/hierarchy]", "unknown field \"spec.colour\""}) {
    EXPECT_NE(all.find(want), std::string::npos) << want << " in\n" << all;
  }
  EXPECT_EQ(w.size(), 7u) << all;
  EXPECT_EQ(MapVolcanoQueue(q, kMachine, true).warnings, w);
}

TEST(VolcanoQueueObjectsTest, LocalQueueFlavorAndDefaultQueue) {
  Json lq = VolcanoLocalQueue("team", "ns-a");
  EXPECT_EQ(lq["metadata"]["name"], "volcano-team");
  EXPECT_EQ(lq["metadata"]["namespace"], "ns-a");
  EXPECT_EQ(lq["metadata"]["labels"]["kuota.dev/volcano-queue"], "team");
  EXPECT_EQ(lq["spec"]["clusterQueue"], "volcano-team");
  EXPECT_TRUE(codec::DecodeObject(lq.dump()).ok());
  EXPECT_TRUE(codec::DecodeObject(VolcanoResourceFlavor().dump()).ok());
  Json def = DefaultVolcanoQueueObject();
  EXPECT_EQ(def["metadata"]["name"], "default");
  EXPECT_TRUE(ValidateVolcanoQueue(def).ok());
  EXPECT_TRUE(VolcanoQueueReclaimable(def));
}

TEST(VolcanoJobQueueTest, SpecQueueUnlessKueueLabel) {
  jobs::VolcanoJobKind kind;
  Json job = {{"metadata", {{"name", "j"}}}, {"spec", {{"queue", "ml"}}}};
  EXPECT_EQ(kind.LocalQueueName(job), "volcano-ml");
  job["spec"].erase("queue");
  EXPECT_EQ(kind.LocalQueueName(job), "volcano-default");
  job["metadata"]["labels"] = {{"kueue.x-k8s.io/queue-name", "lq"}};
  EXPECT_EQ(kind.LocalQueueName(job), "lq");
}

}  // namespace
}  // namespace kuota::control
