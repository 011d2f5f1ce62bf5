// ProcessSpec: what the local runtime needs to start one pod container as a
// local process (command, environment, directory, log and exit files, cgroup).
// Plain value type; knows nothing of Kubernetes objects.
#pragma once

#include <string>
#include <vector>

namespace kuota::runtime {

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

  // Directory the command runs in; empty: the daemon's working directory.
  std::string working_dir;

  // stdout and stderr are appended here (O_APPEND). The file is created with
  // mode 0644 and its parent directories with 0755. Empty: /dev/null.
  // stdin is always /dev/null.
  std::string log_path;

  // The keeper writes the exit status here ("exit 3\n" or "signal 9\n", or
  // "aborted before exec\n" when the command never ran), atomically
  // (temporary file "<exit_path>.tmp", then rename), when the command ends.
  // A stale file is removed by BeginSpawn. "<exit_path>.lock" is created
  // beside it and stays locked while the keeper lives (see StartInProgress).
  // Parent directories are created. Required.
  std::string exit_path;

  // A cgroup v2 directory the command joins before exec (from
  // CgroupManager::Create); empty: none.
  std::string cgroup_dir;
};

}  // namespace kuota::runtime
