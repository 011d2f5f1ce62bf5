#include "engine/flavor_assigner.h"

#include "engine/quota_tree.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace kuota::engine {
namespace {

// Room for a FitsQuota reason with long flavor and resource names (one
// allocation instead of the doublings of appending to an empty string).
constexpr size_t kReasonCapacity = 160;

std::string FormatAmount(const std::string& resource, int64_t milli) {
  if (resource == "pods") return std::to_string(milli / 1000);
  return api::Quantity::FromMilli(milli).ToString(api::IsBinaryResource(resource));
}

bool MatchRequirement(const api::NodeSelectorRequirement& r, const api::Labels& labels) {
  auto it = labels.find(r.key);
  bool has = it != labels.end();
  if (r.op == "In") {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  }
  if (r.op == "NotIn") {
    return !has || std::find(r.values.begin(), r.values.end(), it->second) == r.values.end();
  }
  if (r.op == "Exists") return has;
  if (r.op == "DoesNotExist") return !has;
  if (r.op == "Gt" || r.op == "Lt") {
    if (!has || r.values.size() != 1) return false;
    char* end = nullptr;
    long long lv = std::strtoll(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0') return false;
    long long rv = std::strtoll(r.values[0].c_str(), &end, 10);
    if (end == r.values[0].c_str() || *end != '\0') return false;
    return r.op == "Gt" ? lv > rv : lv < rv;
  }
  return false;
}

std::string TaintText(const api::Taint& t) {
  std::string s = t.key;
  if (!t.value.empty()) s += "=" + t.value;
  return s + ":" + t.effect;
}

struct Rep {
  FitMode mode = FitMode::kFit;
  int borrow = 0;
};

bool IsPreferred(const Rep& a, const std::optional<Rep>& b, api::FungibilityPreference pref) {
  if (a.mode == FitMode::kNoFit) return false;
  if (!b || b->mode == FitMode::kNoFit) return true;
  if (a.mode == FitMode::kNoCandidates) return false;
  if (b->mode == FitMode::kNoCandidates) return true;
  if (pref == api::FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrow != b->borrow) return a.borrow < b->borrow;
    return a.mode > b->mode;
  }
  if (a.mode != b->mode) return a.mode > b->mode;
  return a.borrow < b->borrow;
}

// Starts `*reason` as "insufficient <what> for <resource> in flavor <flavor>"
// and returns it for the rest. Appended piece by piece into one string (no
// temporaries), sized for the usual message up front so it is allocated once.
std::string& StartInsufficientReason(std::string* reason, const char* what,
                                     const FlavorResourceName& name) {
  std::string& r = *reason;
  r.clear();
  r.reserve(kReasonCapacity);
  r += "insufficient ";
  r += what;
  r += " for ";
  r += name.resource;
  r += " in flavor ";
  r += name.flavor;
  return r;
}

}  // namespace

bool MatchesNodeAffinity(const api::PodSpec& spec, const std::set<std::string>& keys,
                         const api::Labels& labels) {
  for (const auto& [k, v] : spec.node_selector) {
    if (keys.count(k) == 0) continue;
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  if (!spec.node_affinity.required_terms || spec.node_affinity.required_terms->empty()) {
    return true;
  }
  // Filter each term to `keys`; a term emptied that way
  // matches everything, and terms are ORed.
  bool any_match = false;
  for (const auto& term : *spec.node_affinity.required_terms) {
    bool empty = true;
    bool match = true;
    for (const auto& req : term.match_expressions) {
      if (keys.count(req.key) == 0) continue;
      empty = false;
      if (!MatchRequirement(req, labels)) match = false;
    }
    if (empty) return true;
    if (match) any_match = true;
  }
  return any_match;
}

bool FlavorAssigner::FlavorSuits(const api::ResourceFlavor& flavor, const PodSetInfo& ps,
                                 std::string* reason) const {
  const api::PodSpec& spec = *ps.spec;  // read only where a taint or constraint asks
  for (const auto& taint : flavor.node_taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const auto& t : spec.tolerations) tolerated = tolerated || t.Tolerates(taint);
    for (const auto& t : flavor.tolerations) tolerated = tolerated || t.Tolerates(taint);
    if (!tolerated) {
      *reason = "untolerated taint " + TaintText(taint) + " in flavor " + flavor.metadata.name;
      return false;
    }
  }
  // A pod without nodeSelector or required node affinity suits any flavor's
  // labels (the common case; no key set is built for it).
  if (!ps.constrained) return true;
  // Only the flavor's own label keys count: a constraint on a key the flavor
  // does not declare says nothing about it (so a label-less flavor matches
  // any pod), as in Kueue since v0.17.x / v0.18.x (kueue#12449).
  std::set<std::string> keys;
  for (const auto& [k, v] : flavor.node_labels) keys.insert(k);
  if (!MatchesNodeAffinity(spec, keys, flavor.node_labels)) {
    *reason = "flavor " + flavor.metadata.name + " doesn't match node affinity";
    return false;
  }
  return true;
}

