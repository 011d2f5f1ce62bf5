#include "control/topology_ungating.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "server/json_fields.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;
using Labels = std::map<std::string, std::string>;

// The topology annotations that make a pod Kueue's "TAS pod".
constexpr const char* kTopologyPodAnnotations[] = {
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
    "kueue.x-k8s.io/podset-slice-required-topology-constraints",
    kUnconstrainedTopologyAnnotation,
};

Labels TasStringMap(const Json* object) {
  Labels out;
  if (object == nullptr || !object->is_object()) return out;
  for (const auto& [k, v] : object->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

// A domain's id: its values joined (Kueue's DomainID).
std::string DomainKey(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += values[i];
  }
  return out;
}

// The pod's domain by its nodeSelector (Kueue's LevelValues + DomainID).
std::string PodDomainKey(const std::vector<std::string>& levels, const TopologyPod& pod) {
  std::vector<std::string> values;
  for (const auto& level : levels) {
    auto it = pod.node_selector.find(level);
    values.push_back(it == pod.node_selector.end() ? "" : it->second);
  }
  return DomainKey(values);
}

// Kueue's ReadUIntFromLabelBelowBound: the label's unsigned value below
// `bound`, or nullopt (missing, not a number, too large).
std::optional<int64_t> LabelIndexBelow(const TopologyPod& pod, const std::string& label,
                                       int64_t bound) {
  auto it = pod.labels.find(label);
  if (it == pod.labels.end() || it->second.empty() || it->second.size() > 18) return std::nullopt;
  if (it->second.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int64_t v = std::stoll(it->second);
  if (v >= bound) return std::nullopt;
  return v;
}

// Each rank's domain (an index into the assignment's domains), in the
// assignment's order: the first domain's count of ranks, then the next's.
std::vector<size_t> RankToDomain(const api::TopologyAssignment& ta) {
  std::vector<size_t> out;
  for (size_t d = 0; d < ta.domains.size(); ++d) {
    for (int32_t i = 0; i < ta.domains[d].count; ++i) out.push_back(d);
  }
  return out;
}

// Kueue's readRanksForLabels: rank -> pod, or nullopt when some pod has no
// usable rank (then the pods are placed greedily).
std::optional<std::map<int64_t, const TopologyPod*>> ReadRanks(
    int32_t pod_set_count, const api::PodSetTopologyRequest& req,
    const std::vector<const TopologyPod*>& pods, int64_t offset, int64_t max_rank) {
  std::map<int64_t, const TopologyPod*> result;
  int64_t single_job_size = pod_set_count;
  if (req.sub_group_index_label) {
    if (!req.sub_group_count || *req.sub_group_count <= 0) return std::nullopt;
    single_job_size = pod_set_count / *req.sub_group_count;
  }
  for (const TopologyPod* pod : pods) {
    std::optional<int64_t> index = LabelIndexBelow(*pod, *req.pod_index_label, max_rank);
    if (!index) return std::nullopt;
    int64_t rank = *index - offset;
    if (req.sub_group_index_label) {
      std::optional<int64_t> job =
          LabelIndexBelow(*pod, *req.sub_group_index_label, *req.sub_group_count);
      if (!job || *index >= single_job_size) return std::nullopt;
      rank = *index + *job * single_job_size - offset;
    }
    if (rank >= pod_set_count || rank < 0) return std::nullopt;
    if (!result.emplace(rank, pod).second) return std::nullopt;  // repeated rank
  }
  return result;
}

struct PodDomain {
  const TopologyPod* pod;
  size_t domain;
};

// Kueue's assignGatedPodsToDomainsGreedy: pods already ungated count against
// the domain their nodeSelector names; the gated ones, in order, fill what
// each domain has left.
std::vector<PodDomain> AssignGreedy(const api::TopologyAssignment& ta,
                                    const std::vector<const TopologyPod*>& pods) {
  std::vector<const TopologyPod*> gated;
  std::map<std::string, int32_t> ungated_in;
  for (const TopologyPod* pod : pods) {
    if (pod->gated) {
      gated.push_back(pod);
    } else {
      ++ungated_in[PodDomainKey(ta.levels, *pod)];
    }
  }
  std::vector<PodDomain> out;
  for (size_t d = 0; d < ta.domains.size() && out.size() < gated.size(); ++d) {
    const int32_t already = ungated_in[DomainKey(ta.domains[d].values)];
    const int64_t want = std::max<int64_t>(ta.domains[d].count - already, 0);
    const int64_t n = std::min<int64_t>(want, static_cast<int64_t>(gated.size() - out.size()));
    for (int64_t i = 0; i < n; ++i) out.push_back({gated[out.size()], d});
  }
  return out;
}

// Kueue's assignGatedPodsToDomains for one pod set: by rank when every pod
// has a distinct usable one (and no ungated pod sits outside its rank's
// domain), else greedily.
std::vector<PodDomain> AssignPodSet(const api::TopologyAssignment& ta, int32_t pod_set_count,
                                    const api::PodSetTopologyRequest* req,
                                    const std::vector<const TopologyPod*>& pods, int64_t offset,
                                    int64_t max_rank) {
  const std::vector<size_t> rank_to_domain = RankToDomain(ta);
  if (req != nullptr && req->pod_index_label) {
    auto ranks = ReadRanks(pod_set_count, *req, pods, offset, max_rank);
    bool usable = ranks.has_value();
    if (usable) {
      for (const auto& [rank, pod] : *ranks) {
        if (static_cast<size_t>(rank) >= rank_to_domain.size()) {
          usable = false;  // the assignment covers fewer pods than this rank
          break;
        }
        if (pod->gated) continue;
        const auto& values = ta.domains[rank_to_domain[static_cast<size_t>(rank)]].values;
        if (PodDomainKey(ta.levels, *pod) != DomainKey(values)) {
          usable = false;  // a running pod is not where its rank says
          break;
        }
      }
    }
    if (usable) {
      std::vector<PodDomain> out;
      for (const auto& [rank, pod] : *ranks) {
        if (pod->gated) out.push_back({pod, rank_to_domain[static_cast<size_t>(rank)]});
      }
      return out;
    }
  }
  return AssignGreedy(ta, pods);
}

const api::PodSet* FindSpecPodSet(const api::Workload& wl, const std::string& name) {
  for (const auto& ps : wl.spec.pod_sets) {
    if (ps.name == name) return &ps;
  }
  return nullptr;
}

int32_t AssignedCountOf(const api::Workload& wl, const api::PodSetAssignment& psa) {
  if (psa.count) return *psa.count;
  const api::PodSet* ps = FindSpecPodSet(wl, psa.name);
  return ps != nullptr ? ps->count : 0;
}

}  // namespace

bool IsTopologyPod(const Json& pod) {
  const Json* annotations = server::FindField(pod, {"metadata", "annotations"});
  if (annotations == nullptr || !annotations->is_object()) return false;
  for (const char* a : kTopologyPodAnnotations) {
    if (annotations->contains(a)) return true;
  }
  return false;
}

std::optional<TopologyPod> ReadTopologyPod(const Json& pod) {
  const Labels annotations = TasStringMap(server::FindField(pod, {"metadata", "annotations"}));
  auto wl = annotations.find(kWorkloadAnnotation);
  if (wl == annotations.end()) return std::nullopt;
  TopologyPod p;
  p.ns = server::StringField(pod, {"metadata", "namespace"});
  p.name = server::StringField(pod, {"metadata", "name"});
  p.workload = wl->second;
  p.labels = TasStringMap(server::FindField(pod, {"metadata", "labels"}));
  if (auto it = p.labels.find(kPodSetLabel); it != p.labels.end()) p.pod_set = it->second;
  if (auto it = annotations.find(kPodIndexOffsetAnnotation); it != annotations.end()) {
    p.index_offset = it->second;
  }
  p.node_selector = TasStringMap(server::FindField(pod, {"spec", "nodeSelector"}));
  if (const Json* gates = server::FindField(pod, {"spec", "schedulingGates"});
      gates != nullptr && gates->is_array()) {
    for (const Json& g : *gates) {
      if (g.is_object() && g.value("name", "") == kTopologySchedulingGate) p.gated = true;
    }
  }
  const std::string phase = server::StringField(pod, {"status", "phase"});
  p.terminal = phase == "Succeeded" || phase == "Failed";
  p.creation = server::StringField(pod, {"metadata", "creationTimestamp"});
  return p;
}

Result<std::vector<TopologyUngate>> PlanTopologyUngates(const api::Workload& wl,
                                                        const std::vector<TopologyPod>& pods) {
  std::vector<TopologyUngate> out;
  if (!wl.status.admission) return out;
  const auto& assignments = wl.status.admission->pod_set_assignments;

  // Rank offsets: pod sets of one podSetGroupName (a leader and its
  // workers) are ranked as one, the smaller set first.
  std::map<std::string, std::vector<const api::PodSetAssignment*>> groups;
  for (size_t i = 0; i < assignments.size(); ++i) {
    std::string group = std::to_string(i);
    const api::PodSet* ps = FindSpecPodSet(wl, assignments[i].name);
    if (ps != nullptr && ps->topology_request && ps->topology_request->pod_set_group_name) {
      group = "group:" + *ps->topology_request->pod_set_group_name;
    }
    groups[group].push_back(&assignments[i]);
  }
  std::map<std::string, int64_t> rank_offset, max_rank;
  for (const auto& [group, psas] : groups) {
    if (psas.size() > 1) {
      const api::PodSetAssignment* smaller = psas[0];
      const api::PodSetAssignment* larger = psas[1];
      if (AssignedCountOf(wl, *smaller) > AssignedCountOf(wl, *larger)) std::swap(smaller, larger);
      rank_offset[smaller->name] = 0;
      rank_offset[larger->name] = AssignedCountOf(wl, *smaller);
      max_rank[smaller->name] = AssignedCountOf(wl, *smaller);
      max_rank[larger->name] = AssignedCountOf(wl, *larger) + AssignedCountOf(wl, *smaller);
    } else {
      rank_offset[psas[0]->name] = 0;
      max_rank[psas[0]->name] = AssignedCountOf(wl, *psas[0]);
    }
  }

  for (const auto& psa : assignments) {
    if (!psa.topology_assignment) continue;
    const api::TopologyAssignment& ta = *psa.topology_assignment;
    // The pod set's live pods, oldest first.
    std::vector<const TopologyPod*> set_pods;
    for (const TopologyPod& p : pods) {
      if (p.workload == wl.metadata.name && p.pod_set == psa.name && !p.terminal) {
        set_pods.push_back(&p);
      }
    }
    std::sort(set_pods.begin(), set_pods.end(), [](const TopologyPod* a, const TopologyPod* b) {
      return a->creation != b->creation ? a->creation < b->creation : a->name < b->name;
    });
    int64_t offset = rank_offset[psa.name], bound = max_rank[psa.name];
    if (!set_pods.empty() && set_pods.front()->index_offset) {
      const std::string& text = *set_pods.front()->index_offset;
      const bool digits =
          !text.empty() && text.size() <= 9 &&
          text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
          text != "-";
      if (!digits) {
        return Status::Invalid("pod " + set_pods.front()->name + ": annotation " +
                               kPodIndexOffsetAnnotation + ": \"" + text + "\" is not an integer");
      }
      offset += std::stoll(text);
      bound += std::stoll(text);
    }
    const api::PodSet* ps = FindSpecPodSet(wl, psa.name);
    const api::PodSetTopologyRequest* req =
        ps != nullptr && ps->topology_request ? &*ps->topology_request : nullptr;
    for (const PodDomain& pd :
         AssignPodSet(ta, AssignedCountOf(wl, psa), req, set_pods, offset, bound)) {
      TopologyUngate u;
      u.name = pd.pod->name;
      const auto& values = ta.domains[pd.domain].values;
      for (size_t l = 0; l < ta.levels.size() && l < values.size(); ++l) {
        u.node_selector[ta.levels[l]] = values[l];
      }
      out.push_back(std::move(u));
    }
  }
  return out;
}

}  // namespace kuota::control
