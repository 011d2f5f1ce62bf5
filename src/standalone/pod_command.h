// Pod command: how a pod's container becomes a local command line. The
// container's `command` + `args` run with its environment on top of the
// daemon's own: envFrom's ConfigMaps and Secrets (prefixed), then `env` —
// values, the downward API's fieldRef, and configMapKeyRef / secretKeyRef
// values — as the kubelet builds it; `$(VAR)` in command, args and env
// values expands as the kubelet does. A container with no `command` runs its
// `args` with the program named by the image's last path component without
// tag or digest, so "gcr.io/k8s-staging-perf-tests/sleep:latest" with args
// ["10s"] runs `sleep 10s`. Each volumeMount's mountPath that begins a path
// in the command line, env values or workingDir is rewritten to where the
// volume is on this machine (pod_volumes.h). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "runtime/process_spec.h"
#include "standalone/pod_config_objects.h"
#include "standalone/pod_volumes.h"

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

// What a container's command draws on besides the pod itself.
struct ContainerInputs {
  // The ConfigMaps and Secrets its env and envFrom name (ReadPodConfigObjects);
  // nullptr: none was read, so every one named is missing.
  const PodConfigObjects* config = nullptr;
  // Where its volumeMounts are on this machine (MountsOf).
  std::vector<MountPoint> mounts;
};

// Builds the command for `container` (an element of pod.spec.containers) of
// `pod`. `extra_env` (GPU visibility, ...) comes after the container's env.
// NotFound, with the kubelet's message (`configmap "app-config" not found`,
// `couldn't find key level in ConfigMap ns/app-config`), while a ConfigMap,
// Secret or key that env or envFrom names without `optional: true` is
// missing: the kubelet's CreateContainerConfigError, which passes once it
// exists. Invalid, naming the field, when there is nothing to run or a field
// has the wrong type.
Result<ContainerCommand> BuildContainerCommand(const nlohmann::json& pod,
                                               const nlohmann::json& container,
                                               const std::vector<runtime::EnvVar>& extra_env,
                                               const ContainerInputs& inputs = {});

}  // namespace kuota::standalone
