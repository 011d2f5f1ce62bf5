#include "standalone/kuotad.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <thread>

#include "api/quantity.h"
#include "auth/authenticator.h"
#include "auth/bootstrap_policy.h"
#include "auth/rbac_authorizer.h"
#include "auth/tls_material.h"
#include "auth/token_signer.h"
#include "base/private_file.h"
#include "control/admission_hook.h"
#include "control/config_file.h"
#include "control/controller.h"
#include "control/multikueue_controller.h"
#include "control/provisioning_controller.h"
#include "jobs/registry.h"
#include "jobs/serving_workloads.h"
#include "jobs/volcano_job.h"
#include "metrics/registry.h"
#include "runtime/gpu_telemetry.h"
#include "runtime/gpu_topology_spec.h"
#include "runtime/machine_capacity.h"
#include "runtime/user_lookup.h"
#include "server/api_server.h"
#include "server/kubeconfig.h"
#include "server/storage_upgrade.h"
#include "standalone/app_wrapper_reconciler.h"
#include "standalone/gpu_metrics.h"
#include "standalone/identity_admission.h"
#include "standalone/job_reconciler.h"
#include "standalone/machine_amounts.h"
#include "standalone/pod_runner.h"
#include "standalone/serving_reconciler.h"
#include "standalone/store_metrics.h"
#include "standalone/volcano_queue_reconciler.h"
#include "store/object_store.h"
#include "store/sqlite_object_store.h"

namespace kuota::standalone {
namespace {

volatile std::sig_atomic_t g_stop = 0;  // set only by the signal handler
void OnSignal(int) { g_stop = 1; }

Status MakeDirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) {
        return Status::Unavailable("cannot create directory " + cur + ": " + std::strerror(errno));
      }
    }
    if (i < path.size()) cur += path[i];
  }
  return Status::Ok();
}

// --cpus / --memory: declared amounts replace the discovered ones.
Status DeclareCapacity(const KuotadOptions& options, runtime::MachineCapacity& machine) {
  struct Flag {
    const char* name;
    const std::string& text;
    int64_t milli_per_unit;  // the field's unit, in the quantity's milli-units
    int64_t* field;
  };
  for (const Flag& f : {Flag{"--cpus", options.cpus, 1, &machine.cpu_millis},
                        Flag{"--memory", options.memory, 1000, &machine.memory_bytes}}) {
    if (f.text.empty()) continue;
    Result<api::Quantity> q = api::Quantity::Parse(f.text);
    if (!q.ok() || q->milli() <= 0) {
      return Status::Invalid(std::string(f.name) +
                             ": want a positive quantity (16, 7500m, 64Gi), got \"" + f.text +
                             "\"");
    }
    *f.field = q->milli() / f.milli_per_unit;
    machine.notes.push_back(std::string(f.name + 2) + ": declared " + f.text + " (" + f.name + ")");
  }
  if (!options.gpu_topology.empty()) {
    if (options.fake_gpus <= 0 && options.gpus < 0) {
      return Status::Invalid(
          "--gpu-topology declares how declared GPUs connect: give --gpus N or --fake-gpus N "
          "with it (NVML's GPUs are placed by the topology NVML reports)");
    }
    std::vector<int> indices;
    for (const auto& g : machine.gpus) indices.push_back(g.index);
    Result<runtime::GpuTopology> topology =
        runtime::ParseGpuTopologySpec(options.gpu_topology, indices);
    if (!topology.ok()) {
      return Status::Invalid("--gpu-topology \"" + options.gpu_topology +
                             "\": " + topology.status().message());
    }
    machine.gpu_topology = std::move(*topology);
    machine.notes.push_back("gpu topology: declared " +
                            runtime::FormatGpuTopologySpec(machine.gpu_topology) +
                            " (--gpu-topology)");
  }
  return Status::Ok();
}

// (group, plural) of every job kind, for the bootstrap roles.
std::vector<std::pair<std::string, std::string>> JobResources() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : jobs::JobKinds()) out.emplace_back(k->Info().group, k->Info().plural);
  return out;
}

}  // namespace

std::string DefaultDataDir() {
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return std::string(x) + "/kuota";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/state/kuota";
  return "/tmp/kuota";
}