FitMode FlavorAssigner::FitsQuota(const ClusterQueueNode& cq, const WorkloadInfo& wl, FrId fr,
                                  int64_t assumed, int64_t request, int* borrow,
                                  std::string* reason) const {
  const auto& name = frs_.Name(fr);
  const int64_t value = SatAdd(assumed, request);
  *borrow = 0;
  const int64_t max_capacity = cq.PotentialAvailable(fr);
  if (value > max_capacity) {
    std::string& r = StartInsufficientReason(reason, "quota", name);
    if (assumed > 0) {
      r += ", previously considered podsets requests (";
      r += FormatAmount(name.resource, assumed);
      r += ") + current podset request (";
      r += FormatAmount(name.resource, request);
      r += ") > maximum capacity (";
      r += FormatAmount(name.resource, max_capacity);
      r += ")";
    } else {
      r += ", request > maximum capacity (";
      r += FormatAmount(name.resource, value);
      r += " > ";
      r += FormatAmount(name.resource, max_capacity);
      r += ")";
    }
    return FitMode::kNoFit;
  }
  bool may_reclaim = false;
  *borrow = QuotaTree::BorrowingHeight(cq, fr, value, &may_reclaim);
  const int64_t available = std::max<int64_t>(0, cq.Available(fr));
  if (value <= available) return FitMode::kFit;
  {
    std::string& r = StartInsufficientReason(reason, "unused quota", name);
    r += ", ";
    r += FormatAmount(name.resource, value - available);
    r += " more needed";
  }
  const auto& p = cq.spec().preemption;
  const bool can_preempt_while_borrowing =
      p.borrow_within_cohort.policy != api::BorrowWithinCohortPolicy::kNever ||
      (fair_sharing_.enable && p.reclaim_within_cohort != api::ReclaimWithinCohortPolicy::kNever);
  if (cq.quota(fr).nominal >= value || may_reclaim || can_preempt_while_borrowing) {
    if (oracle_ == nullptr) return FitMode::kNoCandidates;
    int after = *borrow;
    FitMode m = oracle_->SimulatePreemption(cq, wl, fr, value, &after);
    *borrow = after;
    return m;
  }
  return FitMode::kNoFit;
}

