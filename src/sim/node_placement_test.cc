// NodePlacement: pods of a topology-placed pod set go to their assigned
// domains, not to the first node with room.
#include "sim/node_placement.h"

#include <gtest/gtest.h>

#include "api/topology.h"

namespace kuota::sim {
namespace {

SimNode Host(const std::string& name, const std::string& cpu) {
  SimNode n;
  n.name = name;
  n.labels = {{api::kHostnameLabel, name}};
  n.allocatable["cpu"] = *api::Quantity::Parse(cpu);
  n.allocatable["pods"] = *api::Quantity::Parse("10");
  return n;
}

// A workload of `count` one-cpu pods, placed by topology on `host` when set.
std::unique_ptr<engine::WorkloadInfo> Workload(const std::string& name, int32_t count,
                                               const std::string& host) {
  auto wl = std::make_unique<engine::WorkloadInfo>();
  wl->key = "default/" + name;
  api::PodSet ps;
  ps.name = "main";
  ps.count = count;
  api::Container c;
  c.resources.requests["cpu"] = *api::Quantity::Parse("1");
  ps.template_.spec.containers.push_back(c);
  wl->object.spec.pod_sets.push_back(ps);
  wl->pod_sets = engine::BuildPodSets(wl->object);
  engine::PodSetAdmission psa;
  psa.name = "main";
  psa.count = count;
  psa.flavors["cpu"] = "tas";
  wl->admission.push_back(psa);
  api::Admission adm;
  adm.cluster_queue = "cq";
  api::PodSetAssignment a;
  a.name = "main";
  if (!host.empty()) {
    api::TopologyAssignment ta;
    ta.levels = {api::kHostnameLabel};
    ta.domains.push_back({{host}, count});
    a.topology_assignment = ta;
  }
  adm.pod_set_assignments.push_back(a);
  wl->object.status.admission = adm;
  return wl;
}

TEST(NodePlacementTest, TopologyPlacedPodsGoToTheirAssignedNodes) {
  NodePlacement placement({Host("x1", "4"), Host("x2", "2")});
  const std::map<std::string, api::ResourceFlavor> flavors;
  auto first = Workload("first", 2, "x2");
  ASSERT_TRUE(placement.Place(*first, flavors));
  // x2 is full; x1 has room but is not where this one was assigned.
  auto second = Workload("second", 1, "x2");
  EXPECT_FALSE(placement.Place(*second, flavors));
  auto nowhere = Workload("nowhere", 1, "x3");
  EXPECT_FALSE(placement.Place(*nowhere, flavors));
  // Without a topology assignment, first fit: x1.
  auto plain = Workload("plain", 1, "");
  EXPECT_TRUE(placement.Place(*plain, flavors));
  placement.Release(first->key);
  EXPECT_TRUE(placement.Place(*second, flavors));
}

}  // namespace
}  // namespace kuota::sim
