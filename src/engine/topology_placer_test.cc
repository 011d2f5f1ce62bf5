// TopologyPlacer on small trees: Kueue's level search, BestFit and
// LeastFreeCapacity choices, slices, exclusions and the not-fit message.
#include "engine/topology_placer.h"

#include "engine/topology_assigner.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace kuota::engine {
namespace {

constexpr const char* kBlock = "cloud.com/block";
constexpr const char* kRack = "cloud.com/rack";

class TopologyPlacerTest : public ::testing::Test {
 protected:
  void AddNode(const std::string& block, const std::string& rack, const std::string& host,
               const std::string& cpu, bool ready = true) {
    api::Node n;
    n.metadata.name = host;
    n.metadata.labels = {
        {kBlock, block}, {kRack, rack}, {api::kHostnameLabel, host}, {"pool", "tas"}};
    n.allocatable["cpu"] = *api::Quantity::Parse(cpu);
    n.allocatable["pods"] = *api::Quantity::Parse("10");
    n.ready = ready;
    nodes_[host] = n;
  }
  const TopologyTree& Build(std::vector<std::string> levels = {kBlock, kRack,
                                                               api::kHostnameLabel}) {
    api::Topology t;
    t.metadata.name = "topo";
    t.levels = std::move(levels);
    api::ResourceFlavor f;
    f.metadata.name = "tas";
    f.node_labels = {{"pool", "tas"}};
    f.topology_name = "topo";
    tas_.Rebuild({{"tas", f}}, {{"topo", t}}, nodes_, pods_);
    return *tas_.Tree("tas");
  }
  std::optional<TopologyPlacement> Place(const api::PodSetTopologyRequest& tr, int32_t count,
                                         const std::string& cpu, std::string* reason) {
    TopologyPodSetRequest req;
    req.request = &tr;
    req.count = count;
    req.per_pod = tas_.Vector({{"cpu", api::Quantity::Parse(cpu)->milli()}});
    req.spec = &spec_;
    TopologyPlacer placer(&tas_);
    return placer.Place(*tas_.Tree("tas"), req, {}, false, reason);
  }
  static std::map<std::string, int32_t> Domains(const TopologyPlacement& p) {
    std::map<std::string, int32_t> out;
    for (const auto& d : p.assignment.domains) {
      std::string key;
      for (const auto& v : d.values) key += (key.empty() ? "" : "/") + v;
      out[key] = d.count;
    }
    return out;
  }

