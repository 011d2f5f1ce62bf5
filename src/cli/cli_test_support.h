// Test-only helpers for the CLI's tests: a temporary directory, running a
// program as a real process with its output captured, and a real kuotad
// process on a temporary data directory (its URL read from the kubeconfig it
// writes). The binaries come from the build (KUOTA_BIN, KUOTAD_BIN).
// Not thread-safe.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/api_client.h"
#include "testing/temp_dir.h"

extern char** environ;

namespace kuota::cli::testing {

using Json = nlohmann::json;
using namespace std::chrono_literals;

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh kuota-cli-XXXXXX directory, removed at destruction.
class TempDir : public kuota::testing::TempDir {
 public:
  TempDir() : kuota::testing::TempDir("kuota-cli") {}
};

struct ProcessResult {
  int exit_code = -1;  // -1: killed or did not run
  std::string out;
  std::string err;
};

// Environment changes for a child: name -> value, or nullopt to unset.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

inline std::vector<std::string> ChildEnv(const EnvChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    if (changes.count(name) == 0) env.push_back(kv);
  }
  for (const auto& [name, value] : changes) {
    if (value) env.push_back(name + "=" + *value);
  }
  return env;
}

// Starts `argv` with stdout and stderr going to files; returns the pid.
inline pid_t Spawn(const std::vector<std::string>& argv, const EnvChanges& env,
                   const std::string& out_path, const std::string& err_path) {
  std::vector<std::string> env_strings = ChildEnv(env);
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // Only async-signal-safe calls between fork and exec: the test may run threads.
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || null < 0) _exit(126);
    dup2(null, 0);
    dup2(out, 1);
    dup2(err, 2);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  return pid;
}

// Runs `argv` to its end (killed after `timeout`) and captures its output.
inline ProcessResult Run(const std::vector<std::string>& argv, const EnvChanges& env = {},
                         std::chrono::milliseconds timeout = 30s) {
  static int counter = 0;
  const std::string base = std::filesystem::temp_directory_path().string() + "/kuota-cli-run-" +
                           std::to_string(getpid()) + "-" + std::to_string(++counter);
  ProcessResult r;
  pid_t pid = Spawn(argv, env, base + ".out", base + ".err");
  if (pid < 0) return r;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      status = -1;
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = ReadFile(base + ".out");
  r.err = ReadFile(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

// Polls `condition` until it holds or `timeout` passes.
template <typename F>
bool WaitUntil(F condition, std::chrono::milliseconds timeout = 10s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return condition();
}

// A real kuotad on <dir>/state/kuota (so XDG_STATE_HOME=<dir>/state finds its
// kubeconfig), on a free port, without fsync.
class KuotadProcess {
 public:
  explicit KuotadProcess(const std::string& dir) : dir_(dir) {}
  ~KuotadProcess() { Stop(); }

  // Starts it and waits for its kubeconfig; false (with `error()`) on failure.
  bool Start() {
    data_dir_ = dir_ + "/state/kuota";
    std::filesystem::create_directories(data_dir_);
    pid_ = Spawn({KUOTAD_BIN, "--data-dir", data_dir_, "--port", "0", "--no-sync"}, {},
                 dir_ + "/kuotad.out", dir_ + "/kuotad.err");
    if (pid_ < 0) return false;
    const std::string kubeconfig = data_dir_ + "/kubeconfig";
    bool ok = WaitUntil(
        [&] {
          Result<server::KubeconfigTarget> target =
              server::ParseKubeconfig(ReadFile(kubeconfig), data_dir_);
          if (!target.ok()) return false;
          target_ = *target;
          url_ = target->url;
          return true;
        },
        20s);
    return ok;
  }
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 200 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(25ms);
    }
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  std::string log() const { return ReadFile(dir_ + "/kuotad.err"); }
  const std::string& url() const { return url_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string kubeconfig() const { return data_dir_ + "/kubeconfig"; }
  // The server, kuotad's CA and the admin's token from its kubeconfig.
  const server::KubeconfigTarget& target() const { return target_; }

 private:
  std::string dir_;
  std::string data_dir_;
  std::string url_;
  server::KubeconfigTarget target_;
  pid_t pid_ = -1;
};

}  // namespace kuota::cli::testing
