#include "control/workload_slices.h"

#include <algorithm>

namespace kuota::control {
namespace {

bool SamePodSets(const std::map<std::string, int32_t>& a, const std::map<std::string, int32_t>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, count] : a) {
    if (b.find(name) == b.end()) return false;
  }
  return true;
}

// Kueue's ScaledDown: some pod set shrinks and none grows.
bool ScaledDown(const std::map<std::string, int32_t>& from,
                const std::map<std::string, int32_t>& to) {
  bool fewer = false;
  for (const auto& [name, count] : to) {
    auto it = from.find(name);
    if (it == from.end()) continue;
    if (count > it->second) return false;
    fewer = fewer || count < it->second;
  }
  return fewer;
}

// What the job wants of `wl`.
SlicePlan Decide(const std::map<std::string, int32_t>& job_counts, const SliceState& wl) {
  SlicePlan plan;
  if (!SamePodSets(job_counts, wl.counts)) {
    plan.incompatible = true;
    plan.selected = wl.key;
    return plan;
  }
  plan.selected = wl.key;
  if (job_counts == wl.counts) return plan;
  if (!wl.holds_quota || ScaledDown(wl.counts, job_counts)) {
    plan.action = SlicePlan::Action::kUpdateCounts;
    return plan;
  }
  // A scale-up of an admitted slice: a new slice replaces it.
  plan.action = SlicePlan::Action::kCreate;
  plan.selected.clear();
  plan.replaces = wl.key;
  plan.origin = wl.slice_name.empty() ? wl.key.substr(wl.key.find('/') + 1) : wl.slice_name;
  return plan;
}

}  // namespace

void OrderSlices(std::vector<SliceState>& slices) {
  // A replacement found before the slice it replaces moves after it; at
  // most one move per slice (chains are short and acyclic).
  for (size_t i = 0; i < slices.size(); ++i) {
    for (size_t j = i + 1; j < slices.size(); ++j) {
      if (slices[i].replacement_for == slices[j].key) {
        SliceState moved = std::move(slices[i]);
        slices.erase(slices.begin() + static_cast<std::ptrdiff_t>(i));
        slices.insert(slices.begin() + static_cast<std::ptrdiff_t>(j), std::move(moved));
        --i;
        break;
      }
    }
  }
}

SlicePlan PlanWorkloadSlices(const std::map<std::string, int32_t>& job_counts,
                             const std::vector<SliceState>& slices) {
  if (slices.empty()) {
    SlicePlan plan;
    plan.action = SlicePlan::Action::kCreate;
    return plan;
  }
  if (slices.size() == 1) return Decide(job_counts, slices.front());

  // Kueue's normalizeActiveSlices: keep the admitted slice at the head of
  // the chain and at most one pending replacement of it; finish the rest.
  std::map<std::string, const SliceState*> replacement_of;  // replaced key -> replacement
  for (const SliceState& s : slices) {
    if (s.replacement_for.empty() || s.evicted) continue;
    auto [it, fresh] = replacement_of.emplace(s.replacement_for, &s);
    // Duplicates of a race: the one holding quota wins.
    if (!fresh && !it->second->holds_quota && s.holds_quota) it->second = &s;
  }
  const SliceState* admitted = nullptr;
  const SliceState* latest = nullptr;
  for (const SliceState& s : slices) {
    if (s.evicted) continue;
    latest = &s;
    if (!s.holds_quota) continue;
    auto r = replacement_of.find(s.key);
    if (r != replacement_of.end() && r->second->holds_quota) continue;  // replaced already
    admitted = &s;
  }
  const SliceState* pending = nullptr;
  if (admitted != nullptr) {
    auto r = replacement_of.find(admitted->key);
    if (r != replacement_of.end() && !r->second->holds_quota) pending = r->second;
  }
  const SliceState* selected = pending != nullptr    ? pending
                               : admitted != nullptr ? admitted
                                                     : latest;
  SlicePlan plan;
  for (const SliceState& s : slices) {
    if (&s == selected || &s == admitted) continue;
    plan.finish.emplace_back(
        s.key, replacement_of.count(s.key) != 0 ? "WorkloadSliceReplaced" : "OutOfSync");
  }
  if (selected == nullptr) {
    plan.action = SlicePlan::Action::kCreate;
    return plan;
  }
  SlicePlan decided = Decide(job_counts, *selected);
  decided.finish = std::move(plan.finish);
  return decided;
}

}  // namespace kuota::control
