#include "runtime/process_group.h"

#include <signal.h>

#include <cerrno>
#include <string>

#include "runtime/os_files.h"

namespace kuota::runtime {

std::vector<ProcStat> ListGroupProcesses(pid_t pgid) {
  std::vector<ProcStat> out;
  if (pgid <= 0) return out;
  for (ProcStat& st : ListAllProcesses()) {
    if (st.pgid == pgid && !st.zombie()) out.push_back(std::move(st));
  }
  return out;
}

int CountLiveProcessesInGroup(pid_t pgid) {
  return static_cast<int>(ListGroupProcesses(pgid).size());
}

Status SignalGroup(const ProcessHandle& handle, int sig) {
  if (sig <= 0 || sig >= NSIG)
    return Status::Invalid("signal " + std::to_string(sig) + ": out of range");
  std::string group = "process group " + std::to_string(handle.pgid);
  if (handle.pgid <= 1) return Status::Invalid(group + ": not a spawned command's group");
  if (!handle.boot_id.empty()) {
    const std::string boot_id = ReadBootId();
    if (!boot_id.empty() && boot_id != handle.boot_id) {
      return Status::NotFound(group + ": recorded in an earlier boot (boot id " + handle.boot_id +
                              ")");
    }
  }

  bool ours = false;
  auto keeper = ReadProcStat(handle.keeper_pid);
  if (keeper && keeper->start_time == handle.keeper_start_time && !keeper->zombie()) {
    ours = true;
  } else if (auto leader = ReadProcStat(handle.pgid)) {
    ours = handle.pgid_start_time != 0 && leader->start_time == handle.pgid_start_time &&
           leader->pgid == handle.pgid;
    if (!ours) return Status::NotFound(group + ": its leader pid now belongs to another process");
  } else {
    std::vector<ProcStat> members = ListGroupProcesses(handle.pgid);
    if (members.empty()) return Status::NotFound(group + ": no processes left");
    ours = true;
    for (const ProcStat& m : members) {
      if (m.start_time < handle.keeper_start_time) ours = false;
    }
    if (!ours) return Status::NotFound(group + ": its members are not ours (started earlier)");
  }
  if (kill(-handle.pgid, sig) != 0) {
    if (errno == ESRCH) return Status::NotFound(group + ": no processes left");
    return Status::Unavailable("kill " + group + ": " + ErrnoText(errno));
  }
  return Status::Ok();
}

}  // namespace kuota::runtime
