// PodVolumes: a pod's volumes on this machine, where pods are local
// processes without mount namespaces. configMap and secret volumes are files
// kuotad writes under <pod dir>/volumes/<volume name>/ (every key, or the
// `items` at their paths; mode items[].mode, else defaultMode, else 0644;
// owned by the user the pod runs as, the directory 0700); an emptyDir is an
// empty directory there; a hostPath is the host's path itself. A container
// finds them at its volumeMounts' mountPath because kuotad rewrites that
// path, wherever it begins a path in the container's command, args, env
// values and workingDir, to where the files are (subPath appended). Other
// volume types are not available locally: their mountPaths stay as written,
// with a warning. PlanVolumes, MountsOf and RewriteMountPaths are pure;
// WriteVolumes writes files. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "standalone/pod_config_objects.h"

namespace kuota::standalone {

struct VolumeFile {
  std::string path;  // relative to the volume's directory; may hold '/'
  std::string bytes;
  uint32_t mode = 0644;
};

// One volume's directory as kuotad writes it.
struct VolumeContent {
  std::string name;
  std::vector<VolumeFile> files;  // none for an emptyDir (or an optional, absent source)
};

// The configMap, secret and emptyDir volumes of `pod`, from `config`.
// NotFound, with the kubelet's FailedMount message (`MountVolume.SetUp failed
// for volume "cfg" : configmap "app-config" not found`), while a ConfigMap,
// Secret or item key that is not optional is missing; Invalid, naming the
// field, for a volume kuotad cannot write (a name that is not a file name, an
// item path that leaves the volume, a mode beyond 0777).
Result<std::vector<VolumeContent>> PlanVolumes(const nlohmann::json& pod,
                                               const PodConfigObjects& config);

// A volumeMount's mountPath and where its files are on this machine.
struct MountPoint {
  std::string mount_path;  // without trailing '/'
  std::string host_path;
};

struct ContainerMounts {
  std::vector<MountPoint> mounts;
  std::vector<std::string> warnings;  // mounts of volumes not available locally
};

// Where `container`'s volumeMounts (of `pod`'s volumes) are, the volumes
// PlanVolumes writes being under `volumes_dir` (<pod dir>/volumes, absolute).
ContainerMounts MountsOf(const nlohmann::json& pod, const nlohmann::json& container,
                         const std::string& volumes_dir);

// `text` with each mountPath that begins a path in it ("/etc/app" in
// "cat /etc/app/x" or "--config=/etc/app", not in "/etc/apps" or
// "/opt/etc/app") replaced by its host path; the longest mountPath first.
std::string RewriteMountPaths(const std::string& text, const std::vector<MountPoint>& mounts);

// Who owns a volume's files (the user the pod runs as).
struct VolumeOwner {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// Writes each of `volumes` to `volumes_dir`/<name>: built afresh in a
// temporary directory only kuotad can enter, handed to `owner` (files,
// directories; nullopt: kuotad's own user) and renamed into place, replacing
// what was there. `volumes_dir` is made 0711 so that the owner can reach
// its volume. Unavailable, naming the path, when a step fails.
Status WriteVolumes(const std::string& volumes_dir, const std::vector<VolumeContent>& volumes,
                    const std::optional<VolumeOwner>& owner);

}  // namespace kuota::standalone
