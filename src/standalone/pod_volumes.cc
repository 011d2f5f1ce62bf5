#include "standalone/pod_volumes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>

#include "runtime/os_files.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

constexpr uint32_t kDefaultVolumeMode = 0644;  // Kubernetes' defaultMode

const Json* VolField(const Json& obj, const char* name) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(name);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string VolString(const Json& obj, const char* name) {
  const Json* f = VolField(obj, name);
  return f != nullptr && f->is_string() ? f->get<std::string>() : "";
}

bool VolBool(const Json& obj, const char* name) {
  const Json* f = VolField(obj, name);
  return f != nullptr && f->is_boolean() && f->get<bool>();
}

// A single path element kuotad may create: not empty, ".", ".." or holding '/'.
bool IsFileName(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

// A relative path that stays inside its directory (Kubernetes' rule for
// items[].path and subPath: no ".." element, not absolute).
bool IsInnerPath(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t slash = p.find('/', start);
    const std::string part =
        p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

Result<uint32_t> ModeAt(const Json& obj, const char* name, uint32_t fallback,
                        const std::string& path) {
  const Json* f = VolField(obj, name);
  if (f == nullptr) return fallback;
  if (!f->is_number_integer() || f->get<int64_t>() < 0 || f->get<int64_t>() > 0777) {
    return Status::Invalid(path + "." + name +
                           ": Invalid value: must be a number between 0 and 0777 (octal), both "
                           "inclusive");
  }
  return static_cast<uint32_t>(f->get<int64_t>());
}

// A configMap or secret volume's files: `values` are the object's keys (all
// of them, or `items`), nullptr when the object is missing.
Result<std::vector<VolumeFile>> SourceFiles(const std::string& volume, const Json& source,
                                            const std::string& path, const char* kind,
                                            const std::map<std::string, std::string>* values,
                                            const std::string& missing_key_message) {
  const bool optional = VolBool(source, "optional");
  const std::string failed = "MountVolume.SetUp failed for volume \"" + volume + "\" : ";
  std::vector<VolumeFile> files;
  KUOTA_ASSIGN_OR_RETURN(uint32_t default_mode,
                         ModeAt(source, "defaultMode", kDefaultVolumeMode, path));
  const std::string name = VolString(source, std::string(kind) == "secret" ? "secretName" : "name");
  if (values == nullptr) {
    if (optional) return files;
    return Status::NotFound(failed + ConfigNotFoundMessage(kind, name));
  }
  const Json* items = VolField(source, "items");
  if (items == nullptr || (items->is_array() && items->empty())) {
    for (const auto& [key, bytes] : *values) {
      if (!IsFileName(key)) {
        return Status::Invalid(path + ": the key " + Json(key).dump() +
                               " is not a file name kuotad can write");
      }
      files.push_back({key, bytes, default_mode});
    }
    return files;
  }
  if (!items->is_array()) return Status::Invalid(path + ".items: Invalid value: must be a list");
  for (size_t j = 0; j < items->size(); ++j) {
    const Json& item = (*items)[j];
    const std::string item_path = path + ".items[" + std::to_string(j) + "]";
    const std::string key = VolString(item, "key");
    const std::string file = VolString(item, "path");
    if (!IsInnerPath(file)) {
      return Status::Invalid(item_path + ".path: Invalid value: " + Json(file).dump() +
                             ": must be a relative path without '..'");
    }
    KUOTA_ASSIGN_OR_RETURN(uint32_t mode, ModeAt(item, "mode", default_mode, item_path));
    auto it = values->find(key);
    if (it == values->end()) {
      if (optional) continue;
      return Status::NotFound(failed + missing_key_message + key);
    }
    files.push_back({file, it->second, mode});
  }
  return files;
}

bool IsPathNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

Status VolError(const std::string& what, const std::string& path, int err) {
  return Status::Unavailable(what + " " + path + ": " + runtime::ErrnoText(err));
}

Status WriteVolumeFile(const std::string& path, const VolumeFile& f,
                       const std::optional<VolumeOwner>& owner) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return VolError("cannot create", path, errno);
  size_t off = 0;
  while (off < f.bytes.size()) {
    ssize_t n = ::write(fd, f.bytes.data() + off, f.bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return VolError("cannot write", path, err);
    }
    off += static_cast<size_t>(n);
  }
  if (owner && ::fchown(fd, owner->uid, owner->gid) != 0) {
    int err = errno;
    ::close(fd);
    return VolError("cannot hand over", path, err);
  }
  // Exactly the mode asked for, whatever kuotad's umask.
  if (::fchmod(fd, f.mode) != 0) {
    int err = errno;
    ::close(fd);
    return VolError("cannot set the mode of", path, err);
  }
  ::close(fd);
  return Status::Ok();
}

// mkdir + chmod (the umask would narrow the mode) + chown.
Status MakeVolumeDir(const std::string& path, mode_t mode,
                     const std::optional<VolumeOwner>& owner) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return VolError("cannot create directory", path, errno);
  }
  if (owner && ::lchown(path.c_str(), owner->uid, owner->gid) != 0) {
    return VolError("cannot hand over", path, errno);
  }
  if (::chmod(path.c_str(), mode) != 0) return VolError("cannot set the mode of", path, errno);
  return Status::Ok();
}

