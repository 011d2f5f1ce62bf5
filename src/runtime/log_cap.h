// Log size cap: keeps a pod's log file (appended to by the running command
// through an O_APPEND descriptor) from filling the disk. The daemon calls
// EnforceLogCap periodically (say every second); between calls a command can
// still write (rate x interval) bytes. Thread-safe for different files; one
// caller at a time per file.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace kuota::runtime {

// When the file at `path` is larger than `max_bytes`, rewrites it in place to
// "[kuota: log truncated, N earlier bytes dropped]\n" followed by the tail of
// the log, where N counts every byte dropped so far (earlier truncations
// included), so N + bytes after the header = all bytes ever written.
//  - Where the file system can (ext4, xfs) and max_bytes >= 2 blocks, whole
//    blocks are cut from the front (FALLOC_FL_COLLAPSE_RANGE), leaving between
//    max_bytes/2 and max_bytes/2 + one block; the kernel orders this with the
//    command's appends, so nothing it writes meanwhile is lost.
//  - Elsewhere (tmpfs, ...) the last max_bytes/2 bytes are copied to the
//    front and the file truncated; bytes appended between the last size check
//    and the truncate (a window of microseconds) are lost.
// A missing file is fine (nothing to do). Invalid when max_bytes < 1024;
// Unavailable on I/O errors.
Status EnforceLogCap(const std::string& path, int64_t max_bytes);

}  // namespace kuota::runtime