Assignment FlavorAssigner::Assign(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                  const std::vector<int32_t>& counts,
                                  const WorkloadInfo* replaced) const {
  Assignment out;
  // Usage per FrId by earlier pod sets of this workload (a handful of FrIds:
  // a vector searched linearly; sorted by FrId at the end).
  std::vector<std::pair<FrId, int64_t>>& used = used_;
  used.clear();
  auto used_of = [&used](FrId fr) -> int64_t {
    for (const auto& [f, v] : used) {
      if (f == fr) return v;
    }
    return 0;
  };
  Mode worst = Mode::kFit;
  const auto pref = cq.spec().flavor_fungibility.preference;
  const bool try_next_on_borrow =
      cq.spec().flavor_fungibility.when_can_borrow == api::FungibilityAction::kTryNextFlavor;
  const bool try_next_on_preempt =
      cq.spec().flavor_fungibility.when_can_preempt == api::FungibilityAction::kTryNextFlavor;

  for (size_t i = 0; i < wl.pod_sets.size(); ++i) {
    const PodSetInfo& ps = wl.pod_sets[i];
    PodSetAssignmentResult psa;
    psa.name = ps.name;
    psa.count = counts.empty() ? ps.count : counts[i];
    // The replaced slice's pod set of the same name: its flavors bind this
    // one, and its usage is already counted.
    const PodSetAdmission* old_ps = nullptr;
    if (replaced != nullptr) {
      for (const PodSetAdmission& a : replaced->admission) {
        if (a.name == ps.name) old_ps = &a;
      }
    }
    auto old_usage = [old_ps](std::string_view res) -> int64_t {
      if (old_ps == nullptr) return 0;
      for (const auto& [r, v] : old_ps->usage) {
        if (r == res) return v;
      }
      return 0;
    };
    // The pod set's requests by resource name (per_pod is sorted by name),
    // "pods" added where the ClusterQueue covers it.
    auto& reqs = reqs_;
    reqs.clear();
    for (const auto& [res, v] : ps.per_pod)
      reqs.emplace_back(res, api::Quantity::Mul(v, psa.count));
    if (cq.covers_pods()) {
      const int64_t pods = api::Quantity::Mul(1000, psa.count);
      auto at = std::lower_bound(reqs.begin(), reqs.end(), std::string_view("pods"),
                                 [](const auto& e, std::string_view n) { return e.first < n; });
      if (at != reqs.end() && at->first == "pods") {
        at->second = pods;
      } else {
        reqs.emplace(at, "pods", pods);
      }
    }
    auto find_req = [&reqs](std::string_view res) {
      auto at = std::lower_bound(reqs.begin(), reqs.end(), res,
                                 [](const auto& e, std::string_view n) { return e.first < n; });
      return at != reqs.end() && at->first == res ? at : reqs.end();
    };
    // Resources already assigned in this pod set (by an earlier group).
    auto assigned = [&psa](std::string_view res) {
      return psa.flavors.find(res) != psa.flavors.end();
    };

    for (size_t q = 0; q < reqs.size(); ++q) {
      const std::string_view res = reqs[q].first;
      const int64_t value = reqs[q].second;
      if (assigned(res)) continue;
      int gi = cq.GroupOf(res);
      if (gi < 0) {
        if (value == 0) continue;
        psa.reasons.push_back("resource " + std::string(res) + " unavailable in ClusterQueue");
        psa.failed = true;
        break;
      }
      const ResourceGroupInfo& group = cq.resource_groups()[static_cast<size_t>(gi)];
      // The group's requested resources, in covered order.
      auto& group_reqs = group_reqs_;
      group_reqs.clear();
      for (size_t r = 0; r < group.covered.size(); ++r) {
        auto it = find_req(group.covered[r]);
        if (it != reqs.end()) group_reqs.emplace_back(r, it->second);
      }
      // Reasons of this group go straight onto the pod set's list; they are
      // taken back when the chosen flavor fits.
      const size_t reasons_before = psa.reasons.size();
      // At most one reason per flavor and requested resource: one allocation.
      psa.reasons.reserve(reasons_before +
                          group.flavors.size() * std::max<size_t>(1, group_reqs.size()));
      std::optional<Rep> best;
      size_t best_flavor = 0;
      auto& best_assign = best_assign_;
      auto& assign = assign_;
      best_assign.clear();
      for (size_t f = 0; f < group.flavors.size(); ++f) {
        const auto& fig = group.flavors[f];
        auto fit = flavors_.find(fig.name);
        if (fit == flavors_.end()) {
          psa.reasons.push_back("flavor " + fig.name + " not found");
          continue;
        }
        std::string why;
        if (!FlavorSuits(fit->second, ps, &why)) {
          psa.reasons.push_back(std::move(why));
          continue;
        }
        if (topology_ != nullptr && topology_->active() && i < wl.object.spec.pod_sets.size()) {
          why = topology_->FlavorMismatch(cq, wl.object.spec.pod_sets[i], ps, fit->second,
                                          group.covered);
          if (!why.empty()) {
            psa.reasons.push_back(std::move(why));
            continue;
          }
        }
        if (old_ps != nullptr) {
          // Kueue: a replacement slice keeps the flavors of the slice it replaces.
          std::string held;
          for (const auto& [r, v] : group_reqs) {
            auto at = old_ps->flavors.find(group.covered[r]);
            if (at != old_ps->flavors.end() && at->second != fig.name) held = at->second;
          }
          if (!held.empty()) {
            psa.reasons.push_back("could not assign " + fig.name +
                                  " flavor since the original workload is assigned: " + held);
            continue;
          }
        }
        Rep rep;
        assign.clear();
        for (const auto& [r, v] : group_reqs) {
          FrId fr = fig.frs[r];
          int borrow = 0;
          std::string& reason = psa.reasons.emplace_back();
          const int64_t ask = std::max<int64_t>(0, v - old_usage(group.covered[r]));
          FitMode m = FitsQuota(cq, wl, fr, used_of(fr), ask, &borrow, &reason);
          if (reason.empty()) psa.reasons.pop_back();
          rep.mode = std::min(rep.mode, m);
          rep.borrow = std::max(rep.borrow, borrow);
          assign.push_back({r, fr, m, borrow, v});
        }
        bool try_next = rep.mode == FitMode::kNoFit || rep.mode == FitMode::kNoCandidates ||
                        ((rep.mode == FitMode::kPreempt || rep.mode == FitMode::kReclaim) &&
                         try_next_on_preempt) ||
                        (rep.borrow > 0 && try_next_on_borrow);
        if (!try_next) {
          best = rep;
          best_flavor = f;
          best_assign.swap(assign);
          break;
        }
        if (IsPreferred(rep, best, pref)) {
          best = rep;
          best_flavor = f;
          best_assign.swap(assign);
        }
      }
      if (!best || best->mode == FitMode::kNoFit) {
        psa.failed = true;
        break;
      }
      if (best->mode == FitMode::kFit) psa.reasons.resize(reasons_before);
      // Every requested resource of the group takes the chosen flavor.
      const std::string& flavor_name = group.flavors[best_flavor].name;
      for (const auto& c : best_assign) {
        psa.flavors.insert_or_assign(
            group.covered[c.covered],
            ResourceAssignment{flavor_name, c.fr, c.mode, c.borrow, c.value});
      }
    }
    Mode ps_mode = Mode::kFit;
    if (psa.failed) {
      ps_mode = Mode::kNoFit;
    } else {
      for (const auto& [r, ra] : psa.flavors) {
        ps_mode = std::min(ps_mode, CoarseMode(ra.mode));
        out.borrowing = std::max(out.borrowing, ra.borrow);
        auto it = std::find_if(used.begin(), used.end(),
                               [fr = ra.fr](const auto& u) { return u.first == fr; });
        if (it == used.end()) it = used.insert(used.end(), {ra.fr, 0});
        it->second = SatAdd(it->second, std::max<int64_t>(0, ra.value - old_usage(r)));
      }
    }
    worst = std::min(worst, ps_mode);
    out.pod_sets.push_back(std::move(psa));
    if (ps_mode == Mode::kNoFit) break;  // later pod sets are not evaluated
  }
  out.mode = worst;
  std::sort(used.begin(), used.end());
  out.usage.assign(used.begin(), used.end());
  if (topology_ != nullptr && topology_->active() && out.mode != Mode::kNoFit &&
      topology_->AnyRequested(wl, cq)) {
    AssignTopology(wl, cq, out);
  }
  return out;
}