Status RunKuotad(const KuotadOptions& options) {
  const std::string data_dir = options.data_dir.empty() ? DefaultDataDir() : options.data_dir;
  // Files kuotad makes (database, logs, keys) are its own; users reach what
  // they may through the API.
  ::umask(077);
  KUOTA_RETURN_IF_ERROR(MakeDirs(data_dir));
  const bool secure = !options.insecure_http;
  // Others may reach the socket inside it, nothing else.
  if (secure) ::chmod(data_dir.c_str(), 0711);
  KUOTA_ASSIGN_OR_RETURN(api::Configuration config, control::LoadConfigFile(options.config_file));
  Result<control::JobManagement> management = control::JobManagement::FromConfig(config);
  if (!management.ok()) {
    return management.status().WithContext("config file " + options.config_file);
  }
  RealClock clock;
  store::StoreOptions so;
  so.path = data_dir + "/kuota.db";
  so.sync = options.sync;
  so.clock = &clock;
  // A store an older kuotad wrote (Kueue's kinds as v1beta1) is rewritten
  // as v1beta2 before anything is served; a cut-short upgrade resumes here.
  so.upgrade = &server::UpgradeStoredObject;
  so.upgrade_level = server::kStorageUpgradeLevel;
  so.upgrade_batch = 32;  // small transactions: a kill loses little of the work
  {
    Result<FaultInjector> faults = FaultInjector::FromEnvironment();  // crash tests only
    KUOTA_RETURN_IF_ERROR(faults.status());
    so.after_upgrade_batch = [faults = *faults](int64_t rewritten) {
      std::fprintf(stderr,
                   "kuotad: store upgrade: %lld objects rewritten as kueue.x-k8s.io/v1beta2 so "
                   "far\n",
                   static_cast<long long>(rewritten));
      faults.Reach(FaultPoint::kAfterUpgradeBatch, "");
    };
  }
  KUOTA_ASSIGN_OR_RETURN(std::unique_ptr<store::ObjectStore> store, store::ObjectStore::Open(so));

  runtime::MachineDiscoveryOptions mdo;
  mdo.declared_gpus = options.fake_gpus > 0 ? options.fake_gpus : options.gpus;
  runtime::MachineCapacity machine = runtime::DiscoverMachine(mdo);
  KUOTA_RETURN_IF_ERROR(DeclareCapacity(options, machine));

  metrics::Registry metrics;  // /metrics
  control::ControllerOptions copts;
  copts.metrics = &metrics;
  copts.config = config;
  copts.jobs = *management;
  if (options.run_pods) copts.machine = MachineAmounts(machine);
  control::Controller controller(*store, clock, copts);

  // Who is asking and what they may do (off with --insecure-http).
  std::optional<auth::TlsFiles> tls;
  std::optional<auth::Authenticator> authenticator;
  auth::RbacAuthorizer authorizer(*store);
  const uid_t self = ::geteuid();
  if (secure) {
    KUOTA_ASSIGN_OR_RETURN(auth::TlsFiles files,
                           auth::EnsureTlsMaterial(data_dir + "/pki", {options.address}));
    tls = files;
    KUOTA_ASSIGN_OR_RETURN(auth::TokenSigner signer,
                           auth::TokenSigner::Load(data_dir + "/token-secret"));
    std::vector<uid_t> admins = {0};
    if (self != 0) admins.push_back(self);
    authenticator.emplace(std::move(signer), admins);
    KUOTA_RETURN_IF_ERROR(auth::EnsureObjects(*store, auth::BootstrapPolicy(JobResources())));
    KUOTA_RETURN_IF_ERROR(authorizer.Start());
  }

  control::KuotaAdmissionHook::DefaultQueueLookup default_queue;
  if (!options.serve_only) {
    default_queue = [&store](const std::string& ns) {
      return store->Get("localqueues.kueue.x-k8s.io", ns, control::kDefaultLocalQueueName).ok();
    };
  }
  control::KuotaAdmissionHook::MultiKueueLookup multikueue_queue;
  if (!options.serve_only) {
    multikueue_queue = [&store](const std::string& ns, const std::string& queue) {
      return control::QueueUsesMultiKueue(*store, ns, queue);
    };
  }
  control::KuotaAdmissionHook hook(
      options.serve_only ? control::JobManagement::None() : *management, default_queue,
      multikueue_queue);
  server::ServerOptions sopts;
  sopts.address = options.address;
  sopts.port = options.port;
  sopts.health_port = options.health_port;
  sopts.pod_log_dir = data_dir + "/pods";
  sopts.pending_workloads = options.serve_only ? nullptr : &controller;
  sopts.metrics = &metrics;
  if (options.serve_only) {
    server::CrdWebhookOptions webhooks;
    webhooks.service_address = options.service_address;
    sopts.crd_conversion_webhooks = webhooks;
    // APIServices proxied to their Services, as kube-apiserver's aggregator.
    sopts.aggregation = server::AggregatorOptions{};
    // The admission webhooks that applied webhook configurations register.
    server::WebhookCallOptions admission;
    admission.service_address = options.service_address;
    sopts.admission_webhooks = admission;
  }
  // The socket `kuota login` finds: a root kuotad on its default data dir
  // (under /root, which others cannot enter) uses /run/kuota; else the data dir.
  std::string socket_path = options.socket_path;
  if (socket_path.empty()) {
    socket_path = data_dir + "/kuotad.sock";
    if (self == 0 && options.data_dir.empty()) {
      if (::mkdir("/run/kuota", 0755) == 0 || errno == EEXIST) {
        ::chmod("/run/kuota", 0755);
        socket_path = "/run/kuota/kuotad.sock";
      }
    }
  }
  if (secure) {
    sopts.tls_cert_file = tls->server_cert;
    sopts.tls_key_file = tls->server_key;
    sopts.unix_socket = socket_path;
    sopts.access.authenticator = &*authenticator;
    sopts.access.authorizer = &authorizer;
    sopts.access.ca_pem = tls->ca_pem;
    store::ObjectStore* st_ptr = store.get();
    sopts.access.provision_user = [st_ptr](const auth::UserInfo& user) {
      return auth::EnsureUserNamespace(*st_ptr, user);
    };
  }
  // A pod or job asking for another identity than its submitter's is refused
  // where pods run here (identity_admission.h).
  std::optional<IdentityAdmission> identity;
  server::AdmissionHook* admission = &hook;
  if (!options.serve_only && options.run_pods) {
    identity.emplace(hook, self, runtime::LookUpUser);
    admission = &*identity;
  }
  server::ApiServer api(*store, admission, sopts);
  KUOTA_RETURN_IF_ERROR(api.Start());

  const bool engine = !options.serve_only;
  Status st = engine ? controller.Start() : Status::Ok();
  if (!st.ok()) {
    api.Stop();
    return st;
  }
  // The MultiKueue manager: dispatches to workers (control/multikueue_controller.h).
  std::unique_ptr<control::MultiKueueController> multikueue;
  if (st.ok() && engine && options.multikueue_remotes) {
    control::MultiKueueOptions mko;
    mko.settings = config.multi_kueue;
    mko.controller_namespace = config.namespace_.value_or("kueue-system");
    mko.metrics = &metrics;
    multikueue = std::make_unique<control::MultiKueueController>(*store, clock,
                                                                 options.multikueue_remotes, mko);
    multikueue->Start();
  }
  // Kueue's ProvisioningRequest admission check (control/provisioning_controller.h).
  control::ProvisioningController provisioning(*store, clock);
  if (st.ok() && engine) provisioning.Start();
  JobReconcilerOptions jopts;
  if (options.run_pods) jopts.pod_finalizer = kPodFinalizer;
  JobReconciler jobs(*store, clock, jopts);
  if (engine) st = jobs.Start();
  // AppWrappers: kuotad plays CodeFlare's AppWrapper controller.
  AppWrapperReconciler appwrappers(*store, clock);
  if (st.ok() && engine) st = appwrappers.Start();
  // Deployments and StatefulSets: kuotad plays their controllers.
  ServingReconcilerOptions serving_opts;
  serving_opts.pod_finalizer = jopts.pod_finalizer;
  serving_opts.statefulset_kueue =
      management->frameworks().count(jobs::kStatefulSetFramework) != 0;
  serving_opts.pod_webhook = management->PodIntegrationRuns();
  ServingReconciler serving(*store, clock, serving_opts);
  if (st.ok() && engine) st = serving.Start();
  // Volcano Queues become ClusterQueues when Volcano Jobs are managed.
  VolcanoQueueReconcilerOptions vopts;
  vopts.machine = MachineAmounts(machine);
  VolcanoQueueReconciler volcano_queues(*store, clock, vopts);
  if (st.ok() && engine && management->Enabled(jobs::VolcanoJobKind())) {
    st = volcano_queues.Start();
  }
  std::unique_ptr<PodRunner> runner;
  if (st.ok() && engine && options.run_pods) {
    PodRunnerOptions ropts;
    ropts.pods_dir = data_dir + "/pods";
    ropts.machine = machine;
    ropts.use_cgroups = options.cgroups;
    ropts.max_log_bytes = options.max_log_bytes;
    // Authenticated: every pod runs as the user who submitted it.
    ropts.require_submitter = secure;
    auto faults = FaultInjector::FromEnvironment();  // crash tests only
    if (faults.ok()) {
      ropts.faults = *faults;
      if (faults->armed()) {
        std::fprintf(stderr, "kuotad: %s=%s: will kill itself there\n", kFaultPointEnv,
                     faults->ToString().c_str());
      }
    } else {
      st = faults.status();
    }
    if (st.ok()) {
      runner = std::make_unique<PodRunner>(*store, clock, ropts);
      st = runner->Start();
    }
  }
  if (!st.ok()) {
    if (runner) runner->Stop();
    if (multikueue) multikueue->Stop();
    serving.Stop();
    jobs.Stop();
    controller.Stop();
    api.Stop();
    return st;
  }
  // GPU readings on /metrics: NVML's GPUs, or the fake ones (--fake-gpus).
  std::unique_ptr<runtime::GpuTelemetry> telemetry;
  if (options.fake_gpus > 0) {
    telemetry = std::make_unique<runtime::FakeGpuTelemetry>(options.fake_gpus);
  } else if (options.gpus < 0 && !machine.gpus.empty()) {
    Result<std::unique_ptr<runtime::NvmlTelemetry>> nvml =
        runtime::NvmlTelemetry::Load(runtime::kNvmlLibrary);
    if (nvml.ok()) {
      telemetry = std::move(*nvml);
    } else {
      std::fprintf(stderr, "kuotad: no GPU readings on /metrics: %s\n",
                   nvml.status().message().c_str());
    }
  }
  GpuMetrics gpu_metrics(*store, telemetry.get(), runner ? &runner->gpus() : nullptr,
                         static_cast<int>(machine.gpus.size()), machine.hostname);
  metrics.AddCollector([&gpu_metrics] { return gpu_metrics.Collect(); });
  if (auto* sqlite = dynamic_cast<store::SqliteObjectStore*>(store.get())) {
    metrics.AddCollector([sqlite] { return StoreWriteFamilies(sqlite->write_stats()); });
  }
  metrics.AddCollector([] {
    metrics::MetricFamily info;
    info.name = "kuota_build_info";
    info.help = "Kuota's version: 1 for the running one.";
    metrics::Sample sample;
    sample.labels = {{"version", "0.1.0"}};
    sample.value = 1;
    info.samples.push_back(sample);
    return std::vector<metrics::MetricFamily>{info};
  });
  if (runner) {
    std::string gpus = std::to_string(machine.gpus.size()) + " GPU(s)";
    std::fprintf(stderr, "kuotad: running pods on %s: %.3g CPUs, %lld MiB memory, %s\n",
                 machine.hostname.c_str(), static_cast<double>(machine.cpu_millis) / 1000.0,
                 static_cast<long long>(machine.memory_bytes >> 20), gpus.c_str());
    for (const auto& n : machine.notes) std::fprintf(stderr, "kuotad:   %s\n", n.c_str());
    std::fprintf(stderr, "kuotad:   %s\n", runner->LimitsNote().c_str());
  } else if (options.serve_only) {
    std::fprintf(stderr,
                 "kuotad: --serve-only: storing and serving objects only (no scheduling, no job "
                 "controllers, no pods, no Kueue webhooks)\n");
  } else {
    std::fprintf(stderr, "kuotad: not running pods (--no-run-pods)\n");
  }
  const std::string url = std::string(secure ? "https://" : "http://") + options.address + ":" +
                          std::to_string(api.port());
  const std::string kubeconfig =
      options.kubeconfig_path.empty() ? data_dir + "/kubeconfig" : options.kubeconfig_path;
  server::KubeconfigCredentials creds;
  if (secure) {
    creds.ca_pem = tls->ca_pem;
    creds.token = authenticator->IssueToken(self);
    creds.user = "kuota-admin";
  }
  if (Status w = WritePrivateFile(kubeconfig, server::KubeconfigYaml(url, creds)); !w.ok()) {
    std::fprintf(stderr, "kuotad: warning: %s\n", w.message().c_str());
  }
  std::fprintf(stderr,
               "kuotad: serving %s (data: %s)\n"
               "kuotad: kubectl --kubeconfig %s get clusterqueues\n",
               url.c_str(), data_dir.c_str(), kubeconfig.c_str());
  if (secure) {
    std::fprintf(stderr,
                 "kuotad: TLS and authentication on; %s is the admin's (uid %u). Other users: "
                 "`kuota login` (over %s) gives each a kubeconfig and a namespace of their own\n",
                 kubeconfig.c_str(), static_cast<unsigned>(self), socket_path.c_str());
    if (self != 0 && options.run_pods) {
      std::fprintf(stderr,
                   "kuotad: not running as root: only jobs submitted by uid %u can run; other "
                   "users' pods fail (start kuotad as root to run them as their submitters)\n",
                   static_cast<unsigned>(self));
    }
  } else {
    std::fprintf(stderr,
                 "kuotad: WARNING: --insecure-http: plain HTTP, NO authentication: anyone who "
                 "can reach %s can do anything, and pods run as kuotad's user (uid %u)\n",
                 url.c_str(), static_cast<unsigned>(self));
  }
  if (api.health_port() > 0) {
    std::fprintf(stderr, "kuotad: health checks at http://%s:%d/healthz\n", options.address.c_str(),
                 api.health_port());
  }
  std::fflush(stderr);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::fprintf(stderr,
               "kuotad: shutting down (running pods keep running; a restart adopts them)\n");
  if (runner) runner->Stop();
  if (multikueue) multikueue->Stop();
  serving.Stop();
  jobs.Stop();
  api.Stop();
  controller.Stop();
  authorizer.Stop();
  return Status::Ok();
}

}  // namespace kuota::standalone
