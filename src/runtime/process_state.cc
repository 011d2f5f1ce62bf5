#include "runtime/process_state.h"

#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "runtime/exit_file.h"
#include "runtime/proc_stat.h"

namespace kuota::runtime {

std::string ProcessState::ToString() const {
  switch (phase) {
    case ProcessPhase::kRunning:
      return "running";
    case ProcessPhase::kExited:
      return "exited " + std::to_string(exit_code);
    case ProcessPhase::kKilled: {
      const char* name = sigdescr_np(signal);
      return "killed by signal " + std::to_string(signal) +
             (name != nullptr ? std::string(" (") + name + ")" : std::string());
    }
    case ProcessPhase::kNeverStarted:
      return "never started (aborted before exec)";
    case ProcessPhase::kLost:
      return "lost: " + detail;
  }
  return "unknown";
}

ProcessState Inspect(const ProcessHandle& handle, const std::string& exit_path) {
  ProcessState state;
  std::string keeper = "keeper " + std::to_string(handle.keeper_pid);
  std::string gone_how;
  // After a reboot the pid may name anything: do not look.
  const std::string boot_id = handle.boot_id.empty() ? "" : ReadBootId();
  const bool other_boot = !boot_id.empty() && boot_id != handle.boot_id;
  auto st = other_boot ? std::nullopt : ReadProcStat(handle.keeper_pid);
  if (other_boot) {
    gone_how =
        keeper + " ran in an earlier boot (boot id " + handle.boot_id + ", now " + boot_id + ")";
  } else if (!st) {
    gone_how = keeper + " is gone";
  } else if (st->start_time != handle.keeper_start_time) {
    gone_how = "pid " + std::to_string(handle.keeper_pid) +
               " now belongs to another process (start time " + std::to_string(st->start_time) +
               ", want " + std::to_string(handle.keeper_start_time) + ")";
  } else {
    // Ours. Reap it if we are its parent; a pid reused by another child of
    // ours is excluded by the start-time check above.
    int wstatus = 0;
    pid_t r = waitpid(handle.keeper_pid, &wstatus, WNOHANG);
    if (r == 0) {
      state.phase = ProcessPhase::kRunning;
      return state;
    }
    if (r == handle.keeper_pid) {
      gone_how = keeper + (WIFSIGNALED(wstatus)
                               ? " was killed by signal " + std::to_string(WTERMSIG(wstatus))
                               : " exited " + std::to_string(WEXITSTATUS(wstatus)));
    } else if (!st->zombie()) {
      // Not our child (a restarted daemon) and alive.
      state.phase = ProcessPhase::kRunning;
      return state;
    } else {
      gone_how = keeper + " has exited";
    }
  }
  auto rec = ReadExitFile(exit_path);
  if (rec.ok()) {
    if (rec->never_started) {
      state.phase = ProcessPhase::kNeverStarted;
    } else if (rec->signaled) {
      state.phase = ProcessPhase::kKilled;
      state.signal = rec->value;
    } else {
      state.phase = ProcessPhase::kExited;
      state.exit_code = rec->value;
    }
    return state;
  }
  state.phase = ProcessPhase::kLost;
  state.detail = gone_how + (rec.status().code() == StatusCode::kNotFound
                                 ? " and left no exit file " + exit_path
                                 : "; " + rec.status().message());
  return state;
}

}  // namespace kuota::runtime
