// Pod command: how a pod's container becomes a local command line. The
// container's `command` + `args` run with its `env` (values, and the
// fieldRef/resourceFieldRef kube resolves) on top of the daemon's own
// environment; `$(VAR)` in command and args expands as kubelet does. A
// container with no `command` runs its `args` with the program named by the
// image's last path component without tag or digest, so
// "gcr.io/k8s-staging-perf-tests/sleep:latest" with args ["10s"] runs
// `sleep 10s`. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "runtime/process_spec.h"

namespace kuota::standalone {

struct ContainerCommand {
  std::vector<std::string> argv;
  std::vector<runtime::EnvVar> env;
  std::string working_dir;
  std::vector<std::string> warnings;  // unsupported env sources, and such
};

// The program an image names: the last path component without ":tag" or
// "@digest" ("gcr.io/x/sleep:latest" -> "sleep"). Empty for an empty image.
std::string ProgramFromImage(const std::string& image);

// Builds the command for `container` (an element of pod.spec.containers) of
// `pod`. `extra_env` (GPU visibility, ...) comes after the container's env.
// Invalid, naming the field, when there is nothing to run or a field has the
// wrong type.
Result<ContainerCommand> BuildContainerCommand(const nlohmann::json& pod,
                                               const nlohmann::json& container,
                                               const std::vector<runtime::EnvVar>& extra_env);

}  // namespace kuota::standalone
