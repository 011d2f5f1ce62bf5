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

// An admission check's podSetUpdate as Kueue writes it (empty maps left out).
Json PodSetUpdateToJson(const api::PodSetUpdate& u) {
  Json j = {{"name", u.name}};
  if (!u.labels.empty()) j["labels"] = u.labels;
  if (!u.annotations.empty()) j["annotations"] = u.annotations;
  if (!u.node_selector.empty()) j["nodeSelector"] = u.node_selector;
  if (!u.tolerations.empty()) {
    Json ts = Json::array();
    for (const auto& t : u.tolerations) {
      Json tj = Json::object();
      if (!t.key.empty()) tj["key"] = t.key;
      if (!t.op.empty()) tj["operator"] = t.op;
      if (!t.value.empty()) tj["value"] = t.value;
      if (!t.effect.empty()) tj["effect"] = t.effect;
      if (t.toleration_seconds) tj["tolerationSeconds"] = *t.toleration_seconds;
      ts.push_back(std::move(tj));
    }
    j["tolerations"] = std::move(ts);
  }
  return j;
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
      if (!c.pod_set_updates.empty()) {
        Json updates = Json::array();
        for (const auto& u : c.pod_set_updates) updates.push_back(PodSetUpdateToJson(u));
        j["podSetUpdates"] = std::move(updates);
      }
      if (c.retry_count) j["retryCount"] = *c.retry_count;
      if (c.requeue_after_seconds) j["requeueAfterSeconds"] = *c.requeue_after_seconds;
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
