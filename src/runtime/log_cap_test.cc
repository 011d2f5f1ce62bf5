#include "runtime/log_cap.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "runtime/process_state.h"
#include "runtime/runtime_test_util.h"
#include "runtime/spawn.h"

namespace kuota::runtime {
namespace {

using testing::ReadFileOrEmpty;
using testing::WriteFile;

int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

std::string Lines(int from, int to) {
  std::string out;
  char buf[32];
  for (int i = from; i < to; ++i) {
    std::snprintf(buf, sizeof buf, "line %05d\n", i);  // 11 bytes
    out += buf;
  }
  return out;
}

// Whether the file system under `path` can collapse ranges (ext4, xfs).
bool CollapseSupported(const std::string& path) {
  WriteFile(path, std::string(3 * 65536, 'x'));
  int fd = open(path.c_str(), O_RDWR);
  if (fd < 0) return false;
  bool ok = fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 65536) == 0;
  close(fd);
  unlink(path.c_str());
  return ok;
}

class LogCapTest : public testing::RuntimeTest {};

TEST_F(LogCapTest, SmallOrMissingFilesAreLeftAlone) {
  EXPECT_TRUE(EnforceLogCap(Path("missing.log"), 4096).ok());
  WriteFile(Path("a.log"), Lines(0, 100));
  EXPECT_TRUE(EnforceLogCap(Path("a.log"), 4096).ok());
  EXPECT_EQ(ReadFileOrEmpty(Path("a.log")), Lines(0, 100));
  Status s = EnforceLogCap(Path("a.log"), 10);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_NE(s.message().find("below the minimum 1024"), std::string::npos) << s.message();
}

// Splits a capped log into the header's count and the body after it.
std::pair<int64_t, std::string> SplitHeader(const std::string& text) {
  std::string prefix = "[kuota: log truncated, ";
  std::string suffix = " earlier bytes dropped]\n";
  if (text.substr(0, prefix.size()) != prefix) return {-1, text};
  size_t nl = text.find('\n');
  if (nl == std::string::npos || nl + 1 < suffix.size() ||
      text.substr(nl + 1 - suffix.size(), suffix.size()) != suffix) {
    return {-1, text};
  }
  return {std::stoll(text.substr(prefix.size())), text.substr(nl + 1)};
}

// Caps `path` at 20000 bytes: the file is then within the cap and its
// header's count of dropped bytes and its body add up to `total`; `body` gets
// the body.
void CapAt20000(const std::string& path, int64_t total, std::string& body) {
  ASSERT_TRUE(EnforceLogCap(path, 20000).ok());
  std::string text = ReadFileOrEmpty(path);
  EXPECT_LE(text.size(), 20000u);
  auto [dropped, kept] = SplitHeader(text);
  ASSERT_GE(dropped, 0) << text.substr(0, 80);
  EXPECT_EQ(dropped + static_cast<int64_t>(kept.size()), total);
  body = kept;
}

TEST_F(LogCapTest, KeepsTheTailBehindAHeaderCountingEveryDroppedByte) {
  std::string path = Path("b.log");
  std::string all = Lines(0, 10000);  // 110000 bytes
  WriteFile(path, all);
  std::string body;
  ASSERT_NO_FATAL_FAILURE(CapAt20000(path, 110000, body));
  EXPECT_GE(body.size(), 10000u - 64);  // at least max/2, less the header at most
  EXPECT_EQ(body, all.substr(all.size() - body.size()));

  // More output, another truncation: the count includes the first one.
  std::string more = Lines(10000, 11000) + Lines(0, 364);  // 15004 bytes
  {
    FILE* f = std::fopen(path.c_str(), "a");
    ASSERT_NE(f, nullptr);
    std::fwrite(more.data(), 1, more.size(), f);
    std::fclose(f);
  }
  ASSERT_NO_FATAL_FAILURE(CapAt20000(path, 110000 + 15004, body));
  std::string whole = all + more;
  EXPECT_EQ(body, whole.substr(whole.size() - body.size()));
}

TEST_F(LogCapTest, SmallCapUsesTheCopyPathWithTheSameInvariant) {
  // max 2000: whole-block collapsing cannot keep within the cap, so the tail
  // is copied: exactly max/2 bytes stay behind the header.
  std::string path = Path("c.log");
  std::string all = Lines(0, 1000);  // 11000 bytes
  WriteFile(path, all);
  ASSERT_TRUE(EnforceLogCap(path, 2000).ok());
  std::string text = ReadFileOrEmpty(path);
  auto [dropped, body] = SplitHeader(text);
  EXPECT_EQ(dropped, 10000);
  EXPECT_EQ(body, all.substr(10000));
}

TEST_F(LogCapTest, FastRealWriterNeverGrowsPastTheCapForLong) {
  constexpr int64_t kCap = 1 << 20;
  constexpr int64_t kBurst = 3000000;  // 200,000 lines of 15 bytes
  constexpr int64_t kBursts = 15;
  constexpr int64_t kTotal = kBurst * kBursts;
  ProcessSpec spec;
  // Bursts as fast as `yes` goes, with short pauses between them.
  spec.argv = {"sh", "-c",
               "i=0; while [ $i -lt " + std::to_string(kBursts) +
                   " ]; do yes kuota-log-line | head -c " + std::to_string(kBurst) +
                   "; sleep 0.02; i=$((i+1)); done"};
  spec.log_path = Path("fast.log");
  spec.exit_path = Path("fast.exit");
  auto h = Spawn(spec);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  int64_t largest = 0;
  int caps = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!Inspect(*h, spec.exit_path).finished() && std::chrono::steady_clock::now() < deadline) {
    largest = std::max(largest, FileSize(spec.log_path));
    ASSERT_TRUE(EnforceLogCap(spec.log_path, kCap).ok());
    ++caps;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(Inspect(*h, spec.exit_path).ToString(), "exited 0");
  ASSERT_TRUE(EnforceLogCap(spec.log_path, kCap).ok());
  std::string text = ReadFileOrEmpty(spec.log_path);
  EXPECT_LE(static_cast<int64_t>(text.size()), kCap);
  // Capping ran while the command wrote: the file never held all its output
  // (how far below depends on scheduling; typically a burst or two).
  EXPECT_LT(largest, kTotal);
  // Header, then the tail of the output: complete lines up to the last one.
  auto [dropped, body] = SplitHeader(text);
  ASSERT_GE(dropped, 0) << text.substr(0, 80);
  int64_t kept = static_cast<int64_t>(body.size());
  EXPECT_LE(dropped + kept, kTotal);
  EXPECT_EQ(text.substr(text.size() - 15), "kuota-log-line\n");
  if (CollapseSupported(Path("probe"))) {
    // Lossless: every byte is either counted as dropped or still there, and
    // after the first partial line the body is whole lines.
    EXPECT_EQ(dropped + kept, kTotal);
    size_t first = body.find('\n') + 1;
    for (size_t i = first; i < body.size(); i += 15) {
      ASSERT_EQ(body.substr(i, 15), "kuota-log-line\n") << "at byte " << i;
    }
  } else {
    // The copy path may lose what is appended during a truncate.
    EXPECT_GT(dropped + kept, kTotal - kCap);
  }
  RecordProperty("caps", caps);
  RecordProperty("largest_bytes", std::to_string(largest));
  RecordProperty("lost_bytes", std::to_string(kTotal - dropped - kept));
  std::printf("log cap: %d caps, largest %lld bytes, lost %lld bytes\n", caps,
              static_cast<long long>(largest), static_cast<long long>(kTotal - dropped - kept));
}

}  // namespace
}  // namespace kuota::runtime
