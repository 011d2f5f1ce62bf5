// FileLock: an exclusive flock(2) on a lock file, held for the object's
// lifetime, so that one process (and one store in it) owns a database file.
// The lock file is separate from the database so that closing its descriptor
// never drops SQLite's own POSIX locks on the database (closing any descriptor
// of a file drops every POSIX lock the process holds on it). Move-only.
#pragma once

#include <string>

#include "base/result.h"

namespace kuota::store {

class FileLock {
 public:
  // Creates `path` when missing (mode 0600) and locks it without waiting:
  // Unavailable when another holder has it, naming the path.
  static Result<FileLock> Acquire(const std::string& path);

  FileLock() = default;
  ~FileLock();
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace kuota::store
