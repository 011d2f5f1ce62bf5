// Inspect: what became of a spawned process, told from /proc and the exit
// file alone, so it works in the daemon that spawned it and in a restarted
// one (also after a reboot: a handle from another boot names no live
// process). When the caller is the keeper's parent it also reaps the keeper
// (waitpid WNOHANG), so no zombies pile up. Thread-safe.
#pragma once

#include <string>

#include "runtime/process_handle.h"

namespace kuota::runtime {

enum class ProcessPhase {
  kRunning,       // the keeper is alive: the command runs (or waits to be
                  // released, or is being recorded)
  kExited,        // the command exited; exit_code holds its code
  kKilled,        // the command was killed by a signal; signal holds it
  kNeverStarted,  // the keeper stopped before exec (the daemon died before
                  // releasing it): the command never ran and may be started
  kLost,          // the keeper is gone and left no usable exit file (detail says
                  // why): the command may or may not have run
};

struct ProcessState {
  ProcessPhase phase = ProcessPhase::kLost;
  int exit_code = 0;
  int signal = 0;
  std::string detail;  // for kLost: why; otherwise empty

  bool finished() const { return phase != ProcessPhase::kRunning; }
  // "running", "exited 3", "killed by signal 15 (Terminated)",
  // "never started (aborted before exec)", "lost: ...".
  std::string ToString() const;
};

// Reports the state of the process `handle` names. Finished states are
// reported only once the keeper is gone, so the exit file is complete. A
// keeper pid that now belongs to another process (start time differs), or a
// handle from another boot (boot id differs), counts as gone: the state then
// comes from the exit file, or is kLost.
// After a finished state, processes the command left behind in its group may
// remain; SignalGroup(handle, SIGKILL) removes them.
ProcessState Inspect(const ProcessHandle& handle, const std::string& exit_path);

}  // namespace kuota::runtime
