// GpuAllocator: hands out whole GPUs (by device index) to pods on one machine,
// never two pods on one GPU, and rebuilds its state after a daemon restart
// from what running pods recorded. GpuVisibilityEnv gives the environment
// that shows a pod only its GPUs. Thread-safe: every method takes an
// internal mutex.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/process_spec.h"

namespace kuota::runtime {

class GpuAllocator {
 public:
  // Manages the GPUs with these device indices (duplicates are ignored).
  explicit GpuAllocator(std::vector<int> indices);

  // Gives `owner` the `n` lowest free indices. Asking again for the same n is
  // idempotent (returns what it holds). Invalid for n < 0 or an empty owner;
  // Conflict when the owner already holds a different number; Unavailable
  // when fewer than n are free. n == 0 gives an empty list and records
  // nothing.
  Result<std::vector<int>> Allocate(const std::string& owner, int n);

  // Frees what `owner` holds (nothing if it holds nothing).
  void Release(const std::string& owner);

  // Records that `owner` holds exactly `indices` (after a restart). All or
  // nothing: Invalid for an unknown or repeated index; Conflict when an index
  // is held by another owner or the owner holds a different set. Restoring
  // the same set again is fine.
  Status Restore(const std::string& owner, const std::vector<int>& indices);

  int Free() const;
  int Total() const;
  // What `owner` holds, ascending; empty if nothing.
  std::vector<int> HeldBy(const std::string& owner) const;
  // Every held index and its owner.
  std::map<int, std::string> Holders() const;

 private:
  mutable std::mutex mu_;
  std::set<int> all_;                             // guarded by mu_ (immutable)
  std::map<int, std::string> holder_;             // guarded by mu_: index -> owner
  std::map<std::string, std::vector<int>> held_;  // guarded by mu_: owner -> indices
};

// CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES set to the comma-separated
// indices ("0,2"). With no indices both are "" so a pod that asked for no GPU
// sees none.
std::vector<EnvVar> GpuVisibilityEnv(const std::vector<int>& indices);

}  // namespace kuota::runtime
