#include "server/pod_logs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/time.h"
#include "server/json_fields.h"
#include "server/resource_info.h"
#include "server/status_errors.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

constexpr size_t kChunkBytes = 64 << 10;
// How much of what a follow has passed it remembers, to find its place again
// after the file was truncated or replaced.
constexpr size_t kSeenBytes = 1024;
constexpr size_t kMinOverlap = 8;

// The reply's media type. A follow names it with a capital letter: media types
// are case-insensitive, but the HTTP library only gzips "text/..." (which would
// hold a live stream back until its compressor's buffer fills).
constexpr const char* kTextPlain = "text/plain";
constexpr const char* kTextPlainStream = "Text/plain; charset=utf-8";

// An owned file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// The request's parameters (kube's PodLogOptions).
struct LogQuery {
  std::string container;
  bool follow = false;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  std::optional<int64_t> since_seconds;  // sinceTime is turned into this
};

bool ParseInt(const std::string& text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// A boolean query parameter: "true"/"1" or "false"/"0"/"" (absent).
std::optional<ApiError> ParseBool(const HttpRequest& request, const std::string& key, bool* out) {
  const std::string& v = request.Query(key);
  if (v.empty() || v == "false" || v == "0") {
    *out = false;
  } else if (v == "true" || v == "1") {
    *out = true;
  } else {
    return BadRequestError(key + ": Invalid value: \"" + v + "\": want true or false");
  }
  return std::nullopt;
}

// An integer query parameter that must be >= `min` when present.
std::optional<ApiError> ParseBounded(const HttpRequest& request, const std::string& key,
                                     int64_t min, std::optional<int64_t>* out) {
  if (!request.HasQuery(key)) return std::nullopt;
  const std::string& v = request.Query(key);
  int64_t n = 0;
  if (!ParseInt(v, &n)) {
    return BadRequestError(key + ": Invalid value: \"" + v + "\": want an integer");
  }
  if (n < min) {
    return BadRequestError(key + ": Invalid value: " + v + ": must be greater than or equal to " +
                           std::to_string(min));
  }
  *out = n;
  return std::nullopt;
}

std::optional<ApiError> ParseQuery(const HttpRequest& request, LogQuery* q) {
  q->container = request.Query("container");
  if (auto e = ParseBool(request, "follow", &q->follow)) return e;
  bool previous = false;
  if (auto e = ParseBool(request, "previous", &previous)) return e;
  if (previous) {
    return BadRequestError(
        "previous=true is not supported: kuota keeps only the log of a container's current "
        "instance");
  }
  if (auto e = ParseBounded(request, "tailLines", 0, &q->tail_lines)) return e;
  if (auto e = ParseBounded(request, "limitBytes", 1, &q->limit_bytes)) return e;
  if (auto e = ParseBounded(request, "sinceSeconds", 1, &q->since_seconds)) return e;
  if (request.HasQuery("sinceTime")) {
    if (q->since_seconds) {
      return BadRequestError("at most one of sinceTime or sinceSeconds may be specified");
    }
    Result<Time> since = ParseRfc3339(request.Query("sinceTime"));
    if (!since.ok()) {
      return BadRequestError("sinceTime: Invalid value: \"" + request.Query("sinceTime") +
                             "\": " + since.status().message());
    }
    Duration ago = RealClock().Now() - *since;
    q->since_seconds = std::max<int64_t>(1, ago.ms / 1000);
  }
  return std::nullopt;
}

std::vector<std::string> ContainerNames(const Json& pod, const char* field) {
  std::vector<std::string> names;
  const Json* list = FindField(pod, {"spec", field});
  if (list == nullptr || !list->is_array()) return names;
  for (const Json& c : *list) {
    if (c.is_object() && c.contains("name") && c["name"].is_string()) {
      names.push_back(c["name"].get<std::string>());
    }
  }
  return names;
}

std::string BracketList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

// The status entry of container `name` (containerStatuses or
// initContainerStatuses), or nullptr.
const Json* ContainerStatus(const Json& pod, const std::string& name) {
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    const Json* list = FindField(pod, {"status", field});
    if (list == nullptr || !list->is_array()) continue;
    for (const Json& s : *list) {
      if (s.is_object() && s.value("name", "") == name) return &s;
    }
  }
  return nullptr;
}

