// WorkloadStatusToJson: the admission as Kueue's v1beta2 writes it, a pod
// set assignment's topologyAssignment (v1beta2's slices) included when the
// engine placed it, and what it writes decodes back to the same status.
#include "control/workload_status_json.h"

#include <gtest/gtest.h>

#include "api/codec/decode.h"
#include "api/conversion/kind_conversions.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

api::WorkloadStatus AdmittedStatus() {
  api::WorkloadStatus st;
  api::Admission& admission = st.admission.emplace();
  admission.cluster_queue = "cq";
  api::PodSetAssignment psa;
  psa.name = "workers";
  psa.flavors["cpu"] = "tas";
  psa.resource_usage["cpu"] = api::Quantity::Parse("4").value();
  psa.count = 4;
  psa.topology_assignment = api::TopologyAssignment{{"cloud.com/rack", "kubernetes.io/hostname"},
                                                    {{{"r1", "node-1"}, 3}, {{"r1", "node-2"}, 1}}};
  admission.pod_set_assignments.push_back(psa);
  api::PodSetAssignment plain;
  plain.name = "launcher";
  plain.flavors["cpu"] = "tas";
  plain.count = 1;
  admission.pod_set_assignments.push_back(plain);
  return st;
}

TEST(WorkloadStatusJsonTest, TopologyAssignmentAsV1beta2Slices) {
  Json out = WorkloadStatusToJson(AdmittedStatus());
  const Json& psas = out["admission"]["podSetAssignments"];
  ASSERT_EQ(psas.size(), 2u);
  Json ta = psas[0]["topologyAssignment"];
  EXPECT_EQ(ta["levels"], Json::parse(R"(["cloud.com/rack", "kubernetes.io/hostname"])"));
  EXPECT_FALSE(ta.contains("domains"));
  ASSERT_TRUE(ta.contains("slices")) << ta.dump();
  // The slices hold exactly the engine's domains.
  ASSERT_TRUE(conversion::TopologyAssignmentDown(ta, "topologyAssignment").ok());
  EXPECT_EQ(ta["domains"], Json::parse(R"([{"values": ["r1", "node-1"], "count": 3},
                                           {"values": ["r1", "node-2"], "count": 1}])"));
  EXPECT_FALSE(psas[1].contains("topologyAssignment"));
}

TEST(WorkloadStatusJsonTest, WrittenStatusDecodesBack) {
  Json wl = {{"apiVersion", "kueue.x-k8s.io/v1beta2"},
             {"kind", "Workload"},
             {"metadata", {{"name", "w"}, {"namespace", "ns"}}},
             {"spec", {{"podSets", Json::parse(R"([{"name": "workers", "count": 4,
                  "template": {"spec": {"containers": [{"name": "c"}]}}},
                 {"name": "launcher", "template": {"spec": {"containers": [{"name": "c"}]}}}])")}}},
             {"status", WorkloadStatusToJson(AdmittedStatus())}};
  Result<api::Object> decoded = codec::DecodeJsonObject(wl);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const auto& status = std::get<api::Workload>(decoded->value).status;
  ASSERT_TRUE(status.admission.has_value());
  const auto& ta = status.admission->pod_set_assignments[0].topology_assignment;
  ASSERT_TRUE(ta.has_value());
  EXPECT_EQ(ta->levels, (std::vector<std::string>{"cloud.com/rack", "kubernetes.io/hostname"}));
  ASSERT_EQ(ta->domains.size(), 2u);
  EXPECT_EQ(ta->domains[0].values, (std::vector<std::string>{"r1", "node-1"}));
  EXPECT_EQ(ta->domains[0].count, 3);
  EXPECT_FALSE(status.admission->pod_set_assignments[1].topology_assignment.has_value());
}

}  // namespace
}  // namespace kuota::control
