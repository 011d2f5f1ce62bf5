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

}  // namespace

Result<Plan> BuildPlan(const PerfConfig& config) {
  Plan plan;
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

api::Object FlavorObject() {
  api::ResourceFlavor rf;
  rf.metadata = Meta(kFlavorName);
  return {api::kKueueV1beta1, "ResourceFlavor", rf};
}

api::Object ClusterQueueObject(const PlannedQueue& q) {
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
  group.flavors.push_back(api::FlavorQuotas{kFlavorName, {rq}});
  cq.spec.resource_groups.push_back(std::move(group));
  cq.spec.preemption.reclaim_within_cohort = q.reclaim_within_cohort;
  cq.spec.preemption.within_cluster_queue = q.within_cluster_queue;
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
  api::PodSet ps;
  ps.name = "main";
  ps.count = w.pod_count;
  api::Container c;
  c.name = "c";
  c.resources.requests["cpu"] = api::Quantity::FromMilli(w.request_milli);
  ps.template_.spec.containers.push_back(std::move(c));
  ps.template_.spec.restart_policy = "Never";
  wl.spec.pod_sets.push_back(std::move(ps));
  return {api::kKueueV1beta1, "Workload", wl};
}

}  // namespace kuota::perf
