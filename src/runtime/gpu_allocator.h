// GpuAllocator: hands out whole GPUs (by device index) to pods on one machine,
// never two pods on one GPU, chosen by topology (gpu_placement.h: the
// tightest group that holds the request, a gang's pods packed together), and
// rebuilds its state after a daemon restart from what running pods recorded.
// GpuVisibilityEnv gives the environment that shows a pod only its GPUs.
// Thread-safe: every method takes an internal mutex.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/gpu_placement.h"
#include "runtime/gpu_topology.h"
#include "runtime/process_spec.h"

namespace kuota::runtime {

class GpuAllocator {
 public:
  // Manages the GPUs with these device indices (duplicates are ignored),
  // nothing known of how they connect: the lowest free indices are given.
  explicit GpuAllocator(std::vector<int> indices);
  // Manages the GPUs of `topology` (one that is not valid counts as flat).
  explicit GpuAllocator(GpuTopology topology);

  // Gives `owner` `n` free GPUs, the tightest by topology. Asking again for
  // the same n is idempotent (returns what it holds). Invalid for n < 0 or an
  // empty owner; Conflict when the owner already holds a different number;
  // Unavailable when fewer than n are free. n == 0 gives an empty list and
  // records nothing.
  Result<std::vector<int>> Allocate(const std::string& owner, int n);

  // Gives a gang's pods their GPUs together, all or nothing: the gang's
  // region first, then each pod its best fit inside it (gpu_placement.h).
  // One grant per request with a count > 0, in the order given, each with
  // the reason it got those GPUs. An owner that already holds GPUs keeps
  // them (and its reason) when it asks for as many again. Invalid for an
  // empty, repeated owner or a negative count; Conflict as Allocate;
  // Unavailable when fewer are free than the new requests add up to.
  Result<std::vector<GpuGrant>> AllocateGang(const std::vector<GpuRequest>& requests);

  // Frees what `owner` holds (nothing if it holds nothing).
  void Release(const std::string& owner);

  // Records that `owner` holds exactly `indices` (after a restart). All or
  // nothing: Invalid for an unknown or repeated index; Conflict when an index
  // is held by another owner or the owner holds a different set. Restoring
  // the same set again is fine.
  Status Restore(const std::string& owner, const std::vector<int>& indices,
                 const std::string& reason = "");

  int Free() const;
  int Total() const;
  // What `owner` holds, ascending; empty if nothing.
  std::vector<int> HeldBy(const std::string& owner) const;
  // Why `owner` holds what it holds ("" if nothing, or restored without one).
  std::string ReasonOf(const std::string& owner) const;
  // Every held index and its owner.
  std::map<int, std::string> Holders() const;
  // The topology GPUs are placed by (immutable).
  const GpuTopology& topology() const { return placer_.topology(); }

 private:
  mutable std::mutex mu_;
  const GpuPlacer placer_;                        // immutable
  std::set<int> all_;                             // guarded by mu_ (immutable)
  std::map<int, std::string> holder_;             // guarded by mu_: index -> owner
  std::map<std::string, std::vector<int>> held_;  // guarded by mu_: owner -> indices
  std::map<std::string, std::string> reason_;     // guarded by mu_: owner -> why
};

// CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES set to the comma-separated
// indices ("0,2"). With no indices both are "" so a pod that asked for no GPU
// sees none.
std::vector<EnvVar> GpuVisibilityEnv(const std::vector<int>& indices);

}  // namespace kuota::runtime
