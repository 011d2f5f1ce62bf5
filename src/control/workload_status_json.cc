#include "control/workload_status_json.h"

#include "api/conversion/kind_conversions.h"

namespace kuota::control {

using Json = nlohmann::json;

namespace {

// v1beta2's encoding (what the store keeps): the domains, one value per
// level and a pod count each, packed into slices as Kueue packs them.
Json ToJson(const api::TopologyAssignment& ta) {
  Json domains = Json::array();
  for (const auto& d : ta.domains) domains.push_back({{"values", d.values}, {"count", d.count}});
  Json out = {{"levels", ta.levels}, {"domains", std::move(domains)}};
  // Domains the engine made always convert; were one not to, the domain
  // list stays (the decoders read both).
  (void)conversion::TopologyAssignmentUp(out, "topologyAssignment");
  return out;
}

}  // namespace

Json ConditionToJson(const api::Condition& c) {
  Json j = {{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}};
  if (c.last_transition_time) j["lastTransitionTime"] = FormatRfc3339(*c.last_transition_time);
  if (c.observed_generation) j["observedGeneration"] = c.observed_generation;
  return j;
}

Json WorkloadStatusToJson(const api::WorkloadStatus& st) {
  Json out = Json::object();
  if (st.admission) {
    Json psas = Json::array();
    for (const auto& psa : st.admission->pod_set_assignments) {
      Json p = {{"name", psa.name}, {"flavors", psa.flavors}};
      Json usage = Json::object();
      for (const auto& [r, q] : psa.resource_usage) usage[r] = q.ToString(api::IsBinaryResource(r));
      p["resourceUsage"] = usage;
      if (psa.count) p["count"] = *psa.count;
      if (psa.topology_assignment) p["topologyAssignment"] = ToJson(*psa.topology_assignment);
      psas.push_back(std::move(p));
    }
    out["admission"] = {{"clusterQueue", st.admission->cluster_queue},
                        {"podSetAssignments", std::move(psas)}};
  }
  if (!st.conditions.empty()) {
    Json conds = Json::array();
    for (const auto& c : st.conditions) conds.push_back(ConditionToJson(c));
    out["conditions"] = std::move(conds);
  }
  if (!st.admission_checks.empty()) {
    Json checks = Json::array();
    for (const auto& c : st.admission_checks) {
      Json j = {{"name", c.name}, {"state", c.state}, {"message", c.message}};
      if (c.last_transition_time) j["lastTransitionTime"] = FormatRfc3339(*c.last_transition_time);
      checks.push_back(std::move(j));
    }
    out["admissionChecks"] = std::move(checks);
  }
  if (st.requeue_state) {
    Json rs = Json::object();
    if (st.requeue_state->count) rs["count"] = *st.requeue_state->count;
    if (st.requeue_state->requeue_at)
      rs["requeueAt"] = FormatRfc3339(*st.requeue_state->requeue_at);
    out["requeueState"] = std::move(rs);
  }
  return out;
}

}  // namespace kuota::control
