#include "engine/workload_info.h"

namespace kuota::engine {

const std::string& WorkloadInfo::pending_message() const {
  if (!pending_on_condition_) return pending_message_;
  static const std::string kNone;
  const api::Condition* c = api::FindCondition(object.status.conditions, api::kQuotaReserved);
  return c == nullptr ? kNone : c->message;
}

std::vector<PodSetInfo> BuildPodSets(const api::Workload& wl) {
  std::vector<PodSetInfo> out;
  out.reserve(wl.spec.pod_sets.size());
  for (const auto& ps : wl.spec.pod_sets) {
    PodSetInfo info;
    info.name = ps.name;
    info.count = ps.count;
    info.min_count = ps.min_count;
    info.spec = &ps.template_.spec;
    info.constrained =
        !info.spec->node_selector.empty() || (info.spec->node_affinity.required_terms &&
                                              !info.spec->node_affinity.required_terms->empty());
    for (const auto& [name, q] : api::PodRequests(ps.template_.spec)) {
      info.per_pod.emplace_back(name, q.milli());
    }
    out.push_back(std::move(info));
  }
  return out;
}

namespace {

// One field error per container whose requests exceed its limits, in the
// form apimachinery's field.Invalid prints a []corev1.ResourceName value.
void CheckContainers(const std::vector<api::Container>& containers, const std::string& path,
                     std::vector<std::string>& errs) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const api::ResourceRequirements& r = containers[i].resources;
    std::string names;
    for (const auto& [name, request] : r.requests) {  // sorted by name
      auto lim = r.limits.find(name);
      if (lim == r.limits.end() || request <= lim->second) continue;
      names += (names.empty() ? "" : ", ") + ("\"" + name + "\"");
    }
    if (names.empty()) continue;
    errs.push_back(path + "[" + std::to_string(i) + "]: Invalid value: []v1.ResourceName{" + names +
                   "}: requests must not exceed its limits");
  }
}

}  // namespace

std::string RequestsOverflow(const std::vector<PodSetInfo>& pod_sets) {
  constexpr int64_t kSat = api::Quantity::kSaturated;
  const std::string tail = " overflows the largest amount Kuota counts (" +
                           std::to_string(api::Quantity::kMaxMilli) + "m)";
  std::map<std::string, int64_t> total;
  for (const auto& ps : pod_sets) {
    for (const auto& [res, v] : ps.per_pod) {
      if (v >= kSat) return "the request for " + res + " of a pod in pod set " + ps.name + tail;
      const int64_t all = api::Quantity::Mul(v, ps.count);
      if (all >= kSat) {
        return "the request for " + res + " of pod set " + ps.name + " (" +
               std::to_string(ps.count) + " pods)" + tail;
      }
      int64_t& t = total[res];
      t = api::Quantity::Add(t, all);
      if (t >= kSat) return "the total request for " + res + " over the pod sets" + tail;
    }
  }
  return "";
}

std::string ValidateResources(const api::Workload& wl) {
  std::vector<std::string> errs;
  for (size_t i = 0; i < wl.spec.pod_sets.size(); ++i) {
    const api::PodSpec& spec = wl.spec.pod_sets[i].template_.spec;
    const std::string p = "spec.podSets[" + std::to_string(i) + "].template.spec.";
    CheckContainers(spec.init_containers, p + "initContainers", errs);
    CheckContainers(spec.containers, p + "containers", errs);
  }
  if (errs.empty()) return "";
  // An aggregate of several errors prints as "[e1, e2]", of one as "e1".
  std::string joined;
  for (const auto& e : errs) joined += (joined.empty() ? "" : ", ") + e;
  if (errs.size() > 1) joined = "[" + joined + "]";
  return "resources validation failed: " + joined;
}

}  // namespace kuota::engine