void FlavorAssigner::AssignTopology(const WorkloadInfo& wl, const ClusterQueueNode& cq,
                                    Assignment& out) const {
  auto recompute_mode = [&out] {
    Mode m = Mode::kFit;
    for (const auto& p : out.pod_sets) {
      if (p.failed) {
        m = Mode::kNoFit;
        continue;
      }
      for (const auto& [r, ra] : p.flavors) m = std::min(m, CoarseMode(ra.mode));
    }
    out.mode = m;
  };
  auto mark_preempt = [](PodSetAssignmentResult& p) {
    ResourceAssignments marked;
    for (const auto& [r, ra] : p.flavors) {
      ResourceAssignment x = ra;
      if (x.mode == FitMode::kFit) x.mode = FitMode::kPreempt;
      marked.insert_or_assign(r, x);
    }
    p.flavors = std::move(marked);
  };
  if (out.mode == Mode::kFit) {
    if (auto failure = topology_->Place(wl, cq, out, /*simulate_empty=*/false)) {
      PodSetAssignmentResult& p = out.pod_sets[failure->pod_set];
      p.reasons.push_back(std::move(failure->reason));
      mark_preempt(p);
      recompute_mode();
    }
  }
  if (out.mode != Mode::kPreempt) return;
  std::optional<TopologyAssigner::Failure> failure =
      topology_->Place(wl, cq, out, /*simulate_empty=*/true);
  for (size_t i = 0; i < out.pod_sets.size(); ++i) {
    PodSetAssignmentResult& p = out.pod_sets[i];
    const bool placed = p.topology.has_value();
    p.topology.reset();
    if (failure) {
      if (i == failure->pod_set) {
        p.reasons.push_back(failure->reason);
        p.failed = true;
      }
    } else if (placed) {
      mark_preempt(p);
    }
  }
  recompute_mode();
}

}  // namespace kuota::engine
