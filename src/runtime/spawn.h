// Spawn: starts a pod container's command as a local process that survives
// the daemon. The daemon forks a keeper (new session, ignores SIGTERM, SIGINT,
// SIGHUP and SIGPIPE) that forks the command into its own process group,
// waits for it and records its exit status in the exit file; a restarted
// daemon learns the outcome from that file (see process_state.h).
// Thread-safe: may be called from any thread of a multi-threaded daemon;
// everything is prepared before fork and only async-signal-safe calls run
// between fork and exec. The daemon must not reap children with waitpid(-1)
// (Inspect reaps keepers) nor call setenv while spawning (environ is copied).
// Each keeper is a fork of the daemon: its pages are shared copy-on-write and
// it closes every descriptor it does not need, so it holds no daemon files.
#pragma once

#include "base/result.h"
#include "runtime/process_handle.h"
#include "runtime/process_spec.h"

namespace kuota::runtime {

// Starts `spec` and returns once the command has been exec'd. Fails with
//   Invalid   - a bad spec (empty argv or exit_path, bad env name), an
//               executable not found or not executable (`executable "foo"
//               not found in PATH`), a working directory that cannot be
//               entered, or a cgroup that cannot be joined;
//   Unavailable - the log or exit file cannot be created, fork failed.
// On failure nothing is left running and no exit file remains.
Result<ProcessHandle> Spawn(const ProcessSpec& spec);

}  // namespace kuota::runtime
