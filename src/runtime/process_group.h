// Process groups of spawned commands: signalling a group safely (never a
// group whose id was reused by a stranger) and listing its live members, for
// the daemon's cleanup and for tests that sample what is running. The keeper
// is not in the group. Thread-safe.
#pragma once

#include <sys/types.h>

#include <vector>

#include "base/status.h"
#include "runtime/proc_stat.h"
#include "runtime/process_handle.h"

namespace kuota::runtime {

// Sends `sig` to every process in the command's group (kill(-pgid, sig)),
// after checking the group is still ours (and never when the handle comes
// from an earlier boot):
//  - the keeper is alive with its recorded start time (it holds the group id
//    until it exits), or
//  - the group leader (the command) is present with its recorded start time
//    (the keeper was killed alone), or
//  - the leader is gone and the remaining members started after the keeper
//    (processes the command left behind; a group id stays in use while it
//    has members, so it cannot have been reused meanwhile).
// NotFound when no process of ours is left to signal; Invalid for a bad
// signal; Unavailable when kill(2) fails otherwise.
Status SignalGroup(const ProcessHandle& handle, int sig);

// Live (non-zombie) processes whose process group is `pgid`, from /proc.
std::vector<ProcStat> ListGroupProcesses(pid_t pgid);

// The number of live processes in group `pgid`.
int CountLiveProcessesInGroup(pid_t pgid);

}  // namespace kuota::runtime
