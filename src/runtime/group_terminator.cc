#include "runtime/group_terminator.h"

#include <signal.h>

#include <chrono>
#include <thread>

#include "runtime/process_group.h"

namespace kuota::runtime {

GroupTerminator::GroupTerminator(ProcessHandle handle, std::string exit_path, Duration grace,
                                 const Clock& clock)
    : handle_(handle), exit_path_(std::move(exit_path)), grace_(grace), clock_(clock) {}

TerminationProgress GroupTerminator::Poll() {
  Time now = clock_.Now();
  if (!started_) {
    started_ = true;
    deadline_ = now + grace_;
    // NotFound: it had already ended; nothing to signal.
    (void)SignalGroup(handle_, SIGTERM);
  }
  TerminationProgress p;
  p.state = Inspect(handle_, exit_path_);
  int live = CountLiveProcessesInGroup(handle_.pgid);
  if (p.state.finished() && live == 0) {
    p.done = true;
  } else if (now >= deadline_ && live > 0) {
    if (SignalGroup(handle_, SIGKILL).ok()) escalated_ = true;
  }
  p.escalated = escalated_;
  return p;
}

ProcessState TerminateGroup(const ProcessHandle& handle, const std::string& exit_path,
                            Duration grace, Duration timeout) {
  RealClock clock;
  GroupTerminator t(handle, exit_path, grace, clock);
  Time give_up = clock.Now() + timeout;
  for (;;) {
    TerminationProgress p = t.Poll();
    if (p.done || clock.Now() >= give_up) return p.state;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace kuota::runtime
