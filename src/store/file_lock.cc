#include "store/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace kuota::store {

Result<FileLock> FileLock::Acquire(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status::Unavailable("cannot open lock file " + path + ": " + std::strerror(errno));
  }
  FileLock lock(fd);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      return Status::Unavailable(
          "the file is locked by another process (is another kuotad "
          "using it?): " +
          path + " is held");
    }
    return Status::Unavailable("cannot lock " + path + ": " + std::strerror(errno));
  }
  return lock;
}

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

}  // namespace kuota::store
