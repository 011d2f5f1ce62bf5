#include "runtime/gpu_allocator.h"

#include <algorithm>

namespace kuota::runtime {
namespace {

std::string JoinIndices(const std::vector<int>& indices) {
  std::string out;
  for (int i : indices) {
    if (!out.empty()) out += ',';
    out += std::to_string(i);
  }
  return out;
}

}  // namespace

GpuAllocator::GpuAllocator(std::vector<int> indices)
    : GpuAllocator(GpuTopology::Flat(std::move(indices))) {}

GpuAllocator::GpuAllocator(GpuTopology topology)
    : placer_(std::move(topology)),
      all_(placer_.topology().indices.begin(), placer_.topology().indices.end()) {}

Result<std::vector<int>> GpuAllocator::Allocate(const std::string& owner, int n) {
  if (owner.empty()) return Status::Invalid("GPU allocation: owner is empty");
  KUOTA_ASSIGN_OR_RETURN(std::vector<GpuGrant> grants, AllocateGang({GpuRequest{owner, n}}));
  if (grants.empty()) return std::vector<int>{};
  return grants.front().indices;
}

Result<std::vector<GpuGrant>> GpuAllocator::AllocateGang(const std::vector<GpuRequest>& requests) {
  std::set<std::string> owners;
  std::string names;
  for (const auto& r : requests) {
    if (r.owner.empty()) return Status::Invalid("GPU allocation: owner is empty");
    if (!owners.insert(r.owner).second) {
      return Status::Invalid("GPU allocation: owner " + r.owner + " is listed twice");
    }
    if (r.count < 0) {
      return Status::Invalid("GPU allocation for " + r.owner + ": count " +
                             std::to_string(r.count) + " is negative");
    }
    names += (names.empty() ? "" : ",") + r.owner;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuRequest> fresh;
  for (const auto& r : requests) {
    auto it = held_.find(r.owner);
    if (it == held_.end()) {
      fresh.push_back(r);
      continue;
    }
    if (static_cast<int>(it->second.size()) != r.count) {
      return Status::Conflict("GPU allocation for " + r.owner + ": already holds GPUs [" +
                              JoinIndices(it->second) + "], asked for " + std::to_string(r.count));
    }
  }
  std::set<int> free;
  for (int idx : all_) {
    if (holder_.count(idx) == 0) free.insert(idx);
  }
  Result<std::vector<GpuGrant>> placed = placer_.Place(free, fresh);
  if (!placed.ok()) {
    return Status(placed.status().code(),
                  "GPU allocation for " + names + ": " + placed.status().message());
  }
  std::map<std::string, GpuGrant> by_owner;
  for (auto& g : *placed) {
    for (int idx : g.indices) holder_[idx] = g.owner;
    held_[g.owner] = g.indices;
    reason_[g.owner] = g.reason;
    by_owner[g.owner] = std::move(g);
  }
  std::vector<GpuGrant> out;
  for (const auto& r : requests) {
    if (r.count == 0) continue;
    auto it = by_owner.find(r.owner);
    if (it != by_owner.end()) {
      out.push_back(std::move(it->second));
    } else {
      out.push_back(GpuGrant{r.owner, held_[r.owner], reason_[r.owner]});
    }
  }
  return out;
}

void GpuAllocator::Release(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(owner);
  if (it == held_.end()) return;
  for (int idx : it->second) holder_.erase(idx);
  held_.erase(it);
  reason_.erase(owner);
}

Status GpuAllocator::Restore(const std::string& owner, const std::vector<int>& indices,
                             const std::string& reason) {
  if (owner.empty()) return Status::Invalid("GPU restore: owner is empty");
  std::vector<int> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  std::string what = "GPU restore for " + owner;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i] == sorted[i - 1]) {
      return Status::Invalid(what + ": index " + std::to_string(sorted[i]) + " listed twice");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (int idx : sorted) {
    if (all_.count(idx) == 0) {
      std::vector<int> have(all_.begin(), all_.end());
      return Status::Invalid(what + ": GPU " + std::to_string(idx) +
                             " is not on this machine (have [" + JoinIndices(have) + "])");
    }
    auto h = holder_.find(idx);
    if (h != holder_.end() && h->second != owner) {
      return Status::Conflict(what + ": GPU " + std::to_string(idx) + " is already held by " +
                              h->second);
    }
  }
  if (auto it = held_.find(owner); it != held_.end()) {
    if (it->second == sorted) return Status::Ok();
    return Status::Conflict(what + ": already holds GPUs [" + JoinIndices(it->second) +
                            "], restoring [" + JoinIndices(sorted) + "]");
  }
  if (sorted.empty()) return Status::Ok();
  for (int idx : sorted) holder_[idx] = owner;
  held_[owner] = sorted;
  reason_[owner] = reason;
  return Status::Ok();
}

int GpuAllocator::Free() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(all_.size() - holder_.size());
}

int GpuAllocator::Total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(all_.size());
}

std::vector<int> GpuAllocator::HeldBy(const std::string& owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(owner);
  return it == held_.end() ? std::vector<int>{} : it->second;
}

std::string GpuAllocator::ReasonOf(const std::string& owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reason_.find(owner);
  return it == reason_.end() ? std::string() : it->second;
}

std::map<int, std::string> GpuAllocator::Holders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holder_;
}

std::vector<EnvVar> GpuVisibilityEnv(const std::vector<int>& indices) {
  std::string list = JoinIndices(indices);
  return {EnvVar{"CUDA_VISIBLE_DEVICES", list}, EnvVar{"NVIDIA_VISIBLE_DEVICES", list}};
}

}  // namespace kuota::runtime
