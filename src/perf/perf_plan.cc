#include "perf/perf_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace kuota::perf {
namespace {

int32_t IndexOf(std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<int32_t>(it - names.begin());
  names.push_back(name);
  return static_cast<int32_t>(names.size() - 1);
}

api::ObjectMeta Meta(const std::string& name, const std::string& ns = "") {
  api::ObjectMeta m;
  m.name = name;
  m.namespace_ = ns;
  return m;
}

// Every node of `t`, each level's domains named `<level>-<i>-<j>...` by the
// path of indexes down to it.
std::vector<PlannedNode> NodesOf(const TopologyConfig& t) {
  std::vector<PlannedNode> level = {PlannedNode{}};
  std::vector<std::string> suffix = {""};
  for (const TopologyLevel& l : t.levels) {
    std::vector<PlannedNode> next;
    std::vector<std::string> next_suffix;
    next.reserve(level.size() * static_cast<size_t>(l.count));
    for (size_t p = 0; p < level.size(); ++p) {
      for (int64_t i = 0; i < l.count; ++i) {
        PlannedNode n = level[p];
        next_suffix.push_back(suffix[p] + "-" + std::to_string(i));
        n.domains.push_back(l.name + next_suffix.back());
        n.name = n.domains.back();
        next.push_back(std::move(n));
      }
    }
    level = std::move(next);
    suffix = std::move(next_suffix);
  }
  return level;
}

int32_t LevelIndex(const TopologyConfig& t, const std::string& node_label) {
  for (size_t i = 0; i < t.levels.size(); ++i) {
    if (t.levels[i].node_label == node_label) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace

Result<Plan> BuildPlan(const PerfConfig& config) {
  Plan plan;
  if (config.resource_flavor) {
    plan.flavor_name = config.resource_flavor->name;
    plan.flavor_node_label = config.resource_flavor->node_label;
  }
  if (config.topology) {
    const TopologyConfig& t = *config.topology;
    if (t.levels.empty()) return Status::Invalid("topology " + t.name + " has no levels");
    plan.topology = t;
    plan.nodes = NodesOf(t);
    plan.node_allocatable = t.levels.back().capacity;
    plan.node_allocatable.try_emplace("pods", api::Quantity::FromMilli(kNodePods * 1000));
  }
  struct Order {
    int32_t queue;
    int32_t set;
    int64_t seq;
  };
  std::vector<Order> order;
  std::set<std::string> names;
  for (const CohortSet& cs : config.cohorts) {
    for (int64_t ci = 0; ci < cs.count; ++ci) {
      const std::string cohort = cs.class_name + "-" + std::to_string(ci);
      const int32_t cohort_index = IndexOf(plan.cohorts, cohort);
      for (size_t qsi = 0; qsi < cs.queues_sets.size(); ++qsi) {
        const QueuesSet& qs = cs.queues_sets[qsi];
        for (int64_t qi = 0; qi < qs.count; ++qi) {
          PlannedQueue q;
          q.name =
              qs.class_name + "-" + std::to_string(qsi) + "-" + std::to_string(qi) + "-" + cohort;
          if (!names.insert(q.name).second) {
            return Status::Invalid("two ClusterQueues would be named " + q.name +
                                   ": give the cohort sets or queue sets distinct classNames");
          }
          q.cohort = cohort;
          q.class_name = qs.class_name;
          q.nominal_milli = qs.nominal_quota.milli();
          if (qs.borrowing_limit) q.borrowing_limit_milli = qs.borrowing_limit->milli();
          q.reclaim_within_cohort = qs.reclaim_within_cohort;
          q.within_cluster_queue = qs.within_cluster_queue;
          q.queueing_strategy = qs.queueing_strategy;
          q.backfill = qs.backfill;
          const int32_t queue_index = static_cast<int32_t>(plan.queues.size());
          plan.queues.push_back(std::move(q));
          plan.queue_cohort.push_back(cohort_index);
          plan.queue_class.push_back(IndexOf(plan.queue_classes, qs.class_name));
          for (size_t wsi = 0; wsi < qs.workloads_sets.size(); ++wsi) {
            const WorkloadsSet& ws = qs.workloads_sets[wsi];
            int64_t seq = 0;
            for (int64_t si = 0; si < ws.count; ++si) {
              for (size_t ti = 0; ti < ws.workloads.size(); ++ti, ++seq) {
                const WorkloadTemplate& t = ws.workloads[ti];
                PlannedWorkload w;
                w.name = t.class_name + "-" + std::to_string(wsi) + "-" + std::to_string(si) + "-" +
                         std::to_string(ti);
                w.queue = queue_index;
                w.class_index = IndexOf(plan.workload_classes, t.class_name);
                // Kueue's generator waits one interval before each create.
                w.create_at_ms = (seq + 1) * ws.creation_interval_ms;
                w.runtime_ms = t.runtime_ms;
                w.priority = t.priority;
                w.request_milli = t.request.milli();
                w.pod_count = t.pod_count;
                if (t.tas_constraint != TasConstraint::kNone) {
                  const int32_t level =
                      plan.topology ? LevelIndex(*plan.topology, t.tas_level) : -1;
                  if (level < 0) {
                    return Status::Invalid("workload class " + t.class_name + ": tasLevel " +
                                           t.tas_level + " is not a level of the topology");
                  }
                  w.tas_constraint = t.tas_constraint;
                  w.tas_level = level;
                  w.slice_size = t.slice_size;
                }
                plan.workloads.push_back(std::move(w));
                order.push_back({queue_index, static_cast<int32_t>(wsi), seq});
              }
            }
          }
        }
      }
    }
  }
  std::vector<size_t> idx(plan.workloads.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const auto& wa = plan.workloads[a];
    const auto& wb = plan.workloads[b];
    return std::tie(wa.create_at_ms, order[a].queue, order[a].set, order[a].seq) <
           std::tie(wb.create_at_ms, order[b].queue, order[b].set, order[b].seq);
  });
  std::vector<PlannedWorkload> sorted;
  sorted.reserve(idx.size());
  for (size_t i : idx) sorted.push_back(std::move(plan.workloads[i]));
  plan.workloads = std::move(sorted);
  return plan;
}

api::Object FlavorObject(const Plan& plan) {
  api::ResourceFlavor rf;
  rf.metadata = Meta(plan.flavor_name);
  if (!plan.flavor_node_label.empty()) rf.node_labels[plan.flavor_node_label] = plan.flavor_name;
  if (plan.topology) rf.topology_name = plan.topology->name;
  return {api::kKueueV1beta1, "ResourceFlavor", rf};
}

api::Object TopologyObject(const Plan& plan) {
  api::Topology t;
  t.metadata = Meta(plan.topology->name);
  for (const TopologyLevel& l : plan.topology->levels) t.levels.push_back(l.node_label);
  return {api::kKueueV1beta1, "Topology", t};
}

api::Object NodeObject(const Plan& plan, const PlannedNode& node) {
  api::Node n;
  n.metadata = Meta(node.name);
  for (size_t l = 0; l < node.domains.size(); ++l) {
    n.metadata.labels[plan.topology->levels[l].node_label] = node.domains[l];
  }
  if (!plan.flavor_node_label.empty()) n.metadata.labels[plan.flavor_node_label] = plan.flavor_name;
  n.allocatable = plan.node_allocatable;
  return {"v1", "Node", n};
}

api::Object ClusterQueueObject(const Plan& plan, const PlannedQueue& q) {
  api::ClusterQueue cq;
  cq.metadata = Meta(q.name);
  cq.metadata.labels[kClassLabel] = q.class_name;
  cq.spec.cohort = q.cohort;
  cq.spec.namespace_selector = api::LabelSelector{};  // all namespaces
  api::ResourceQuota rq;
  rq.name = "cpu";
  rq.nominal_quota = api::Quantity::FromMilli(q.nominal_milli);
  if (q.borrowing_limit_milli)
    rq.borrowing_limit = api::Quantity::FromMilli(*q.borrowing_limit_milli);
  api::ResourceGroup group;
  group.covered_resources = {"cpu"};
  group.flavors.push_back(api::FlavorQuotas{plan.flavor_name, {rq}});
  cq.spec.resource_groups.push_back(std::move(group));
  cq.spec.preemption.reclaim_within_cohort = q.reclaim_within_cohort;
  cq.spec.preemption.within_cluster_queue = q.within_cluster_queue;
  cq.spec.queueing_strategy = q.queueing_strategy;
  if (q.backfill) cq.metadata.annotations["kuota.dev/backfill"] = "true";
  return {api::kKueueV1beta1, "ClusterQueue", cq};
}

api::Object NamespaceObject(const PlannedQueue& q) {
  api::Namespace ns;
  ns.metadata = Meta(q.name);
  return {"v1", "Namespace", ns};
}

api::Object LocalQueueObject(const PlannedQueue& q) {
  api::LocalQueue lq;
  lq.metadata = Meta(q.name, q.name);
  lq.cluster_queue = q.name;
  return {api::kKueueV1beta1, "LocalQueue", lq};
}

api::Object WorkloadObject(const Plan& plan, const PlannedWorkload& w) {
  const PlannedQueue& q = plan.queues[w.queue];
  api::Workload wl;
  wl.metadata = Meta(w.name, q.name);
  wl.metadata.uid = q.name + "." + w.name;
  wl.metadata.labels[kClassLabel] = plan.workload_classes[w.class_index];
  wl.metadata.labels[kRunningTimeLabel] = std::to_string(w.runtime_ms);
  wl.spec.queue_name = q.name;
  wl.spec.priority = w.priority;
  if (q.backfill) {
    wl.spec.maximum_execution_time_seconds = static_cast<int32_t>((w.runtime_ms + 999) / 1000);
  }
  api::PodSet ps;
  ps.name = "main";
  ps.count = w.pod_count;
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = api::Quantity::FromMilli(w.request_milli);
  ps.template_.spec.containers.push_back(std::move(c));
  ps.template_.spec.restart_policy = "Never";
  if (w.tas_constraint != TasConstraint::kNone) {
    const std::string& level = plan.topology->levels[w.tas_level].node_label;
    api::PodSetTopologyRequest tr;
    if (w.tas_constraint == TasConstraint::kRequired) {
      tr.required = level;
    } else {
      tr.preferred = level;  // balanced too: Kueue's TASBalancedPlacement is alpha, off by default
    }
    if (w.slice_size) {
      tr.pod_set_slice_required_topology = level;
      tr.pod_set_slice_size = *w.slice_size;
    }
    ps.topology_request = std::move(tr);
  }
  wl.spec.pod_sets.push_back(std::move(ps));
  return {api::kKueueV1beta1, "Workload", wl};
}

}  // namespace kuota::perf