bool PodFinished(const Json& pod) {
  const std::string phase = StringField(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

bool ContainerTerminated(const Json& pod, const std::string& container) {
  const Json* s = ContainerStatus(pod, container);
  return s != nullptr && FindField(*s, {"state", "terminated"}) != nullptr;
}

// A name safe to use as one path component.
bool SafeComponent(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos;
}

// Reads up to `n` bytes at `offset`; the bytes read (fewer at EOF or on error).
std::string ReadAt(int fd, int64_t offset, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

int64_t FileSize(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  return static_cast<int64_t>(st.st_size);
}

// The offset where the last `lines` lines of the first `size` bytes begin (a
// final line without a newline counts).
int64_t TailStart(int fd, int64_t size, int64_t lines) {
  if (lines == 0) return size;
  int64_t pos = size;
  int64_t newlines = 0;
  // A newline ending the file closes the last line; it does not start one.
  if (size > 0 && ReadAt(fd, size - 1, 1) == "\n") pos = size - 1;
  while (pos > 0) {
    int64_t begin = std::max<int64_t>(0, pos - static_cast<int64_t>(kChunkBytes));
    std::string block = ReadAt(fd, begin, static_cast<size_t>(pos - begin));
    if (static_cast<int64_t>(block.size()) != pos - begin) return 0;
    for (size_t i = block.size(); i-- > 0;) {
      if (block[i] == '\n' && ++newlines == lines) return begin + static_cast<int64_t>(i) + 1;
    }
    pos = begin;
  }
  return 0;
}

// Where one log reply stands in its file.
struct LogCursor {
  std::string path;
  UniqueFd fd;
  dev_t dev = 0;
  ino_t ino = 0;
  static constexpr int64_t kAwaitingContent = -1;  // `offset` of an emptied file
  int64_t offset = 0;
  int64_t last_size = -1;
  std::string seen;         // the file's last <= kSeenBytes bytes before `offset`
  int64_t limit_left = -1;  // bytes the reply may still carry; -1: no limit
  int64_t end = -1;         // stop at this offset (not following); -1: no end

  void Remember(std::string_view bytes) {
    if (bytes.size() >= kSeenBytes) {
      seen.assign(bytes.substr(bytes.size() - kSeenBytes));
      return;
    }
    seen.append(bytes);
    if (seen.size() > kSeenBytes) seen.erase(0, seen.size() - kSeenBytes);
  }

  // After truncation or replacement, finds where to go on. A cap that keeps
  // the tail leaves a file that starts with a suffix of the old one:
  //  - when it still holds all of `seen`, continue after its first occurrence;
  //  - else when it starts with the end of `seen`, continue after that part;
  //  - else everything in it is new: start from 0.
  // Nothing is lost; little is repeated (only with repetitive logs).
  void Reposition() {
    int64_t size = FileSize(fd.get());
    if (size == 0 && !seen.empty()) {
      // Emptied, most likely by a writer about to write again: wait for
      // content before judging what is new, keeping what was seen.
      offset = kAwaitingContent;
      last_size = 0;
      return;
    }
    int64_t found = -1;
    if (!seen.empty() && size >= static_cast<int64_t>(seen.size())) {
      const size_t overlap = seen.size() - 1;
      std::string window;
      int64_t window_start = 0;
      for (int64_t pos = 0; pos < size && found < 0;) {
        std::string block = ReadAt(fd.get(), pos, kChunkBytes * 16);
        if (block.empty()) break;
        pos += static_cast<int64_t>(block.size());
        window += block;
        size_t at = window.find(seen);
        if (at != std::string::npos) {
          found = window_start + static_cast<int64_t>(at + seen.size());
        } else if (window.size() > overlap) {
          window_start += static_cast<int64_t>(window.size() - overlap);
          window.erase(0, window.size() - overlap);
        }
      }
    }
    if (found < 0 && !seen.empty()) {
      // The longest end of `seen` the file starts with; short overlaps are
      // likely chance ("\n"), so at least kMinOverlap bytes.
      const size_t max_len = static_cast<size_t>(
          std::min<int64_t>(static_cast<int64_t>(seen.size()), std::max<int64_t>(size, 0)));
      const std::string head = ReadAt(fd.get(), 0, max_len);
      for (size_t len = head.size(); len >= std::min(kMinOverlap, seen.size()) && len > 0; --len) {
        if (seen.compare(seen.size() - len, len, head, 0, len) == 0) {
          found = static_cast<int64_t>(len);
          break;
        }
      }
    }
    if (found >= 0) {
      offset = found;
    } else {
      offset = 0;
      seen.clear();
    }
    last_size = size;
  }

  // Notices a file replaced at `path` or truncated in place.
  void Resync() {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && (st.st_ino != ino || st.st_dev != dev)) {
      UniqueFd replacement(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
      struct stat rst;
      if (replacement.valid() && ::fstat(replacement.get(), &rst) == 0) {
        fd = std::move(replacement);
        dev = rst.st_dev;
        ino = rst.st_ino;
        Reposition();
        return;
      }
    }
    int64_t size = FileSize(fd.get());
    if (size < 0 || size == last_size) return;
    if (offset == kAwaitingContent || size < offset) {
      Reposition();
      return;
    }
    if (!seen.empty()) {
      const int64_t at = offset - static_cast<int64_t>(seen.size());
      if (ReadAt(fd.get(), at, seen.size()) != seen) {
        Reposition();  // rewritten in place and grown past where we were
        return;
      }
    }
    last_size = size;
  }

  // Writes what the file holds after `offset`. False when the reply must end
  // (the client is gone, or limitBytes is reached).
  bool Pump(const ChunkWriter& write) {
    while (true) {
      if (offset == kAwaitingContent) return true;
      if (end >= 0 && offset >= end) return false;
      size_t want = kChunkBytes;
      if (limit_left >= 0) want = static_cast<size_t>(std::min<int64_t>(want, limit_left));
      if (end >= 0) want = static_cast<size_t>(std::min<int64_t>(want, end - offset));
      if (want == 0) return limit_left != 0 && end < 0;
      // Re-reads what was seen last with the new bytes, in one read: a file
      // rewritten since Resync looked must not be read at the old offset.
      const size_t back =
          static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(seen.size()), offset));
      std::string bytes = ReadAt(fd.get(), offset - static_cast<int64_t>(back), back + want);
      if (bytes.size() < back || bytes.compare(0, back, seen, seen.size() - back, back) != 0) {
        Reposition();
        continue;
      }
      std::string chunk = bytes.substr(back);
      if (chunk.empty()) return true;
      if (!write(chunk)) return false;
      offset += static_cast<int64_t>(chunk.size());
      if (limit_left >= 0) limit_left -= static_cast<int64_t>(chunk.size());
      Remember(chunk);
    }
  }
};

}  // namespace

