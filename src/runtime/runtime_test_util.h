// Helpers for the local runtime's tests: a temporary directory removed after
// each test, file reading, and polling until a condition holds or a deadline
// passes. Test-only; single-threaded.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/process_state.h"
#include "runtime/spawn.h"
#include "testing/temp_dir.h"

namespace kuota::runtime::testing {

inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Polls `cond` every 5 ms until it holds (true) or `timeout` passes (false).
inline bool WaitFor(const std::function<bool()>& cond,
                    std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_.emplace("kuota-runtime");
    ASSERT_TRUE(tmp_->ok());
    dir_ = tmp_->path();
  }
  void TearDown() override { tmp_.reset(); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::optional<kuota::testing::TempDir> tmp_;
  std::string dir_;  // tmp_'s path
};

// Reads `fd` to its end (a child's report through a pipe), then closes it.
inline std::string ReadAllAndClose(int fd) {
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

// A RuntimeTest that spawns commands: a spec with the log and exit record
// in the test's directory, and a wait for the command to finish.
class SpawnFixture : public RuntimeTest {
 protected:
  ProcessSpec Spec(std::vector<std::string> argv) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.log_path = Path("logs/pod.log");
    spec.exit_path = Path("state/pod.exit");
    return spec;
  }

  // Polls Inspect until the process finishes (5 s at most).
  ProcessState WaitFinished(const ProcessHandle& h, const std::string& exit_path) {
    ProcessState st;
    WaitFor([&] {
      st = Inspect(h, exit_path);
      return st.finished();
    });
    return st;
  }
};

}  // namespace kuota::runtime::testing
