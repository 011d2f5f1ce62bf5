// kuotad: the standalone Kuota server (store + API + engine on one machine),
// or with --kubeconfig / --in-cluster the same engine as a controller on a
// Kubernetes cluster.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "base/thread_stack.h"
#include "kube/driver.h"
#include "kube/remote_cluster.h"
#include "standalone/kuotad.h"

int main(int argc, char** argv) {
  // Request threads handle client JSON recursively up to 1,000 levels deep
  // (server::kMaxJsonDepth): room for that in any build, sanitizers included.
  if (kuota::Status st = kuota::SetDefaultThreadStackSize(64u << 20); !st.ok()) {
    std::fprintf(stderr, "kuotad: %s\n", st.message().c_str());
    return 1;
  }
  kuota::standalone::KuotadOptions o;
  CLI::App app{
      "kuotad: Kueue-compatible queueing and quota on one machine.\n"
      "Keeps objects in an embedded SQLite database and serves a Kubernetes-style API\n"
      "that the real kubectl uses: kubectl --kubeconfig <data-dir>/kubeconfig get cq\n"
      "(HTTPS with a CA made in <data-dir>/pki; that kubeconfig is the admin's. Other\n"
      "local users run `kuota login` for a kubeconfig and a namespace of their own;\n"
      "their jobs run as them. RBAC: rbac.authorization.k8s.io/v1, kubectl auth can-i.)\n"
      "Admitted Jobs run here as local processes: a container's command + args (or the\n"
      "program its image names, e.g. .../sleep:latest -> sleep), logs under\n"
      "<data-dir>/pods, GPUs by index via CUDA_VISIBLE_DEVICES.\n"
      "Kubernetes mode (--kubeconfig FILE or --in-cluster): the same engine as a controller\n"
      "on a cluster in place of Kueue's (install: deploy/README.md); pods are the cluster's."};
  app.add_option(
      "--data-dir", o.data_dir,
      "Database and kubeconfig directory (default: " + kuota::standalone::DefaultDataDir() + ")");
  app.add_option("--address", o.address, "Address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "Port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app.add_option("--health-port", o.health_port,
                 "Also answer /healthz, /readyz and /livez on this port (0: any free port), on "
                 "threads of their own, so health checks are answered even while every API "
                 "thread is taken (default: only on --port)")
      ->check(CLI::Range(0, 65535));
  app.add_option(
      "--config", o.config_file,
      "Kueue Configuration file (config.kueue.x-k8s.io/v1beta1 or v1beta2; v1beta2 runs "
      "waitForPodsReady unless featureGates.DisableWaitForPodsReady): fairSharing, "
      "waitForPodsReady, integrations.frameworks, manageJobsWithoutQueueName, multiKueue "
      "(gcInterval, workerLostTimeout, origin, dispatcherName), namespace");
  app.add_option("--kubeconfig-out", o.kubeconfig_path,
                 "Where to write a kubeconfig for kubectl (default: <data-dir>/kubeconfig)");
  app.add_flag("!--no-sync", o.sync,
               "Do not fsync each commit (faster, loses recent writes on power loss)");
  app.add_flag("!--no-run-pods", o.run_pods,
               "Only queue and admit: do not run pods as local processes (pods stay Pending)");
  app.add_option("--gpus", o.gpus, "Declare this many GPUs (indices 0..N-1) instead of asking NVML")
      ->check(CLI::Range(0, 1024));
  app.add_option("--fake-gpus", o.fake_gpus,
                 "Declare this many fake GPUs whose readings (utilization, memory, temperature, "
                 "power) change on /metrics under DCGM-exporter's names: the GPU telemetry path "
                 "without a GPU, for tests and demos")
      ->check(CLI::Range(0, 1024));
  app.add_option("--gpu-topology", o.gpu_topology,
                 "How the GPUs of --gpus or --fake-gpus connect, e.g. "
                 "\"nvlink=0-3,4-7;pcie=0-1,2-3,4-5,6-7;numa=0-3,4-7\" (levels nvlink, pcie, "
                 "hostbridge, numa; groups by ',', '+' within one: 0+2+4-5). A pod asking for k "
                 "GPUs gets k sharing the closest link, best fit (docs/behaviour.md); without "
                 "it, declared GPUs are all equally close. NVML's GPUs are placed by the "
                 "topology NVML reports");
  app.add_option("--cpus", o.cpus,
                 "Declare this much CPU for placing pods (a quantity: 16, 7500m) instead of the "
                 "CPUs this process may use; limits are still enforced per container");
  app.add_option("--memory", o.memory,
                 "Declare this much memory for placing pods (a quantity: 64Gi) instead of "
                 "MemTotal");
  app.add_flag("!--no-cgroups", o.cgroups,
               "Do not enforce CPU and memory limits with cgroup v2 even where possible");
  app.add_option("--max-log-bytes", o.max_log_bytes,
                 "Cut a container's log back to half of this size when it grows past it")
      ->check(CLI::Range(int64_t{4096}, int64_t{1} << 40))
      ->capture_default_str();
  app.add_flag("--insecure-http", o.insecure_http,
               "Serve plain HTTP with NO authentication: anyone who can reach the port can do "
               "anything, and every pod runs as kuotad's user (for a single-user sandbox)");
  app.add_option("--socket", o.socket_path,
                 "Unix socket for `kuota login` and local clients, where the kernel says who is "
                 "calling (default: /run/kuota/kuotad.sock for root on the default data dir, "
                 "else <data-dir>/kuotad.sock)");
  app.add_flag("--serve-only", o.serve_only,
               "Only store and serve objects, like a kube-apiserver with Kueue's CRDs: no "
               "scheduling, no job controllers, no pods, no Kueue webhooks (a stand-in cluster "
               "for the Kubernetes mode's tests). A Kueue CRD applied with spec.conversion "
               "strategy Webhook has its objects converted by that webhook, as kube-apiserver "
               "does");
  app.add_option("--service-address", o.service_address,
                 "With --serve-only: where the Services that CRD conversion webhooks name are "
                 "reached (kube-apiserver would resolve them); the port is the Service's, the "
                 "certificate is checked for NAME.NAMESPACE.svc")
      ->capture_default_str();
  // The Kubernetes mode.
  kuota::kube::DriverOptions k;
  int kube_health_port = 8081;
  auto* kubeconfig = app.add_option(
      "--kubeconfig", k.kubeconfig,
      "Kubernetes mode: manage the cluster this kubeconfig's current context names, as Kueue's "
      "controller does (Kueue's CRDs from deploy/ installed; pods are left to kube-scheduler). "
      "Takes --config, --address, --health-port and the --leader-elect* flags");
  auto* in_cluster = app.add_flag("--in-cluster", k.in_cluster,
                                  "Kubernetes mode with the pod's service account (in a cluster)");
  kubeconfig->excludes(in_cluster);
  app.add_flag("--leader-elect,!--no-leader-elect", k.leader_elect,
               "Kubernetes mode: run the engine only while holding a coordination.k8s.io Lease, "
               "so that one of several replicas admits (default: on)");
  app.add_option("--leader-election-namespace", k.leader_election_namespace,
                 "Kubernetes mode: the Lease's namespace (default: the pod's, else kuota-system)");
  app.add_option("--leader-election-id", k.leader_election_id,
                 "Kubernetes mode: the Lease's name (default: kuota-controller-leader)");
  app.add_option("--webhook-port", k.webhook_port,
                 "Kubernetes mode: serve the CRDs' conversion webhook (HTTPS POST /convert, "
                 "kueue.x-k8s.io v1beta1 <-> v1beta2) and Kueue's admission webhooks "
                 "(/mutate-..., /validate-...) on this port of --address (0: any free port, -1: "
                 "none, and no plain-pod, LeaderWorkerSet, Deployment or StatefulSet "
                 "integration); its certificate is kept in the Secret "
                 "--webhook-secret and its CA set in the Kueue CRDs' and the two webhook "
                 "configurations' caBundle")
      ->check(CLI::Range(-1, 65535))
      ->capture_default_str();
  app.add_option("--webhook-service", k.webhook_service,
                 "Kubernetes mode: the webhook's Service (the certificate is for "
                 "NAME.NAMESPACE.svc)")
      ->capture_default_str();
  app.add_option("--webhook-secret", k.webhook_secret,
                 "Kubernetes mode: the Secret that keeps the webhook's CA and certificate, shared "
                 "by all replicas")
      ->capture_default_str();
  app.add_option("--webhook-namespace", k.webhook_namespace,
                 "Kubernetes mode: the namespace of that Service and Secret (default: the pod's, "
                 "else kuota-system)");
  app.add_option("--lease-duration", k.lease_duration_seconds,
                 "Kubernetes mode: seconds a leader's Lease lasts without renewal (default: the "
                 "config's leaderElection.leaseDuration, else 15)")
      ->check(CLI::Range(1, 3600));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!k.kubeconfig.empty() || k.in_cluster) {
    if (o.serve_only) {
      std::fprintf(stderr, "kuotad: --serve-only and the Kubernetes mode exclude each other\n");
      return 2;
    }
    k.config_file = o.config_file;
    k.address = o.address;
    k.health_port = app.count("--health-port") > 0 ? o.health_port : kube_health_port;
    kuota::Status st = kuota::kube::RunDriver(k);
    if (!st.ok()) {
      std::fprintf(stderr, "kuotad: %s\n", st.message().c_str());
      return 1;
    }
    return 0;
  }
  o.multikueue_remotes = kuota::kube::OpenRemoteCluster;
  kuota::Status st = kuota::standalone::RunKuotad(o);
  if (!st.ok()) {
    std::fprintf(stderr, "kuotad: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}
