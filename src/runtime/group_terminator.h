// GroupTerminator: stops a spawned command gracefully, as the kubelet does:
// SIGTERM to its process group, then SIGKILL once the grace period has passed
// and processes remain. Non-blocking: the daemon calls Poll() from its loop
// until it reports done. TerminateGroup() is a blocking wrapper for shutdown
// paths and tests. A GroupTerminator is not thread-safe (one owner); the
// Clock it borrows must outlive it.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/time.h"
#include "runtime/process_handle.h"
#include "runtime/process_state.h"

namespace kuota::runtime {

struct TerminationProgress {
  bool done = false;       // the command has finished and its group is empty
  bool escalated = false;  // SIGKILL has been sent
  ProcessState state;      // Inspect's answer at this poll
};

class GroupTerminator {
 public:
  GroupTerminator(ProcessHandle handle, std::string exit_path, Duration grace, const Clock& clock);

  // The first call sends SIGTERM to the group. Every call inspects the
  // process; once `grace` has passed since the first call, each call sends
  // SIGKILL to whatever is left in the group (the command, or processes it
  // left behind). Never blocks.
  TerminationProgress Poll();

 private:
  ProcessHandle handle_;
  std::string exit_path_;
  Duration grace_;
  const Clock& clock_;
  bool started_ = false;
  bool escalated_ = false;
  Time deadline_;
};

// Polls a GroupTerminator every 10 ms on the real clock until it is done or
// `timeout` passes; returns the last state (kRunning on timeout).
ProcessState TerminateGroup(const ProcessHandle& handle, const std::string& exit_path,
                            Duration grace, Duration timeout);

}  // namespace kuota::runtime
