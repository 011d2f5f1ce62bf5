#include "runtime/os_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/scoped_fd.h"

namespace kuota::runtime {

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r returns the message, which may or may not live in buf.
  return std::string(strerror_r(err, buf, sizeof buf));
}

Result<std::string> ReadWholeFile(const std::string& path) {
  ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    std::string m = path + ": " + ErrnoText(err);
    if (err == ENOENT || err == ENOTDIR) return Status::NotFound(m);
    return Status::Unavailable(m);
  }
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable(path + ": read: " + ErrnoText(errno));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Status WriteControlFile(const std::string& path, const std::string& content) {
  ScopedFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    std::string m = "cannot open " + path + " for writing: " + ErrnoText(err);
    if (err == ENOENT) return Status::NotFound(m);
    return Status::Unavailable(m);
  }
  ssize_t n;
  do {
    n = write(fd.get(), content.data(), content.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return Status::Unavailable("writing \"" + content + "\" to " + path + ": " + ErrnoText(errno));
  }
  if (static_cast<size_t>(n) != content.size()) {
    return Status::Unavailable("short write of \"" + content + "\" to " + path);
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& path, unsigned mode) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) {
        return Status::Unavailable("cannot create directory " + cur + ": " + ErrnoText(errno));
      }
    }
    if (i < path.size()) cur += path[i];
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::Unavailable(path + ": not a directory");
  }
  return Status::Ok();
}

std::string DirName(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  size_t slash = path.rfind('/', end - 1);
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  size_t slash = path.rfind('/', end - 1);
  size_t begin = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(begin, end - begin);
}

}  // namespace kuota::runtime
