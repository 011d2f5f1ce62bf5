// Spawn: starts a pod container's command as a local process that survives
// the daemon, at most once even when the daemon dies at any instant of the
// start. The daemon forks a keeper (new session, ignores SIGTERM, SIGINT,
// SIGHUP and SIGPIPE) that forks the command into its own process group,
// waits for it and records its exit status in the exit file; a restarted
// daemon learns the outcome from that file (see process_state.h).
//
// The start is a handshake, so the daemon can record the processes' identity
// durably before the command can run:
//   1. BeginSpawn: the keeper and the command's process exist, the command
//      stopped just before exec (its cgroup joined, its directory entered);
//      the handle (keeper and command pids with their start times, boot id)
//      is known. The daemon records it durably.
//   2. PendingStart::Release ("go"): the command is exec'd.
// The daemon's end of the "go" channel closes when it dies, so a keeper that
// got no "go" kills the unreleased command, writes "aborted before exec" to
// the exit file (Inspect: kNeverStarted) and exits; the command cannot exec
// without "go", and an unreleased command whose keeper died writes that
// record itself. Between BeginSpawn and the keeper's exit the keeper (and the
// unreleased command) hold an flock on "<exit_path>.lock", so a restarted
// daemon whose record says only that a start began (no handle yet) asks
// StartInProgress: while true the old keeper is still stopping; once false no
// process of that start is left, and since "go" is sent only after the
// handle is recorded, the command never ran.
//
// Thread-safe: may be called from any thread of a multi-threaded daemon;
// everything is prepared before fork and only async-signal-safe calls run
// between fork and exec. The daemon must not reap children with waitpid(-1)
// (Inspect reaps keepers) nor call setenv while spawning (environ is copied).
// Each keeper is a fork of the daemon: its pages are shared copy-on-write and
// it closes every descriptor it does not need, so it holds no daemon files.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "base/result.h"
#include "runtime/process_handle.h"
#include "runtime/process_spec.h"

namespace kuota::runtime {

// A started keeper whose command waits, just before exec, for Release. Not
// thread-safe (one owner); move-only. Destroying it unreleased aborts it.
class PendingStart {
 public:
  ~PendingStart();
  PendingStart(PendingStart&&) noexcept;
  PendingStart& operator=(PendingStart&&) noexcept;
  PendingStart(const PendingStart&) = delete;
  PendingStart& operator=(const PendingStart&) = delete;

  // The keeper and the waiting command; valid before Release. Record it
  // durably before calling Release, so a restarted daemon finds them.
  const ProcessHandle& handle() const { return handle_; }

  // Sends "go" and returns once the command has been exec'd. Fails with
  // Invalid when exec fails (`executable "/x" not found`, permission denied)
  // and Unavailable when the keeper died before it got "go" (then the command
  // never ran and its exit file says so); after a failure nothing is left
  // running and, for an exec failure, no exit file remains. Call at most once.
  Result<ProcessHandle> Release();

  // Does not start the command: the keeper kills it before exec and exits;
  // waits for that and removes the exit file. Idempotent.
  void Abort();

 private:
  struct State;
  friend Result<PendingStart> BeginSpawn(const ProcessSpec& spec);
  explicit PendingStart(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;  // null once released or aborted
  ProcessHandle handle_;
};

// Starts the keeper and the command's process for `spec` and returns once
// the command is ready to exec. Fails with
//   Invalid   - a bad spec (empty argv or exit_path, bad env name), an
//               executable not found or not executable (`executable "foo"
//               not found in PATH`), a working directory that cannot be
//               entered, or a cgroup that cannot be joined;
//   Unavailable - the log, lock or exit file cannot be created, fork failed,
//               or a keeper of an earlier start of this exit_path still
//               holds its lock (see StartInProgress).
// On failure nothing is left running and no exit file remains.
Result<PendingStart> BeginSpawn(const ProcessSpec& spec);

// BeginSpawn then Release: for callers that keep no durable record.
Result<ProcessHandle> Spawn(const ProcessSpec& spec);

// Whether a keeper started for `exit_path` (or its command, while not yet
// exec'd) is still alive: true while some process holds the flock on
// "<exit_path>.lock". A daemon restarted after dying between recording that
// a start began and recording its handle waits until this is false; then no
// process of that start remains and, the handle never having been recorded,
// "go" was never sent: the command never ran. Unavailable when the lock file
// exists but cannot be opened or locked for another reason.
Result<bool> StartInProgress(const std::string& exit_path);

}  // namespace kuota::runtime
