#include "engine/quota_tree.h"

#include <algorithm>

#include "engine/workload_info.h"

namespace kuota::engine {

int ClusterQueueNode::GroupOf(std::string_view resource) const {
  auto it = group_of_.find(resource);
  return it == group_of_.end() ? -1 : it->second;
}

void ClusterQueueNode::AddAdmitted(WorkloadInfo* wl) { admitted_.push_back(wl); }

void ClusterQueueNode::RemoveAdmitted(WorkloadInfo* wl) {
  auto it = std::find(admitted_.begin(), admitted_.end(), wl);
  if (it != admitted_.end()) {
    *it = admitted_.back();
    admitted_.pop_back();
  }
}

ClusterQueueNode* QuotaTree::FindClusterQueue(const std::string& name) const {
  auto it = cqs_.find(name);
  return it == cqs_.end() ? nullptr : it->second.get();
}

CohortNode* QuotaTree::FindCohort(const std::string& name) const {
  auto it = cohorts_.find(name);
  return it == cohorts_.end() ? nullptr : it->second.get();
}

CohortNode* QuotaTree::EnsureCohort(const std::string& name) {
  auto& slot = cohorts_[name];
  if (!slot) slot = std::make_unique<CohortNode>(name);
  return slot.get();
}

void QuotaTree::SetQuotas(QuotaNode& node, const std::vector<api::ResourceGroup>& groups) {
  node.quota_.clear();
  node.has_quota_.clear();
  node.quota_frs_.clear();
  node.subtree_quota_.clear();
  node.usage_.clear();
  for (const auto& g : groups) {
    for (const auto& f : g.flavors) {
      for (const auto& r : f.resources) {
        FrId fr = frs_.Intern(f.name, r.name);
        size_t i = static_cast<size_t>(fr);
        if (node.quota_.size() <= i) {
          node.quota_.resize(i + 1);
          node.has_quota_.resize(i + 1, 0);
        }
        FrQuota q;
        q.nominal = r.nominal_quota.milli();
        if (r.borrowing_limit) q.borrowing_limit = r.borrowing_limit->milli();
        if (r.lending_limit) q.lending_limit = r.lending_limit->milli();
        node.quota_[i] = q;
        if (!node.has_quota_[i]) node.quota_frs_.push_back(fr);
        node.has_quota_[i] = 1;
        QuotaNode::Slot(node.subtree_quota_, fr) = q.nominal;
      }
    }
  }
  node.RefreshGuaranteed();
}

void QuotaTree::ResolveGroups(ClusterQueueNode& node,
                              const std::vector<api::ResourceGroup>& groups) {
  node.groups_.clear();
  node.group_of_.clear();
  for (const auto& g : groups) {
    ResourceGroupInfo info;
    info.covered = g.covered_resources;
    for (const auto& f : g.flavors) {
      FlavorInGroup fig;
      fig.name = f.name;
      for (const auto& res : g.covered_resources) fig.frs.push_back(frs_.Intern(f.name, res));
      info.flavors.push_back(std::move(fig));
    }
    int idx = static_cast<int>(node.groups_.size());
    for (const auto& res : g.covered_resources) node.group_of_.emplace(res, idx);
    node.groups_.push_back(std::move(info));
  }
  node.covers_pods_ = node.group_of_.count("pods") > 0;
}

void QuotaTree::ComputeSubtree(CohortNode* c) {
  int height = c->child_cqs_.empty() ? 0 : 1;
  for (CohortNode* child : c->child_cohorts_) {
    ComputeSubtree(child);
    height = std::max(height, child->height_ + 1);
  }
  c->height_ = height;
  auto add_child = [&](QuotaNode* child) {
    for (FrId fr = 0; fr < child->fr_capacity(); ++fr) {
      int64_t contrib = child->subtree_quota(fr) - child->guaranteed_quota(fr);
      if (contrib != 0) {
        int64_t& s = QuotaNode::Slot(c->subtree_quota_, fr);
        s = SatAdd(s, contrib);
      }
    }
  };
  for (CohortNode* child : c->child_cohorts_) add_child(child);
  for (ClusterQueueNode* child : c->child_cqs_) add_child(child);
  c->RefreshGuaranteed();
}

std::vector<std::string> QuotaTree::Rebuild(
    const Inputs& in, std::vector<std::unique_ptr<ClusterQueueNode>>* removed) {
  std::vector<std::string> removed_names;
  // Drop ClusterQueues that no longer exist.
  for (auto it = cqs_.begin(); it != cqs_.end();) {
    if (in.cluster_queues->count(it->first) == 0) {
      removed_names.push_back(it->first);
      if (removed) removed->push_back(std::move(it->second));
      it = cqs_.erase(it);
    } else {
      ++it;
    }
  }
  cohorts_.clear();
  // Declared cohorts first, then implicit ones.
  for (const auto& [name, spec] : *in.cohorts) {
    CohortNode* c = EnsureCohort(name);
    c->declared_ = true;
    c->fair_weight_ = spec.fair_sharing.weight;
    SetQuotas(*c, spec.resource_groups);
  }
  for (const auto& [name, spec] : *in.cohorts) {
    if (!spec.parent_name.empty()) EnsureCohort(spec.parent_name);
  }
  for (const auto& [name, spec] : *in.cluster_queues) {
    auto& slot = cqs_[name];
    if (!slot) slot = std::make_unique<ClusterQueueNode>(name);
    ClusterQueueNode& node = *slot;
    node.spec_ = spec.spec;
    {
      Result<MinimumRuntime> mr = ReadMinimumRuntime(spec.metadata, true);
      node.minimum_runtime_ = mr.ok() ? *mr : MinimumRuntime{};
      Result<BackfillPolicy> bf = ReadBackfillPolicy(spec.metadata);
      node.backfill_ = bf.ok() ? *bf : BackfillPolicy{};
      if (!node.backfill_.on) node.reservation_ = Reservation{};
    }
    node.parent_ = nullptr;
    SetQuotas(node, spec.spec.resource_groups);
    ResolveGroups(node, spec.spec.resource_groups);
    if (!spec.spec.cohort.empty()) EnsureCohort(spec.spec.cohort);
  }
  // Link cohort parents, detaching cycles.
  for (const auto& [name, spec] : *in.cohorts) {
    if (!spec.parent_name.empty()) cohorts_[name]->parent_ = cohorts_[spec.parent_name].get();
  }
  for (auto& [name, c] : cohorts_) {
    std::set<const CohortNode*> seen;
    const CohortNode* cur = c.get();
    while (cur != nullptr && seen.insert(cur).second) cur = cur->parent_;
    if (cur != nullptr) c->in_cycle_ = true;  // walking up from c reaches a loop
  }
  for (auto& [name, c] : cohorts_) {
    if (c->in_cycle_) c->parent_ = nullptr;
  }
  for (auto& [name, c] : cohorts_) {
    if (c->parent_ != nullptr) c->parent_->child_cohorts_.push_back(c.get());
  }
  for (auto& [name, node] : cqs_) {
    if (!node->spec_.cohort.empty()) {
      CohortNode* c = cohorts_[node->spec_.cohort].get();
      node->parent_ = c;
      c->child_cqs_.push_back(node.get());
    }
  }
  for (auto& [name, c] : cohorts_) {
    if (c->parent_ == nullptr) ComputeSubtree(c.get());
  }
  // Usage from the workloads that hold quota.
  for (auto& [name, node] : cqs_) {
    for (WorkloadInfo* wl : node->admitted_) {
      for (const auto& [fr, v] : wl->usage) node->AddUsage(fr, v);
    }
  }
  // Activity.
  for (auto& [name, node] : cqs_) {
    std::vector<std::string> parts;
    std::string reason;
    if (node->spec_.stop_policy != api::StopPolicy::kNone) {
      parts.push_back("is stopped");
      reason = "Stopped";
    }
    std::vector<std::string> missing_flavors;
    for (const auto& g : node->spec_.resource_groups) {
      for (const auto& f : g.flavors) {
        if (in.flavors->count(f.name) == 0) missing_flavors.push_back(f.name);
      }
    }
    if (!missing_flavors.empty()) {
      std::string list;
      for (const auto& f : missing_flavors) list += (list.empty() ? "" : ", ") + f;
      parts.push_back("references missing ResourceFlavor(s): " + list);
      if (reason.empty()) reason = "FlavorNotFound";
    }
    std::vector<std::string> checks = node->spec_.admission_checks;
    for (const auto& rule : node->spec_.admission_checks_strategy) checks.push_back(rule.name);
    std::string missing_checks;
    for (const auto& ch : checks) {
      if (in.admission_checks->count(ch) == 0) {
        missing_checks += (missing_checks.empty() ? "" : ", ") + ch;
      }
    }
    if (!missing_checks.empty()) {
      parts.push_back("references missing AdmissionCheck(s): " + missing_checks);
      if (reason.empty()) reason = "AdmissionCheckNotFound";
    }
    for (const CohortNode* c = node->parent_; c != nullptr; c = c->parent_) {
      if (c->in_cycle_) {
        parts.push_back("its cohort \"" + c->name() + "\" is in a cycle of parent cohorts");
        if (reason.empty()) reason = "CohortCycle";
        break;
      }
    }
    node->inactive_reason_ = reason;
    node->inactive_message_.clear();
    if (!parts.empty()) {
      std::string msg = "Can't admit new workloads: ";
      for (size_t i = 0; i < parts.size(); ++i) msg += (i ? ", " : "") + parts[i];
      node->inactive_message_ = msg + ".";
    }
  }
  return removed_names;
}

const QuotaNode* QuotaTree::Root(const QuotaNode* node) {
  while (node->parent() != nullptr) node = node->parent();
  return node;
}

int QuotaTree::BorrowingHeight(const ClusterQueueNode& cq, FrId fr, int64_t value,
                               bool* may_reclaim) {
  auto borrowing_with = [fr](const QuotaNode* n, int64_t v) {
    return SatAdd(n->usage(fr), v) > n->subtree_quota(fr);
  };
  auto local_available = [fr](const QuotaNode* n) {
    return std::max<int64_t>(0, n->guaranteed_quota(fr) - n->usage(fr));
  };
  if (!borrowing_with(&cq, value) || !cq.has_parent()) {
    if (may_reclaim) *may_reclaim = cq.has_parent();
    return 0;
  }
  int64_t rem = value - local_available(&cq);
  const CohortNode* a = cq.parent();
  const CohortNode* last = a;
  for (; a != nullptr; a = a->parent()) {
    last = a;
    if (!borrowing_with(a, rem)) {
      if (may_reclaim) *may_reclaim = a->has_parent();
      return a->height();
    }
    rem -= local_available(a);
  }
  if (may_reclaim) *may_reclaim = false;
  return last->height();
}

void QuotaTree::ForEachClusterQueue(const QuotaNode* node,
                                    const std::function<void(ClusterQueueNode*)>& fn) {
  if (node->is_cluster_queue()) {
    fn(const_cast<ClusterQueueNode*>(static_cast<const ClusterQueueNode*>(node)));
    return;
  }
  const auto* c = static_cast<const CohortNode*>(node);
  for (ClusterQueueNode* cq : c->child_cluster_queues()) fn(cq);
  for (CohortNode* child : c->child_cohorts()) ForEachClusterQueue(child, fn);
}

}  // namespace kuota::engine
