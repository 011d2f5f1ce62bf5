// CgroupManager: cgroup v2 CPU and memory limits for pods run as local
// processes. At start it finds out whether limits can be enforced here
// (cgroup2 mounted, cpu and memory controllers available, a subtree we may
// write); if so, each pod gets <base>/kuota/<pod_id> with cpu.max and
// memory.max, and Spawn puts the command in it. If not, every call says
// "not enforced: <reason>" as a value and pods run without limits.
// Immutable after Detect: thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace kuota::runtime {

struct CgroupOptions {
  // A delegated cgroup v2 directory to create the subtree in; empty: the
  // daemon's own cgroup.
  std::string parent_dir;
  // The subtree holding one cgroup per pod.
  std::string subtree_name = "kuota";
  // cgroup v2's "no internal processes" rule: a cgroup holding processes
  // cannot hand controllers to children. When the base cgroup holds only this
  // process, it moves itself into this leaf (as systemd's Delegate=yes
  // services are expected to) and retries.
  std::string daemon_leaf_name = "kuotad";
  bool move_self_to_leaf = true;
};

// Where a pod's processes go.
struct CgroupPlacement {
  bool enforced = false;
  std::string dir;   // the pod's cgroup directory (ProcessSpec::cgroup_dir); "" if not enforced
  std::string note;  // "not enforced: <reason>" when not enforced
};

class CgroupManager {
 public:
  // Detects what this machine allows. Never fails; may create <base>/kuota
  // and move this process into <base>/kuotad (see CgroupOptions).
  static CgroupManager Detect(const CgroupOptions& options = {});

  bool enforced() const { return enforced_; }
  // Why limits are not enforced ("" when they are).
  const std::string& reason() const { return reason_; }
  // <base>/kuota when enforced.
  const std::string& subtree_dir() const { return subtree_; }

  // Creates (or reuses, after a restart) the pod's cgroup with
  // cpu.max "<cpu_millis*100> 100000" (unlimited when cpu_millis <= 0) and
  // memory.max = memory_bytes (unlimited when <= 0). When not enforced, returns
  // a placement with enforced=false and the note. Invalid for a pod_id that is
  // not one path component of [A-Za-z0-9._-] (not starting with '.');
  // Unavailable when writing a limit fails.
  Result<CgroupPlacement> Create(const std::string& pod_id, int64_t cpu_millis,
                                 int64_t memory_bytes) const;

  // Removes the pod's cgroup after its processes exited. OK when it does not
  // exist or limits are not enforced; Unavailable ("busy") while processes
  // remain in it: retry later.
  Status Remove(const std::string& pod_id) const;

 private:
  CgroupManager() = default;
  bool enforced_ = false;
  std::string reason_;
  std::string subtree_;
};

}  // namespace kuota::runtime
