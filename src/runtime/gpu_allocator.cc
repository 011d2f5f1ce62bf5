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

GpuAllocator::GpuAllocator(std::vector<int> indices) : all_(indices.begin(), indices.end()) {}

Result<std::vector<int>> GpuAllocator::Allocate(const std::string& owner, int n) {
  if (owner.empty()) return Status::Invalid("GPU allocation: owner is empty");
  if (n < 0)
    return Status::Invalid("GPU allocation for " + owner + ": count " + std::to_string(n) +
                           " is negative");
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = held_.find(owner); it != held_.end()) {
    if (static_cast<int>(it->second.size()) == n) return it->second;
    return Status::Conflict("GPU allocation for " + owner + ": already holds GPUs [" +
                            JoinIndices(it->second) + "], asked for " + std::to_string(n));
  }
  if (n == 0) return std::vector<int>{};
  std::vector<int> picked;
  for (int idx : all_) {
    if (holder_.count(idx) == 0) picked.push_back(idx);
    if (static_cast<int>(picked.size()) == n) break;
  }
  if (static_cast<int>(picked.size()) < n) {
    return Status::Unavailable("GPU allocation for " + owner + ": asked for " + std::to_string(n) +
                               ", only " + std::to_string(all_.size() - holder_.size()) + " of " +
                               std::to_string(all_.size()) + " free");
  }
  for (int idx : picked) holder_[idx] = owner;
  held_[owner] = picked;
  return picked;
}

void GpuAllocator::Release(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(owner);
  if (it == held_.end()) return;
  for (int idx : it->second) holder_.erase(idx);
  held_.erase(it);
}

Status GpuAllocator::Restore(const std::string& owner, const std::vector<int>& indices) {
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

std::map<int, std::string> GpuAllocator::Holders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holder_;
}

std::vector<EnvVar> GpuVisibilityEnv(const std::vector<int>& indices) {
  std::string list = JoinIndices(indices);
  return {EnvVar{"CUDA_VISIBLE_DEVICES", list}, EnvVar{"NVIDIA_VISIBLE_DEVICES", list}};
}

}  // namespace kuota::runtime