// One volume in a fresh directory `dir` (kuotad's until the end).
Status WriteVolumeDir(const std::string& dir, const VolumeContent& v,
                      const std::optional<VolumeOwner>& owner) {
  if (::mkdir(dir.c_str(), 0700) != 0) return VolError("cannot create directory", dir, errno);
  std::set<std::string> made;  // subdirectories, relative
  for (const VolumeFile& f : v.files) {
    for (size_t slash = f.path.find('/'); slash != std::string::npos;
         slash = f.path.find('/', slash + 1)) {
      const std::string sub = f.path.substr(0, slash);
      if (made.insert(sub).second) {
        KUOTA_RETURN_IF_ERROR(MakeVolumeDir(dir + "/" + sub, 0755, std::nullopt));
      }
    }
    KUOTA_RETURN_IF_ERROR(WriteVolumeFile(dir + "/" + f.path, f, owner));
  }
  // Subdirectories, then the volume's directory, go to the owner last, so
  // that nothing of it was the owner's while kuotad wrote it.
  for (const std::string& sub : made) {
    KUOTA_RETURN_IF_ERROR(MakeVolumeDir(dir + "/" + sub, 0755, owner));
  }
  return MakeVolumeDir(dir, 0700, owner);
}

}  // namespace

Result<std::vector<VolumeContent>> PlanVolumes(const Json& pod, const PodConfigObjects& config) {
  std::vector<VolumeContent> out;
  const Json* spec = VolField(pod, "spec");
  const Json* volumes = spec != nullptr ? VolField(*spec, "volumes") : nullptr;
  if (volumes == nullptr) return out;
  if (!volumes->is_array()) return Status::Invalid("spec.volumes: Invalid value: must be a list");
  for (size_t i = 0; i < volumes->size(); ++i) {
    const Json& v = (*volumes)[i];
    const std::string path = "spec.volumes[" + std::to_string(i) + "]";
    const std::string name = VolString(v, "name");
    const Json* cm = VolField(v, "configMap");
    const Json* secret = VolField(v, "secret");
    const Json* empty_dir = VolField(v, "emptyDir");
    if (cm == nullptr && secret == nullptr && empty_dir == nullptr) continue;
    if (!IsFileName(name)) {
      return Status::Invalid(path + ".name: Invalid value: " + Json(name).dump() +
                             ": must be a file name (no '/', not '.' or '..')");
    }
    VolumeContent content;
    content.name = name;
    if (cm != nullptr) {
      const Json* object = config.FindConfigMap(VolString(*cm, "name"));
      std::map<std::string, std::string> values;
      if (object != nullptr) values = ConfigMapValues(*object, /*binary=*/true);
      KUOTA_ASSIGN_OR_RETURN(content.files,
                             SourceFiles(name, *cm, path + ".configMap", "configmap",
                                         object != nullptr ? &values : nullptr,
                                         "configmap references non-existent config key: "));
    } else if (secret != nullptr) {
      const Json* object = config.FindSecret(VolString(*secret, "secretName"));
      std::map<std::string, std::string> values;
      if (object != nullptr) values = SecretValues(*object);
      KUOTA_ASSIGN_OR_RETURN(content.files, SourceFiles(name, *secret, path + ".secret", "secret",
                                                        object != nullptr ? &values : nullptr,
                                                        "references non-existent secret key: "));
    }
    out.push_back(std::move(content));
  }
  return out;
}

