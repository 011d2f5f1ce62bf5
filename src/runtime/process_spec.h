// ProcessSpec: what the local runtime needs to start one pod container as a
// local process (command, environment, directory, user, log and exit files,
// cgroup). Plain value type; knows nothing of Kubernetes objects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kuota::runtime {

// A user a command runs as, resolved by the daemon (see user_lookup.h), never
// in the child.
struct RunAs {
  uint32_t uid = 0;
  uint32_t gid = 0;              // primary group
  std::vector<uint32_t> groups;  // supplementary groups (getgrouplist: gid included)
  std::string home;              // HOME, and where the command starts by default
  std::string user_name;         // USER and LOGNAME
};

struct EnvVar {
  std::string name;
  std::string value;
};

struct ProcessSpec {
  // Command and arguments; argv[0] is looked up in PATH unless it contains a
  // '/' (then it is used as is, relative to working_dir). The PATH searched is
  // the child's: `env`'s PATH when given, else the daemon's. Required.
  std::vector<std::string> argv;

  // Variables set on top of the daemon's own environment (a later entry with
  // the same name wins). Local jobs inherit the user's environment, as under
  // Slurm; a name must be non-empty and hold no '='.
  std::vector<EnvVar> env;

  // Directory the command runs in; empty: run_as's home when run_as is set,
  // else the daemon's working directory.
  std::string working_dir;

  // Who the command runs as; nullopt: the daemon's own user, with its
  // environment and directory unchanged. When set, HOME, USER and LOGNAME are
  // the user's (entries of `env` override them) and the command starts in
  // working_dir, else in home ("/" when home cannot be entered, as login(1)
  // does). When uid is not the daemon's effective uid, the command drops to
  // the user just before exec, after "go": setgroups(groups), setgid(gid),
  // setuid(uid), each checked, then enters its directory as that user; this
  // needs a root daemon. A failed step fails PendingStart::Release with
  // Invalid (`cannot run as uid 1001 (alice): setuid: Operation not
  // permitted`) and the command never runs. Only the command changes user:
  // the keeper stays the daemon's, and so do the log, exit and lock files.
  std::optional<RunAs> run_as;

  // stdout and stderr are appended here (O_APPEND). The file is created with
  // mode 0600 and its parent directories with 0700, owned by the daemon's
  // user (the command writes through the descriptors it inherits); an
  // existing file is set to 0600. Empty: /dev/null. stdin is always
  // /dev/null.
  std::string log_path;

  // The keeper writes the exit status here ("exit 3\n" or "signal 9\n", or
  // "aborted before exec\n" when the command never ran), atomically
  // (temporary file "<exit_path>.tmp", then rename), when the command ends.
  // A stale file is removed by BeginSpawn. "<exit_path>.lock" is created
  // beside it and stays locked while the keeper lives (see StartInProgress).
  // Parent directories are created (0700); the files are 0600. Required.
  std::string exit_path;

  // A cgroup v2 directory the command joins before exec (from
  // CgroupManager::Create); empty: none.
  std::string cgroup_dir;
};

}  // namespace kuota::runtime
