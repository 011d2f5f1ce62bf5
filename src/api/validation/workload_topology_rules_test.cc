// Kueue's Workload rules for topology-aware scheduling through Validate():
// a pod set's topologyRequest (the webhook's validateTASSliceSize, v1beta2's
// CRD minimum of subGroupCount) and a pod set assignment's
// topologyAssignment (the CRD's bounds on levels, values and counts). Each
// rule has a refused row with Kueue's exact path and message and, next to
// it, the nearest object Kueue accepts.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "api/validation/validate.h"

namespace kuota::validation {
namespace workload_topology_rules_test {
namespace {

using W = api::Workload;

struct Row {
  std::string name;
  std::function<void(W&)> mutate;
  std::string want;  // "" = accepted; otherwise the exact message
};

W BaseWorkload() {
  W wl;
  wl.metadata.name = "wl";
  wl.metadata.namespace_ = "ns";
  wl.spec.queue_name = "lq";
  api::PodSet ps;
  ps.name = "main";
  ps.count = 4;
  api::Container c;
  c.name = "c";
  ps.template_.spec.containers.push_back(c);
  wl.spec.pod_sets.push_back(ps);
  return wl;
}

api::PodSetTopologyRequest& Request(W& wl) {
  auto& req = wl.spec.pod_sets[0].topology_request;
  if (!req.has_value()) req.emplace();
  return *req;
}

api::TopologyAssignment& Assignment(W& wl) {
  if (!wl.status.admission.has_value()) {
    wl.status.admission.emplace();
    wl.status.admission->cluster_queue = "cq";
    api::PodSetAssignment psa;
    psa.name = "main";
    psa.flavors["cpu"] = "tas";
    wl.status.admission->pod_set_assignments.push_back(psa);
  }
  auto& ta = wl.status.admission->pod_set_assignments[0].topology_assignment;
  if (!ta.has_value()) {
    ta.emplace();
    ta->levels = {"cloud.com/rack", "kubernetes.io/hostname"};
    ta->domains = {{{"r1", "n1"}, 2}, {{"r1", "n2"}, 2}};
  }
  return *ta;
}

const std::string kRequest = "spec.podSets[0].topologyRequest.";
const std::string kAssignment = "status.admission.podSetAssignments[0].topologyAssignment.";

TEST(WorkloadTopologyRulesTest, Table) {
  const Row rows[] = {
      // 1. topologyRequest: the webhook's validateTASSliceSize.
      {"every field set",
       [](W& w) {
         auto& r = Request(w);
         r.required = "cloud.com/rack";
         r.pod_index_label = "kubernetes.io/job-completion-index";
         r.sub_group_index_label = "jobset.sigs.k8s.io/job-index";
         r.sub_group_count = 2;
         r.pod_set_group_name = "g";
         r.pod_set_slice_required_topology = "kubernetes.io/hostname";
         r.pod_set_slice_size = 2;
       },
       ""},
      {"unconstrained alone", [](W& w) { Request(w).unconstrained = true; }, ""},
      {"slice topology without a size",
       [](W& w) { Request(w).pod_set_slice_required_topology = "kubernetes.io/hostname"; },
       kRequest + "podSetSliceSize: Required value: must be set when podSetSliceRequiredTopology "
                  "is specified"},
      {"slice size zero",
       [](W& w) {
         Request(w).pod_set_slice_required_topology = "kubernetes.io/hostname";
         Request(w).pod_set_slice_size = 0;
       },
       kRequest + "podSetSliceSize: Invalid value: 0: must be greater than 0"},
      {"slice size negative",
       [](W& w) {
         Request(w).pod_set_slice_required_topology = "kubernetes.io/hostname";
         Request(w).pod_set_slice_size = -3;
       },
       kRequest + "podSetSliceSize: Invalid value: -3: must be greater than 0"},
      {"slice size of one",
       [](W& w) {
         Request(w).pod_set_slice_required_topology = "kubernetes.io/hostname";
         Request(w).pod_set_slice_size = 1;
       },
       ""},
      {"slice size without a slice topology", [](W& w) { Request(w).pod_set_slice_size = 2; },
       kRequest + "podSetSliceSize: Forbidden: may not be set when podSetSliceRequiredTopology "
                  "is not specified"},
      {"subGroupCount zero", [](W& w) { Request(w).sub_group_count = 0; }, ""},
      {"subGroupCount negative", [](W& w) { Request(w).sub_group_count = -1; },
       kRequest + "subGroupCount: Invalid value: -1: must be greater than or equal to 0"},
      {"empty topologyRequest", [](W& w) { Request(w); }, ""},

      // 2. topologyAssignment: the CRD's bounds.
      {"assignment", [](W& w) { Assignment(w); }, ""},
      {"assignment without domains", [](W& w) { Assignment(w).domains.clear(); }, ""},
      {"assignment without levels", [](W& w) { Assignment(w).levels.clear(); },
       kAssignment + "levels: Required value"},
      {"assignment with 17 levels",
       [](W& w) { Assignment(w).levels = std::vector<std::string>(17, "l"); },
       kAssignment + "levels: Too many: 17: must have at most 16 items"},
      {"domain without values", [](W& w) { Assignment(w).domains[1].values.clear(); },
       kAssignment + "domains[1].values: Required value"},
      {"domain with 17 values",
       [](W& w) { Assignment(w).domains[0].values = std::vector<std::string>(17, "v"); },
       kAssignment + "domains[0].values: Too many: 17: must have at most 16 items"},
      {"domain with no pods", [](W& w) { Assignment(w).domains[0].count = 0; },
       kAssignment + "domains[0].count: Invalid value: 0: must be greater than or equal to 1"},
  };
  for (const Row& row : rows) {
    W wl = BaseWorkload();
    row.mutate(wl);
    for (const char* version : {"kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"}) {
      Status st = Validate(api::Object{version, "Workload", wl});
      if (row.want.empty()) {
        EXPECT_TRUE(st.ok()) << row.name << " (" << version << "): " << st.ToString();
      } else {
        EXPECT_EQ(st.code(), StatusCode::kInvalid) << row.name << " (" << version << ")";
        EXPECT_EQ(st.message(), row.want) << row.name << " (" << version << ")";
      }
    }
  }
}

}  // namespace
}  // namespace workload_topology_rules_test
}  // namespace kuota::validation
