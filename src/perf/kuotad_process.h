// KuotadProcess: a kuotad of kuota perf's own for a real-time run. Starts the
// kuotad binary on a fresh temporary data directory with --port 0, reads the
// URL from the kubeconfig it writes, and on Stop sends SIGTERM, waits, and
// reports the CPU time and peak memory the process used (as Kueue's runner
// reports minimalkueue's). The temporary directory is removed on Stop.
// Not thread-safe; one owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "base/result.h"
#include "perf/run_record.h"

namespace kuota::perf {

struct KuotadSpawnOptions {
  std::string binary;    // path of the kuotad executable
  bool sync = true;      // false: --no-sync (no fsync per commit)
  std::string log_path;  // kuotad's stdout and stderr go here
  std::chrono::milliseconds start_timeout{30000};
};

// `kuotad` in the directory of the running executable (/proc/self/exe).
std::string KuotadNextToSelf();

class KuotadProcess {
 public:
  // Fails when the binary cannot be run, exits early (the message quotes the
  // end of its log) or writes no kubeconfig within the timeout.
  static Result<std::unique_ptr<KuotadProcess>> Start(const KuotadSpawnOptions& options);
  ~KuotadProcess();
  KuotadProcess(const KuotadProcess&) = delete;
  KuotadProcess& operator=(const KuotadProcess&) = delete;

  const std::string& url() const { return url_; }
  // The CA and the admin's token from the kubeconfig kuotad wrote.
  const std::string& ca_pem() const { return ca_pem_; }
  const std::string& token() const { return token_; }
  pid_t pid() const { return pid_; }
  // True while the process has not exited.
  bool Running();
  // SIGTERM, then SIGKILL after 20 s; returns what it cost. Idempotent (the
  // second call returns the first call's figures).
  ServerCost Stop();

 private:
  KuotadProcess() = default;
  std::string LogTail() const;
  std::string ca_pem_;
  std::string token_;

  pid_t pid_ = -1;
  bool exited_ = false;
  std::string url_;
  std::string temp_dir_;
  std::string log_path_;
  ServerCost cost_;
};

}  // namespace kuota::perf
