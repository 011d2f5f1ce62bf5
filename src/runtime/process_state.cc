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
    case ProcessPhase::kLost:
      return "lost: " + detail;
  }
  return "unknown";
}

ProcessState Inspect(const ProcessHandle& handle, const std::string& exit_path) {
  ProcessState state;
  std::string keeper = "keeper " + std::to_string(handle.keeper_pid);
  std::string gone_how;
  auto st = ReadProcStat(handle.keeper_pid);
  if (!st) {
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
    if (rec->signaled) {
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
