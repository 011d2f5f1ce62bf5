// ProcessHandle: what the daemon saves about a spawned process so that it, or
// a restarted daemon, can later inspect and signal it safely. Start times
// (field 22 of /proc/<pid>/stat) tell our processes from later ones that
// reused their pids; the boot id tells this boot from an earlier one (after a
// reboot every recorded process is gone, whatever /proc now holds at its pid).
// Plain value type.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace kuota::runtime {

struct ProcessHandle {
  // The keeper: a small process in its own session that waits for the command
  // and writes its exit file. It outlives the daemon.
  pid_t keeper_pid = 0;
  uint64_t keeper_start_time = 0;
  // The command's process group: the command itself leads it (pgid == its
  // pid). The keeper is outside it, so signalling the group never hits the
  // keeper.
  pid_t pgid = 0;
  // The command's start time (taken while it waits to be released, so never
  // 0 for a handle from BeginSpawn; 0 in records of older daemons that could
  // miss a command that had already ended).
  uint64_t pgid_start_time = 0;
  // /proc/sys/kernel/random/boot_id when the keeper was started; "" when
  // unknown (then the pids are trusted as they are).
  std::string boot_id;

  // "keeper 123 (start 456), group 124 (start 457)" for logs.
  std::string ToString() const {
    return "keeper " + std::to_string(keeper_pid) + " (start " + std::to_string(keeper_start_time) +
           "), group " + std::to_string(pgid) + " (start " + std::to_string(pgid_start_time) + ")";
  }
};

}  // namespace kuota::runtime
