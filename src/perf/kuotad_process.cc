#include "perf/kuotad_process.h"

#include "server/kubeconfig.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace kuota::perf {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The URL on the kubeconfig's complete `server: "..."` line, or "".
std::string ServerFromKubeconfig(const std::string& text) {
  const std::string key = "server: ";
  size_t pos = text.find(key);
  if (pos == std::string::npos) return "";
  size_t end = text.find('\n', pos);
  if (end == std::string::npos) return "";  // still being written
  std::string v = text.substr(pos + key.size(), end - pos - key.size());
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

std::string KuotadNextToSelf() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "kuotad";
  return (self.parent_path() / "kuotad").string();
}

Result<std::unique_ptr<KuotadProcess>> KuotadProcess::Start(const KuotadSpawnOptions& options) {
  if (access(options.binary.c_str(), X_OK) != 0) {
    return Status::NotFound("cannot run kuotad at " + options.binary + ": " + std::strerror(errno) +
                            " (build it, or name it with --kuotad PATH)");
  }
  std::string tmpl = (std::filesystem::temp_directory_path() / "kuota-perf-XXXXXX").string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return Status::Unavailable("cannot create a temporary directory: " +
                               std::string(std::strerror(errno)));
  }
  std::unique_ptr<KuotadProcess> p(new KuotadProcess());
  p->temp_dir_ = buf.data();
  p->log_path_ = options.log_path.empty() ? p->temp_dir_ + "/kuotad.log" : options.log_path;
  const std::string kubeconfig = p->temp_dir_ + "/kubeconfig";
  const std::string data_dir = p->temp_dir_ + "/data";
  // --no-run-pods: the benchmark's Workloads have no pods to run (as in
  // Kueue's runner); they finish when the runner marks them Finished.
  std::vector<std::string> args = {options.binary,     "--data-dir", data_dir,       "--port", "0",
                                   "--kubeconfig-out", kubeconfig,   "--no-run-pods"};
  if (!options.sync) args.push_back("--no-sync");
  const int log_fd = open(p->log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return Status::Unavailable("cannot write " + p->log_path_ + ": " + std::strerror(errno));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Status::Unavailable(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: end with the parent, write to the log, become kuotad.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(log_fd);
  p->pid_ = pid;
  const auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!p->Running()) {
      return Status::Unavailable("kuotad exited before it served anything; its log ends:\n" +
                                 p->LogTail());
    }
    const std::string text = ReadFile(kubeconfig);
    std::string url = ServerFromKubeconfig(text);
    if (!url.empty()) {
      // kuotad writes its kubeconfig whole (a rename), so it parses.
      Result<server::KubeconfigTarget> target = server::ParseKubeconfig(text, p->temp_dir_);
      if (!target.ok()) {
        p->Stop();
        return target.status().WithContext(kubeconfig);
      }
      p->url_ = target->url;
      p->ca_pem_ = target->ca_pem;
      p->token_ = target->token;
      return p;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  p->Stop();
  return Status::Unavailable("kuotad wrote no kubeconfig within " +
                             std::to_string(options.start_timeout.count() / 1000) +
                             " s; its log ends:\n" + p->LogTail());
}

KuotadProcess::~KuotadProcess() { Stop(); }

bool KuotadProcess::Running() {
  if (pid_ < 0 || exited_) return false;
  int status = 0;
  rusage ru{};
  const pid_t r = wait4(pid_, &status, WNOHANG, &ru);
  if (r == pid_) {
    exited_ = true;
    cost_.measured = true;
    cost_.user_cpu_s = Seconds(ru.ru_utime);
    cost_.system_cpu_s = Seconds(ru.ru_stime);
    cost_.max_rss_kib = ru.ru_maxrss;
    return false;
  }
  return r == 0;
}

ServerCost KuotadProcess::Stop() {
  if (pid_ >= 0 && !exited_) {
    kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (Running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited_) {
      kill(pid_, SIGKILL);
      int status = 0;
      rusage ru{};
      if (wait4(pid_, &status, 0, &ru) == pid_) {
        exited_ = true;
        cost_.measured = true;
        cost_.user_cpu_s = Seconds(ru.ru_utime);
        cost_.system_cpu_s = Seconds(ru.ru_stime);
        cost_.max_rss_kib = ru.ru_maxrss;
      }
    }
  }
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
    temp_dir_.clear();
  }
  return cost_;
}

std::string KuotadProcess::LogTail() const {
  std::string log = ReadFile(log_path_);
  if (log.size() > 2000) log = "..." + log.substr(log.size() - 2000);
  if (log.empty()) log = "(empty log)";
  return log;
}

}  // namespace kuota::perf