PodLogs::PodLogs(store::ObjectStore& store, PodLogOptions options)
    : store_(store), options_(std::move(options)) {}

bool PodLogs::ParsePath(std::string_view path, std::string* ns, std::string* name) {
  std::vector<std::string_view> p;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > pos) p.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  if (p.size() != 7 || p[0] != "api" || p[1] != "v1" || p[2] != "namespaces" || p[4] != "pods" ||
      p[6] != "log") {
    return false;
  }
  *ns = std::string(p[3]);
  *name = std::string(p[5]);
  return true;
}

void PodLogs::Stop() {
  store::MutexLock lock(&mu_);
  stopping_ = true;
  cv_.SignalAll();
}

bool PodLogs::Stopping() {
  store::MutexLock lock(&mu_);
  return stopping_;
}

bool PodLogs::Sleep(std::chrono::milliseconds d) {
  const auto deadline = SteadyClock::now() + d;
  store::MutexLock lock(&mu_);
  while (!stopping_ && SteadyClock::now() < deadline) cv_.WaitUntil(deadline);
  return !stopping_;
}

bool PodLogs::ContainerFinished(const std::string& ns, const std::string& name,
                                const std::string& uid, const std::string& container) {
  Result<Json> pod = store_.Get("pods", ns, name);
  if (!pod.ok()) return pod.status().code() == StatusCode::kNotFound;
  if (StringField(*pod, {"metadata", "uid"}) != uid) return true;  // deleted and recreated
  return PodFinished(*pod) || ContainerTerminated(*pod, container);
}

