// FindOnPath: where a program (kubectl, curl, ...) is on $PATH, for the tests
// that drive a real client and skip or fail plainly when it is missing.
// Header-only, test-only; reads the environment.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace kuota::testing {

// The first executable `program` in a directory of $PATH, or "".
inline std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path == nullptr ? "" : path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace kuota::testing
