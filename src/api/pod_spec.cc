#include "api/pod_spec.h"

#include <algorithm>

namespace kuota::api {

bool Toleration::Tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (key.empty()) return op == "Exists";  // empty key + Exists tolerates everything
  if (key != taint.key) return false;
  if (op == "Exists") return true;
  return value == taint.value;  // Equal (the default)
}

namespace {

ResourceList EffectiveRequests(const Container& c) {
  ResourceList out = c.resources.requests;
  for (const auto& [name, q] : c.resources.limits) out.emplace(name, q);  // no-op if present
  return out;
}

void AddTo(ResourceList& acc, const ResourceList& add) {
  for (const auto& [name, q] : add) acc[name] += q;
}

void MaxInto(ResourceList& acc, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto [it, inserted] = acc.emplace(name, q);
    if (!inserted && it->second < q) it->second = q;
  }
}

}  // namespace

ResourceList PodRequests(const PodSpec& spec) {
  ResourceList total;
  for (const auto& c : spec.containers) AddTo(total, EffectiveRequests(c));
  // Sidecars (init containers with restartPolicy Always) run beside the main
  // containers; a plain init container runs alone after the sidecars before it.
  ResourceList sidecars;
  ResourceList init_peak;
  for (const auto& c : spec.init_containers) {
    ResourceList req = EffectiveRequests(c);
    if (c.restart_policy == "Always") {
      AddTo(sidecars, req);
      MaxInto(init_peak, sidecars);
    } else {
      ResourceList running = sidecars;
      AddTo(running, req);
      MaxInto(init_peak, running);
    }
  }
  AddTo(total, sidecars);
  MaxInto(total, init_peak);
  AddTo(total, spec.overhead);
  return total;
}

}  // namespace kuota::api
