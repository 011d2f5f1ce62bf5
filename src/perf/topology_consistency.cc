#include "perf/topology_consistency.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kuota::perf {
namespace {

// One edge of a placed hold on one node, on the scheduler's clock.
struct NodeEdge {
  int64_t t;
  int64_t milli;  // cpu; releases are negative and sort first at a tie
  int64_t pods;
  int32_t workload;
  bool operator<(const NodeEdge& o) const { return t != o.t ? t < o.t : milli < o.milli; }
};

std::string SecondsText(int64_t us) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "at %.3f s", static_cast<double>(us) / 1e6);
  return buf;
}

}  // namespace

void CheckTopologyConsistency(const Plan& plan, const RunRecord& record, ConsistencyReport& report,
                              size_t max_listed) {
  if (!plan.topology || record.workloads.size() != plan.workloads.size()) return;
  auto fail = [&](std::string s) {
    report.failure_count++;
    if (report.failures.size() < max_listed) report.failures.push_back(std::move(s));
  };
  const TopologyConfig& topo = *plan.topology;
  const size_t lowest = topo.levels.size() - 1;
  std::unordered_map<std::string, int32_t> node_of;  // lowest level's value -> node
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    node_of.emplace(plan.nodes[n].domains.back(), static_cast<int32_t>(n));
  }
  std::map<std::string, size_t> level_of;
  for (size_t l = 0; l < topo.levels.size(); ++l) level_of[topo.levels[l].node_label] = l;
  auto alloc = [&](const char* name) {
    auto it = plan.node_allocatable.find(name);
    return it == plan.node_allocatable.end() ? int64_t{0} : it->second.milli();
  };
  const int64_t cpu_limit = alloc("cpu");
  const int64_t pods_limit = alloc("pods") / 1000;

  std::vector<std::vector<NodeEdge>> node_edges(plan.nodes.size());
  for (size_t i = 0; i < plan.workloads.size(); ++i) {
    const PlannedWorkload& p = plan.workloads[i];
    const std::string key = plan.Key(p);
    for (const QuotaHold& hold : record.workloads[i].holds) {
      if (hold.sched_start_us < 0) continue;
      if (!hold.placement) {
        if (p.tas_constraint != TasConstraint::kNone) {
          fail(key + ": admitted " + SecondsText(hold.sched_start_us) +
               " without a topology assignment");
        }
        continue;
      }
      const Placement& pl = *hold.placement;
      // Each level of the assignment, as an index into the topology's levels.
      std::vector<size_t> levels;
      std::string bad;
      for (const std::string& l : pl.levels) {
        auto it = level_of.find(l);
        if (it == level_of.end()) bad = "level " + l + " is not the topology's";
        levels.push_back(it == level_of.end() ? 0 : it->second);
      }
      if (bad.empty() && (levels.empty() || levels.back() != lowest)) {
        bad = "its domains are not nodes (the lowest level, " + topo.levels[lowest].node_label +
              ", is not assigned)";
      }
      std::vector<std::pair<int32_t, int32_t>> placed;  // node, pods
      int64_t pods = 0;
      for (size_t d = 0; bad.empty() && d < pl.domains.size(); ++d) {
        const PlacedDomain& dom = pl.domains[d];
        if (dom.values.size() != levels.size()) {
          bad = "domain " + std::to_string(d) + " has " + std::to_string(dom.values.size()) +
                " values for " + std::to_string(levels.size()) + " levels";
          break;
        }
        auto it = node_of.find(dom.values.back());
        if (it == node_of.end()) {
          bad = "node " + dom.values.back() + " is not one of the plan's";
          break;
        }
        const PlannedNode& node = plan.nodes[it->second];
        for (size_t k = 0; k < levels.size(); ++k) {
          if (node.domains[levels[k]] != dom.values[k]) {
            bad = "node " + node.name + " is in " + topo.levels[levels[k]].node_label + " " +
                  node.domains[levels[k]] + ", not " + dom.values[k];
          }
        }
        placed.emplace_back(it->second, dom.pods);
        pods += dom.pods;
      }
      if (!bad.empty()) {
        fail(key + ": topology assignment " + SecondsText(hold.sched_start_us) + ": " + bad);
        continue;
      }
      if (pods != p.pod_count) {
        fail(key + ": topology assignment " + SecondsText(hold.sched_start_us) + " places " +
             std::to_string(pods) + " pods of its " + std::to_string(p.pod_count));
      }
      if (p.tas_level >= 0) {
        // Pods per domain of the requested level.
        std::map<std::string, int64_t> per_domain;
        for (const auto& [n, c] : placed) per_domain[plan.nodes[n].domains[p.tas_level]] += c;
        const std::string& level = topo.levels[p.tas_level].node_label;
        if (p.tas_constraint == TasConstraint::kRequired && per_domain.size() > 1) {
          std::string names;
          for (const auto& [d, c] : per_domain) names += (names.empty() ? "" : ", ") + d;
          fail(key + ": requires one " + level + " but was placed " +
               SecondsText(hold.sched_start_us) + " in " + std::to_string(per_domain.size()) +
               " (" + names + ")");
        }
        if (p.slice_size) {
          for (const auto& [d, c] : per_domain) {
            if (c % *p.slice_size == 0) continue;
            fail(key + ": slices of " + std::to_string(*p.slice_size) +
                 " pods must each be in one " + level + ", but " + d + " holds " +
                 std::to_string(c) + " of its pods " + SecondsText(hold.sched_start_us));
            break;
          }
        }
      }
      for (const auto& [n, c] : placed) {
        const int64_t milli = p.request_milli * c;
        node_edges[n].push_back({hold.sched_start_us, milli, c, static_cast<int32_t>(i)});
        if (hold.sched_end_us >= 0) {
          node_edges[n].push_back({hold.sched_end_us, -milli, -c, static_cast<int32_t>(i)});
        }
      }
    }
  }
  // Capacity: at every edge, releases first at a tie.
  for (size_t n = 0; n < node_edges.size(); ++n) {
    std::vector<NodeEdge>& edges = node_edges[n];
    std::sort(edges.begin(), edges.end());
    int64_t cpu = 0, pods = 0;
    for (const NodeEdge& e : edges) {
      cpu += e.milli;
      pods += e.pods;
      if (cpu <= cpu_limit && pods <= pods_limit) continue;
      fail("node " + plan.nodes[n].name + " held " + std::to_string(pods) + " pods using " +
           CpuText(cpu) + " cpu " + SecondsText(e.t) + ", above its allocatable " +
           CpuText(cpu_limit) + " cpu, " + std::to_string(pods_limit) + " pods (admitting " +
           plan.Key(plan.workloads[e.workload]) + ")");
      break;
    }
  }
}

}  // namespace kuota::perf
