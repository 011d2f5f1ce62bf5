// kuotad: the standalone driver. Opens the SQLite store in a data directory,
// serves the Kubernetes-style API on loopback (TLS, authenticated, RBAC; a
// Unix socket for `kuota login`), runs the engine controller, and writes the
// admin's kubeconfig for kubectl. Options is a plain struct with defaults.
// Run() blocks until SIGINT/SIGTERM (or Shutdown()); thread-safe to Shutdown.
#pragma once

#include <string>

#include "base/status.h"
#include "control/multikueue_remote.h"

namespace kuota::standalone {

struct KuotadOptions {
  // Where the database and the kubeconfig live. Empty: $XDG_STATE_HOME/kuota,
  // else ~/.local/state/kuota.
  std::string data_dir;
  std::string address = "127.0.0.1";  // loopback by default
  int port = 8080;                    // 0: any free port
  // >= 0: also answer /healthz, /readyz and /livez on this port (0: any
  // free port) with threads of their own; -1: only on `port`.
  int health_port = -1;
  // Kueue manager Configuration file (config.kueue.x-k8s.io/v1beta1); optional.
  std::string config_file;
  // Opens a MultiKueue worker from its kubeconfig (kube::OpenRemoteCluster,
  // given by main); unset: kuotad is no MultiKueue manager.
  control::RemoteClusterFactory multikueue_remotes;
  // Where to write the kubeconfig; empty: <data_dir>/kubeconfig.
  std::string kubeconfig_path;
  // fsync every commit (turning this off is for benchmarks only).
  bool sync = true;
  // Print one line per scheduling decision to stderr.
  bool verbose = false;
  // Run admitted pods as local processes (the local runtime). Off: kuotad
  // only queues and admits; pods stay Pending as on a cluster with no nodes.
  bool run_pods = true;
  // >= 0: this many GPUs instead of asking NVML (machines without NVML, tests).
  int gpus = -1;
  // > 0: this many fake GPUs, with changing readings on /metrics (DCGM_*
  // series) — the GPU telemetry path without a GPU, for tests and demos.
  int fake_gpus = 0;
  // Non-empty: how the declared GPUs (gpus / fake_gpus) connect, e.g.
  // "nvlink=0-3,4-7;numa=0-3,4-7" (runtime/gpu_topology_spec.h); pods get
  // the closest free GPUs by it. Empty: NVML's topology, or none declared.
  std::string gpu_topology;
  // Non-empty: this much CPU / memory (Kubernetes quantities) for placing
  // pods instead of what the machine reports (a shared or overcommitted box).
  std::string cpus;
  std::string memory;
  // Enforce CPU and memory limits with cgroup v2 where the machine allows.
  bool cgroups = true;
  // A pod container's log is cut back to half of this when it grows past it.
  int64_t max_log_bytes = int64_t{64} << 20;
  // Serve plain HTTP without authentication: every request is the admin's
  // and pods run as kuotad's user. Off (the default): TLS with a CA
  // generated in <data_dir>/pki, bearer tokens, RBAC, pods run as their
  // submitter.
  bool insecure_http = false;
  // The Unix socket `kuota login` talks to; empty: /run/kuota/kuotad.sock
  // for root on the default data dir, else <data_dir>/kuotad.sock.
  std::string socket_path;
  // Only store and serve objects, as a kube-apiserver with Kueue's CRDs
  // would: no engine, no job controllers, no pods run, no Kueue webhooks
  // (jobs are not suspended on create). For driving `kuotad --kubeconfig`
  // (the Kubernetes mode) against kuotad where no cluster can run.
  bool serve_only = false;
  // With serve_only: a Kueue kind whose applied CRD asks for a conversion
  // webhook is converted by calling it, as kube-apiserver does; a
  // clientConfig.service is reached at this address (the port is the
  // Service's), its certificate checked against NAME.NAMESPACE.svc.
  std::string service_address = "127.0.0.1";
};

// The default data directory for this user.
std::string DefaultDataDir();

// Runs kuotad until a termination signal. Returns an error when it cannot
// start (bad config, data dir not writable, port taken).
Status RunKuotad(const KuotadOptions& options);

}  // namespace kuota::standalone
