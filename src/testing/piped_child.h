// ForkPiped: a forked child that reports to the test through a pipe.
// Test-only; for single-threaded tests (it forks).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>
#include <unistd.h>

#include <functional>

namespace kuota::testing {

// Forks a child that runs `child` with the pipe's write end and then exits
// with status 0 unless `child` exited first. In the test, `pid` is then the
// child's and `fd` the pipe's read end (the caller closes it).
inline void ForkPiped(const std::function<void(int)>& child, pid_t& pid, int& fd) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    child(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  fd = fds[0];
}

}  // namespace kuota::testing
