#include "engine/workload_info.h"

namespace kuota::engine {

std::vector<PodSetInfo> BuildPodSets(const api::Workload& wl) {
  std::vector<PodSetInfo> out;
  out.reserve(wl.spec.pod_sets.size());
  for (const auto& ps : wl.spec.pod_sets) {
    PodSetInfo info;
    info.name = ps.name;
    info.count = ps.count;
    info.min_count = ps.min_count;
    info.spec = &ps.template_.spec;
    for (const auto& [name, q] : api::PodRequests(ps.template_.spec)) {
      info.per_pod.emplace_back(name, q.milli());
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace kuota::engine
