#include "base/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kuota {
namespace {

Status Failed(const std::string& what, const std::string& path) {
  return Status::Unavailable("cannot " + what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Status WritePrivateFile(const std::string& path, const std::string& text) {
  return WriteFileAtomically(path, text, 0600);
}

Status WriteFileAtomically(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());  // a leftover may have another mode; O_EXCL below
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Failed("create", tmp);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = Failed("write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  // The umask may have narrowed the mode: be exact.
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    Status s = Failed("write", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  if (::close(fd) != 0) {
    Status s = Failed("write", tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = Failed("replace", path);
    ::unlink(tmp.c_str());
    return s;
  }
  return Status::Ok();
}

}  // namespace kuota