  std::map<std::string, api::Node> nodes_;
  std::map<std::string, api::Pod> pods_;
  api::PodSpec spec_;
  TasState tas_;
};

TEST_F(TopologyPlacerTest, RequiredRackTakesTheTightestRackThatHoldsTheGang) {
  AddNode("b1", "r1", "x1", "4");
  AddNode("b1", "r1", "x2", "4");
  AddNode("b1", "r2", "x3", "2");
  AddNode("b1", "r2", "x4", "1");
  Build();
  api::PodSetTopologyRequest tr;
  tr.required = kRack;
  std::string reason;
  auto p = Place(tr, 3, "1", &reason);
  ASSERT_TRUE(p) << reason;
  // r2 holds exactly 3; r1 (8) would fit too but BestFit keeps it free.
  EXPECT_EQ(p->assignment.levels, std::vector<std::string>{api::kHostnameLabel});
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x3", 2}, {"x4", 1}}));
}

TEST_F(TopologyPlacerTest, RequiredRackFailsWithTheLargestRoomNamed) {
  AddNode("b1", "r1", "x1", "2");
  AddNode("b1", "r2", "x2", "3");
  Build();
  api::PodSetTopologyRequest tr;
  tr.required = kRack;
  std::string reason;
  EXPECT_FALSE(Place(tr, 4, "1", &reason));
  EXPECT_EQ(reason,
            "topology \"topo\" allows to fit only 3 out of 4 pod(s) (no cloud.com/rack domain has "
            "room for 4 pods of cpu 1: the largest free one holds 3)");
}

TEST_F(TopologyPlacerTest, PreferredRackClimbsToTheBlock) {
  AddNode("b1", "r1", "x1", "2");
  AddNode("b1", "r2", "x2", "2");
  AddNode("b2", "r3", "x3", "3");
  Build();
  api::PodSetTopologyRequest tr;
  tr.preferred = kRack;
  std::string reason;
  auto p = Place(tr, 4, "1", &reason);
  ASSERT_TRUE(p) << reason;
  // No rack holds 4; block b1 (4) does, b2 (3) does not.
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x1", 2}, {"x2", 2}}));
}

TEST_F(TopologyPlacerTest, PreferredSpreadsOverBlocksWhenNoBlockHoldsIt) {
  AddNode("b1", "r1", "x1", "2");
  AddNode("b2", "r2", "x2", "3");
  Build();
  api::PodSetTopologyRequest tr;
  tr.preferred = kRack;
  std::string reason;
  auto p = Place(tr, 4, "1", &reason);
  ASSERT_TRUE(p) << reason;
  // The biggest block first (3), then the one that holds the rest.
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x1", 1}, {"x2", 3}}));
  EXPECT_FALSE(Place(tr, 6, "1", &reason));
  EXPECT_NE(reason.find("the whole topology has room for 5 of 6 pods"), std::string::npos)
      << reason;
}

TEST_F(TopologyPlacerTest, UnconstrainedTakesTheLeastFreeNodes) {
  AddNode("b1", "r1", "x1", "4");
  AddNode("b1", "r1", "x2", "1");
  AddNode("b1", "r2", "x3", "2");
  Build();
  api::PodSetTopologyRequest tr;
  tr.unconstrained = true;
  std::string reason;
  // The least free node that holds the whole pod set...
  auto p = Place(tr, 2, "1", &reason);
  ASSERT_TRUE(p) << reason;
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x3", 2}}));
  // ...and when none does, the least free nodes first.
  p = Place(tr, 5, "1", &reason);
  ASSERT_TRUE(p) << reason;
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x1", 2}, {"x2", 1}, {"x3", 2}}));
}

TEST_F(TopologyPlacerTest, SlicesStayWithinTheirHost) {
  AddNode("b1", "r1", "x1", "3");
  AddNode("b1", "r1", "x2", "3");
  AddNode("b1", "r1", "x3", "2");
  Build();
  api::PodSetTopologyRequest tr;
  tr.required = kBlock;
  tr.pod_set_slice_required_topology = api::kHostnameLabel;
  tr.pod_set_slice_size = 2;
  std::string reason;
  auto p = Place(tr, 6, "1", &reason);
  ASSERT_TRUE(p) << reason;
  // Each host takes whole slices of 2: 3 free cpu hold one slice, not 1.5.
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x1", 2}, {"x2", 2}, {"x3", 2}}));
  EXPECT_FALSE(Place(tr, 8, "1", &reason));
  EXPECT_NE(reason.find("allows to fit only 3 out of 4 slice(s)"), std::string::npos) << reason;
}

TEST_F(TopologyPlacerTest, NotReadyNodesTaintsAndOtherPodsTakeCapacityAway) {
  AddNode("b1", "r1", "x1", "2");
  AddNode("b1", "r1", "x2", "2", /*ready=*/false);
  AddNode("b1", "r1", "x3", "2");
  api::Taint taint;
  taint.key = "maintenance";
  taint.effect = "NoSchedule";
  nodes_["x3"].taints.push_back(taint);
  api::Pod other;
  other.metadata.name = "daemon";
  other.metadata.namespace_ = "kube-system";
  other.node_name = "x1";
  other.phase = "Running";
  api::Container c;
  c.resources.requests["cpu"] = *api::Quantity::Parse("1");
  other.spec.containers.push_back(c);
  pods_["kube-system/daemon"] = other;
  Build();
  api::PodSetTopologyRequest tr;
  tr.required = kBlock;
  std::string reason;
  EXPECT_FALSE(Place(tr, 2, "1", &reason));
  EXPECT_NE(reason.find("allows to fit only 1 out of 2 pod(s)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("taint \"maintenance:NoSchedule\": 1"), std::string::npos) << reason;
  // Tolerating the taint opens x3.
  api::Toleration tol;
  tol.key = "maintenance";
  tol.op = "Exists";
  spec_.tolerations.push_back(tol);
  auto p = Place(tr, 2, "1", &reason);
  ASSERT_TRUE(p) << reason;
  EXPECT_EQ(Domains(*p), (std::map<std::string, int32_t>{{"x3", 2}}));
}

TEST_F(TopologyPlacerTest, RequestsNamingAMissingLevelAreRefused) {
  AddNode("b1", "r1", "x1", "2");
  Build({kRack, api::kHostnameLabel});
  api::PodSetTopologyRequest tr;
  tr.required = kBlock;
  std::string reason;
  EXPECT_FALSE(Place(tr, 1, "1", &reason));
  EXPECT_EQ(reason, "no requested topology level: cloud.com/block");
  EXPECT_FALSE(TopologyPlacer::HasLevels(*tas_.Tree("tas"), &tr));
}

}  // namespace
}  // namespace kuota::engine

