// ProcStat: the fields of /proc/<pid>/stat the local runtime needs to tell a
// process apart from a later one that reused its pid (start time, field 22),
// and to find the members of a process group; and the boot id, which tells
// this boot from an earlier one (pids and start times restart at each boot).
// Thread-safe (reads /proc only).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kuota::runtime {

struct ProcStat {
  pid_t pid = 0;
  std::string comm;         // field 2, without the parentheses
  char state = '?';         // field 3: R, S, D, Z, T, ...
  pid_t ppid = 0;           // field 4
  pid_t pgid = 0;           // field 5
  pid_t session = 0;        // field 6
  uint64_t start_time = 0;  // field 22: clock ticks after boot

  // An exited process not yet reaped by its parent (or being reaped).
  bool zombie() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

// Parses the text of /proc/<pid>/stat; nullopt when malformed. The command
// name may hold spaces and parentheses: fields are counted after the last ')'.
std::optional<ProcStat> ParseProcStat(std::string_view text);

// Reads /proc/<pid>/stat; nullopt when the process does not exist.
std::optional<ProcStat> ReadProcStat(pid_t pid);

// Every process visible in /proc (a snapshot; processes come and go).
std::vector<ProcStat> ListAllProcesses();

// This boot's id (/proc/sys/kernel/random/boot_id, a UUID without the
// newline); "" when it cannot be read.
std::string ReadBootId();

}  // namespace kuota::runtime
