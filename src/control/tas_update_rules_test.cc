// ValidateTasUpdate: Kueue's CRD transition rules for ResourceFlavor's
// topologyName and Topology's levels, with kube-apiserver's messages.
#include "control/tas_update_rules.h"

#include <gtest/gtest.h>

namespace kuota::control {
namespace {

using Json = nlohmann::json;

Json Flavor(const char* topology) {
  Json rf = {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
             {"kind", "ResourceFlavor"},
             {"metadata", {{"name", "f"}}},
             {"spec", {{"nodeLabels", {{"pool", "a"}}}}}};
  if (topology != nullptr) rf["spec"]["topologyName"] = topology;
  return rf;
}

Json Topology(std::initializer_list<const char*> labels) {
  Json levels = Json::array();
  for (const char* l : labels) levels.push_back({{"nodeLabel", l}});
  return {{"apiVersion", "kueue.x-k8s.io/v1beta1"},
          {"kind", "Topology"},
          {"metadata", {{"name", "t"}}},
          {"spec", {{"levels", levels}}}};
}

std::string Check(const char* kind, const Json& before, const Json& after) {
  Status st = ValidateTasUpdate(kind, before, after);
  return st.ok() ? "OK" : st.message();
}

TEST(TasUpdateRulesTest, TopologyNameIsImmutableOnceSet) {
  const std::string refused =
      "spec: Invalid value: \"object\": topologyName is immutable when topologyName is set";
  EXPECT_EQ(Check("ResourceFlavor", Flavor(nullptr), Flavor("default")), "OK");
  EXPECT_EQ(Check("ResourceFlavor", Flavor("default"), Flavor("default")), "OK");
  EXPECT_EQ(Check("ResourceFlavor", Flavor("default"), Flavor("other")), refused);
  EXPECT_EQ(Check("ResourceFlavor", Flavor("default"), Flavor(nullptr)), refused);
  Json labels_changed = Flavor("default");
  labels_changed["spec"]["nodeLabels"]["pool"] = "b";
  EXPECT_EQ(Check("ResourceFlavor", Flavor("default"), labels_changed), "OK");
}

TEST(TasUpdateRulesTest, TopologyLevelsChangeOnlyAboveAHostnameLevel) {
  const std::string refused =
      "spec.levels: Invalid value: \"array\": levels are mutable only when "
      "kubernetes.io/hostname is the lowest level both before and after the change";
  EXPECT_EQ(Check("Topology", Topology({"block", "rack"}), Topology({"block", "rack"})), "OK");
  EXPECT_EQ(Check("Topology", Topology({"block", "rack"}), Topology({"rack"})), refused);
  EXPECT_EQ(Check("Topology", Topology({"block", "kubernetes.io/hostname"}),
                  Topology({"block", "rack", "kubernetes.io/hostname"})),
            "OK");
  EXPECT_EQ(Check("Topology", Topology({"block", "kubernetes.io/hostname"}), Topology({"block"})),
            refused);
  EXPECT_EQ(Check("Topology", Topology({"block"}), Topology({"block", "kubernetes.io/hostname"})),
            refused);
  Json relabelled = Topology({"block", "rack"});
  relabelled["metadata"]["labels"] = {{"a", "b"}};
  EXPECT_EQ(Check("Topology", Topology({"block", "rack"}), relabelled), "OK");
  EXPECT_EQ(Check("ClusterQueue", Json::object(), Json::array()), "OK");
}

}  // namespace
}  // namespace kuota::control
