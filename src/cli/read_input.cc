#include "cli/read_input.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>

namespace kuota::cli {

Result<std::string> ReadInput(const std::string& path, size_t max_bytes) {
  FILE* f = nullptr;
  bool is_stdin = path == "-";
  if (is_stdin) {
    f = stdin;
  } else {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      return Status::NotFound(path + ": " + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return Status::Invalid(path + ": is a directory, want a file");
    f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return Status::Unavailable(path + ": " + std::strerror(errno));
  }
  std::string out;
  char buf[65536];
  size_t n;
  bool too_large = false;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (out.size() + n > max_bytes) {
      too_large = true;
      break;
    }
    out.append(buf, n);
  }
  bool err = std::ferror(f);
  if (!is_stdin) std::fclose(f);
  if (too_large) {
    return Status::TooLarge(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  if (err) return Status::Unavailable(path + ": read error");
  return out;
}

}  // namespace kuota::cli
