#include "runtime/log_cap.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <vector>

#include "runtime/os_files.h"
#include "runtime/scoped_fd.h"

namespace kuota::runtime {
namespace {

constexpr std::string_view kHeaderPrefix = "[kuota: log truncated, ";
constexpr std::string_view kHeaderSuffix = " earlier bytes dropped]\n";

// The bytes an earlier truncation reported, and its header's length; {0, 0}
// when the file does not start with a header.
std::pair<int64_t, int64_t> ReadOldHeader(int fd) {
  char buf[96];
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  if (n <= 0) return {0, 0};
  std::string_view text(buf, static_cast<size_t>(n));
  if (text.substr(0, kHeaderPrefix.size()) != kHeaderPrefix) return {0, 0};
  text.remove_prefix(kHeaderPrefix.size());
  int64_t dropped = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), dropped);
  if (ec != std::errc()) return {0, 0};
  std::string_view after(ptr, static_cast<size_t>(text.data() + text.size() - ptr));
  if (after.substr(0, kHeaderSuffix.size()) != kHeaderSuffix) return {0, 0};
  int64_t len = static_cast<int64_t>(ptr - buf) + static_cast<int64_t>(kHeaderSuffix.size());
  return {dropped, len};
}

std::string Header(int64_t dropped) {
  return std::string(kHeaderPrefix) + std::to_string(dropped) + std::string(kHeaderSuffix);
}

// Removes whole blocks from the front with FALLOC_FL_COLLAPSE_RANGE (ext4,
// xfs), which the kernel serializes with the command's appends, so nothing is
// lost; then writes the header over the first bytes left. Returns false when
// the file system cannot, or the cap is too small for whole blocks.
bool CollapseFront(int fd, int64_t size, int64_t max_bytes, int64_t blksize, int64_t old_dropped,
                   int64_t old_header, Status* status) {
  int64_t keep = max_bytes / 2;
  if (blksize <= 0 || keep + blksize > max_bytes) return false;
  int64_t len = (size - keep) / blksize * blksize;
  if (len <= old_header || len >= size) return false;
  if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, len) != 0) return false;
  // The header replaces the first bytes left, which count as dropped too.
  int64_t dropped_before = old_dropped + (len - old_header);
  std::string header = Header(dropped_before);
  for (int i = 0; i < 3; ++i) {
    header = Header(dropped_before + static_cast<int64_t>(header.size()));
  }
  if (pwrite(fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
    *status = Status::Unavailable("log cap: write header: " + ErrnoText(errno));
  }
  return true;
}

}  // namespace

Status EnforceLogCap(const std::string& path, int64_t max_bytes) {
  if (max_bytes < 1024) {
    return Status::Invalid("log cap for " + path + ": max_bytes " + std::to_string(max_bytes) +
                           " is below the minimum 1024");
  }
  ScopedFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::Ok();
    return Status::Unavailable("log cap: cannot open " + path + ": " + ErrnoText(errno));
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    return Status::Unavailable("log cap: stat " + path + ": " + ErrnoText(errno));
  }
  int64_t size = st.st_size;
  if (size <= max_bytes) return Status::Ok();
  auto [old_dropped, old_header] = ReadOldHeader(fd.get());

  Status collapsed = Status::Ok();
  if (CollapseFront(fd.get(), size, max_bytes, st.st_blksize, old_dropped, old_header,
                    &collapsed)) {
    return collapsed.WithContext(path);
  }

  // Fallback: copy the tail to the front, then truncate.
  int64_t keep = max_bytes / 2;
  int64_t src = size - keep;  // first byte kept
  // Bytes of the command's output dropped now: the old header is not output.
  int64_t dropped = old_dropped + (src - std::min(old_header, src));
  std::string header = Header(dropped);
  // src >= max_bytes / 2 >= 512 > header size, so the copy runs forward
  // without overwriting bytes it has yet to read.
  if (pwrite(fd.get(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
    return Status::Unavailable("log cap: write " + path + ": " + ErrnoText(errno));
  }
  int64_t dst = static_cast<int64_t>(header.size());
  std::vector<char> buf(1 << 16);
  int64_t end = size;
  // Follow what the command appends meanwhile; a writer faster than the copy
  // is cut off after a few rounds.
  for (int round = 0; round < 8; ++round) {
    while (src < end) {
      size_t want =
          static_cast<size_t>(std::min<int64_t>(end - src, static_cast<int64_t>(buf.size())));
      ssize_t n = pread(fd.get(), buf.data(), want, src);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::Unavailable("log cap: read " + path + ": " + ErrnoText(errno));
      if (n == 0) {
        end = src;
        break;
      }
      ssize_t w = pwrite(fd.get(), buf.data(), static_cast<size_t>(n), dst);
      if (w != n) return Status::Unavailable("log cap: write " + path + ": " + ErrnoText(errno));
      src += n;
      dst += n;
    }
    if (fstat(fd.get(), &st) != 0 || st.st_size <= end) break;
    end = st.st_size;
  }
  if (ftruncate(fd.get(), dst) != 0) {
    return Status::Unavailable("log cap: truncate " + path + ": " + ErrnoText(errno));
  }
  return Status::Ok();
}

}  // namespace kuota::runtime