HttpReply PodLogs::Serve(const HttpRequest& request, const std::string& ns,
                         const std::string& name) {
  const ResourceInfo& pods = *FindResource("", "pods");
  LogQuery q;
  if (auto e = ParseQuery(request, &q)) return e->ToReply();
  Result<Json> found = store_.Get("pods", ns, name);
  if (!found.ok()) return FromStatus(found.status(), pods, name).ToReply();
  const Json& pod = *found;

  std::vector<std::string> containers = ContainerNames(pod, "containers");
  std::vector<std::string> init = ContainerNames(pod, "initContainers");
  std::string container = q.container;
  if (container.empty()) {
    if (containers.size() == 1) {
      container = containers[0];
    } else if (containers.empty()) {
      return BadRequestError("pod " + name + " has no containers").ToReply();
    } else {
      std::string message = "a container name must be specified for pod " + name +
                            ", choose one of: " + BracketList(containers);
      if (!init.empty()) message += " or one of the init containers: " + BracketList(init);
      return BadRequestError(message).ToReply();
    }
  } else if (std::find(containers.begin(), containers.end(), container) == containers.end() &&
             std::find(init.begin(), init.end(), container) == init.end()) {
    return BadRequestError("container " + container + " is not valid for pod " + name).ToReply();
  }
  if (options_.log_dir.empty()) {
    return BadRequestError("logs of pod \"" + name +
                           "\" are not available: this server keeps no pod logs (it runs no "
                           "pods and has no log directory)")
        .ToReply();
  }
  const std::string uid = StringField(pod, {"metadata", "uid"});
  if (!SafeComponent(uid) || !SafeComponent(container)) {
    return BadRequestError("container " + container + " is not valid for pod " + name).ToReply();
  }

  auto cursor = std::make_shared<LogCursor>();
  cursor->path = options_.log_dir + "/" + uid + "/" + container + ".log";
  cursor->fd = UniqueFd(::open(cursor->path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!cursor->fd.valid()) {
    if (errno != ENOENT) {
      return InternalError("cannot open the log of container \"" + container + "\" in pod \"" +
                           name + "\": " + std::strerror(errno))
          .ToReply();
    }
    if (PodFinished(pod) || ContainerTerminated(pod, container)) {
      HttpReply empty;  // finished without writing a log
      empty.content_type = kTextPlain;
      return empty;
    }
    std::string reason = "ContainerCreating";
    if (const Json* s = ContainerStatus(pod, container)) {
      reason = StringField(*s, {"state", "waiting", "reason"}, reason);
    }
    return BadRequestError("container \"" + container + "\" in pod \"" + name +
                           "\" is waiting to start: " + reason)
        .ToReply();
  }
  struct stat st;
  if (::fstat(cursor->fd.get(), &st) != 0) {
    return InternalError("cannot stat " + cursor->path + ": " + std::strerror(errno)).ToReply();
  }
  cursor->dev = st.st_dev;
  cursor->ino = st.st_ino;
  const int64_t size = static_cast<int64_t>(st.st_size);
  cursor->last_size = size;
  int64_t start = 0;
  if (q.since_seconds) {
    // Lines carry no timestamps: a log last written before the window has
    // nothing in it; otherwise all of it is shown.
    auto mtime = std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec);
    if (mtime < std::chrono::system_clock::now() - std::chrono::seconds(*q.since_seconds)) {
      start = size;
    }
  }
  if (q.tail_lines) start = std::max(start, TailStart(cursor->fd.get(), size, *q.tail_lines));
  cursor->offset = start;
  const int64_t seen_from = std::max<int64_t>(0, start - static_cast<int64_t>(kSeenBytes));
  cursor->seen = ReadAt(cursor->fd.get(), seen_from, static_cast<size_t>(start - seen_from));
  if (q.limit_bytes) cursor->limit_left = *q.limit_bytes;

  HttpReply reply;
  if (!q.follow) {
    cursor->end = size;
    reply.content_type = kTextPlain;
    reply.stream = [cursor](const ChunkWriter& write) { cursor->Pump(write); };
    return reply;
  }
  reply.content_type = kTextPlainStream;
  reply.stream = [this, cursor, ns, name, uid, container](const ChunkWriter& write) {
    bool finished = false;
    auto next_check = SteadyClock::now();
    while (true) {
      cursor->Resync();
      if (!cursor->Pump(write)) return;
      if (finished || Stopping()) return;
      const auto now = SteadyClock::now();
      if (now >= next_check) {
        // Checked before the next drain, so bytes written before the
        // container finished still go out.
        finished = ContainerFinished(ns, name, uid, container);
        next_check = now + options_.pod_poll;
        if (finished) continue;
      }
      if (!write(std::string_view())) return;  // the client went away
      if (!Sleep(options_.file_poll)) {
        cursor->Resync();
        cursor->Pump(write);
        return;
      }
    }
  };
  return reply;
}

}  // namespace kuota::server