namespace kuota::engine {
namespace {

// The placer keeps what it found per request shape and updates it from the
// cells' change log; a fresh placer recounts every node. Random placements,
// releases and assumed usage must never tell them apart.
TEST_F(TopologyPlacerTest, CachedCountsAgreeWithAFullRecount) {
  uint64_t seed = 12345;
  auto next = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int b = 0; b < 2; ++b) {
    for (int r = 0; r < 3; ++r) {
      for (int h = 0; h < 4; ++h) {
        const std::string host = "h" + std::to_string(b) + std::to_string(r) + std::to_string(h);
        AddNode("b" + std::to_string(b), "r" + std::to_string(b) + std::to_string(r), host,
                std::to_string(2 + (b + r + h) % 4));
      }
    }
  }
  const TopologyTree& tree = Build();
  TopologyPlacer cached(&tas_);
  std::vector<std::vector<TasUse>> held;
  const std::vector<std::string> levels = {kBlock, kRack, api::kHostnameLabel};
  for (int step = 0; step < 400; ++step) {
    api::PodSetTopologyRequest tr;
    switch (next(4)) {
      case 0:
        tr.required = levels[next(3)];
        break;
      case 1:
        tr.preferred = levels[next(3)];
        break;
      case 2:
        tr.unconstrained = true;
        break;
      default:
        tr.required = kBlock;
        tr.pod_set_slice_required_topology = levels[1 + next(2)];
        tr.pod_set_slice_size = 2;
        break;
    }
    TopologyPodSetRequest req;
    req.request = &tr;
    req.count = static_cast<int32_t>(2 * (1 + next(4)));
    req.per_pod = tas_.Vector({{"cpu", static_cast<int64_t>(1000 * (1 + next(2)))}});
    req.spec = &spec_;
    AssumedUsage assumed;
    if (next(4) == 0) {
      AddUsage(assumed[tree.leaves[next(tree.leaves.size())].cell], req.per_pod, 1);
    }
    std::string why_cached, why_fresh;
    auto a = cached.Place(tree, req, assumed, false, &why_cached);
    TopologyPlacer fresh(&tas_);
    auto f = fresh.Place(tree, req, assumed, false, &why_fresh);
    ASSERT_EQ(a.has_value(), f.has_value())
        << "step " << step << ": " << why_cached << " | " << why_fresh;
    if (!a) {
      EXPECT_EQ(why_cached, why_fresh) << "step " << step;
    } else {
      ASSERT_EQ(Domains(*a), Domains(*f)) << "step " << step;
    }
    if (a && next(3) != 0) {  // admit it
      std::vector<TasUse> use;
      for (const auto& [leaf, pods] : a->leaves) {
        TasUse u;
        u.cell = tree.leaves[static_cast<size_t>(leaf)].cell;
        AddUsage(u.amount, req.per_pod, pods);
        use.push_back(std::move(u));
      }
      AddTopologyUsage(use);
      held.push_back(std::move(use));
    } else if (!held.empty()) {  // or let one go
      const size_t k = next(held.size());
      RemoveTopologyUsage(held[k]);
      held.erase(held.begin() + static_cast<long>(k));
    }
  }
}

}  // namespace
}  // namespace kuota::engine