ContainerMounts MountsOf(const Json& pod, const Json& container, const std::string& volumes_dir) {
  ContainerMounts out;
  const Json* mounts = VolField(container, "volumeMounts");
  if (mounts == nullptr || !mounts->is_array()) return out;
  const Json* spec = VolField(pod, "spec");
  const Json* volumes = spec != nullptr ? VolField(*spec, "volumes") : nullptr;
  const std::string cpath = "spec.containers[" + VolString(container, "name") + "]";
  for (size_t i = 0; i < mounts->size(); ++i) {
    const Json& m = (*mounts)[i];
    const std::string mpath = cpath + ".volumeMounts[" + std::to_string(i) + "]";
    std::string mount_path = VolString(m, "mountPath");
    while (mount_path.size() > 1 && mount_path.back() == '/') mount_path.pop_back();
    const std::string name = VolString(m, "name");
    const Json* volume = nullptr;
    if (volumes != nullptr && volumes->is_array()) {
      for (const Json& v : *volumes) {
        if (VolString(v, "name") == name) volume = &v;
      }
    }
    std::string host;
    if (volume == nullptr) {
      out.warnings.push_back(mpath + ": no volume named " + Json(name).dump() + "; " + mount_path +
                             " is left as written");
      continue;
    }
    if (VolField(*volume, "configMap") || VolField(*volume, "secret") ||
        VolField(*volume, "emptyDir")) {
      host = volumes_dir + "/" + name;
    } else if (const Json* hp = VolField(*volume, "hostPath")) {
      host = VolString(*hp, "path");
    } else {
      std::string type = "this type";
      for (const auto& [key, value] : volume->items()) {
        if (key != "name") type = key;
      }
      out.warnings.push_back(mpath + ": " + type + " volumes are not available to local pods; " +
                             mount_path + " is left as written");
      continue;
    }
    if (mount_path.empty() || mount_path == "/" || mount_path[0] != '/') {
      out.warnings.push_back(mpath + ".mountPath: " + Json(mount_path).dump() +
                             " cannot be mapped locally (it must be an absolute path other than "
                             "/); left as written");
      continue;
    }
    const std::string sub = VolString(m, "subPath");
    if (!sub.empty()) {
      if (!IsInnerPath(sub)) {
        out.warnings.push_back(mpath + ".subPath: " + Json(sub).dump() +
                               " leaves the volume; the mount is left as written");
        continue;
      }
      host += "/" + sub;
    }
    if (VolField(m, "subPathExpr") != nullptr) {
      out.warnings.push_back(
          mpath + ".subPathExpr: not supported locally; the whole volume is at " + mount_path);
    }
    out.mounts.push_back({mount_path, host});
  }
  return out;
}

std::string RewriteMountPaths(const std::string& text, const std::vector<MountPoint>& mounts) {
  if (mounts.empty()) return text;
  std::vector<const MountPoint*> longest_first;
  for (const MountPoint& m : mounts) {
    if (!m.mount_path.empty()) longest_first.push_back(&m);
  }
  std::stable_sort(longest_first.begin(), longest_first.end(),
                   [](const MountPoint* a, const MountPoint* b) {
                     return a->mount_path.size() > b->mount_path.size();
                   });
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const bool starts_path = i == 0 || !(IsPathNameChar(text[i - 1]) || text[i - 1] == '/');
    const MountPoint* hit = nullptr;
    if (starts_path && text[i] == '/') {
      for (const MountPoint* m : longest_first) {
        const std::string& p = m->mount_path;
        if (text.compare(i, p.size(), p) != 0) continue;
        const size_t end = i + p.size();
        if (end == text.size() || text[end] == '/' || !IsPathNameChar(text[end])) {
          hit = m;
          break;
        }
      }
    }
    if (hit != nullptr) {
      out += hit->host_path;
      i += hit->mount_path.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

Status WriteVolumes(const std::string& volumes_dir, const std::vector<VolumeContent>& volumes,
                    const std::optional<VolumeOwner>& owner) {
  if (volumes.empty()) return Status::Ok();
  KUOTA_RETURN_IF_ERROR(runtime::MakeDirs(volumes_dir, 0700));
  // Traversable, not listable, by the user the pod runs as.
  if (::chmod(volumes_dir.c_str(), 0711) != 0) {
    return VolError("cannot set the mode of", volumes_dir, errno);
  }
  for (const VolumeContent& v : volumes) {
    if (!IsFileName(v.name)) return Status::Invalid("volume name " + Json(v.name).dump());
    const std::string final_dir = volumes_dir + "/" + v.name;
    const std::string tmp = volumes_dir + "/." + v.name + ".tmp";
    std::error_code ec;
    std::filesystem::remove_all(tmp, ec);
    KUOTA_RETURN_IF_ERROR(WriteVolumeDir(tmp, v, owner));
    std::filesystem::remove_all(final_dir, ec);  // removes links, never what they point to
    if (::rename(tmp.c_str(), final_dir.c_str()) != 0) {
      return VolError("cannot rename " + tmp + " to", final_dir, errno);
    }
  }
  return Status::Ok();
}

}  // namespace kuota::standalone
