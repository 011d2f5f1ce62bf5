// Small file and errno helpers over POSIX calls, shared by the local runtime's
// files (reading /proc and cgroup files, writing control files, creating
// directories). Internal to src/runtime. All functions are thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace kuota::runtime {

// strerror text for an errno value ("No such file or directory").
std::string ErrnoText(int err);

// Reads a whole (small) file: /proc, /sys and cgroup files, exit files.
// NotFound when it does not exist, Unavailable on other errors.
Result<std::string> ReadWholeFile(const std::string& path);

// Writes `content` to an existing control file (cgroup or /proc) with one
// write(2), as the kernel wants; no create, no truncate.
Status WriteControlFile(const std::string& path, const std::string& content);

// mkdir -p with `mode` for the directories it creates.
Status MakeDirs(const std::string& path, unsigned mode = 0755);

// The directory part of `path` ("" when it has no '/', "/" for "/x").
std::string DirName(const std::string& path);

// The last component of `path` ("x" for "/a/x", "x" for "/a/x/").
std::string BaseName(const std::string& path);

}  // namespace kuota::runtime
