#include "kube/driver.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include <httplib.h>

#include "base/clock.h"
#include "control/config_file.h"
#include "control/controller.h"
#include "control/job_management.h"
#include "control/multikueue_controller.h"
#include "control/provisioning_controller.h"
#include "jobs/leader_worker_set.h"
#include "jobs/pod_kind.h"
#include "jobs/registry.h"
#include "jobs/serving_workloads.h"
#include "kube/admission_webhook.h"
#include "kube/api_service_ca.h"
#include "kube/cluster_target.h"
#include "kube/conversion_webhook.h"
#include "kube/kube_client.h"
#include "kube/kube_object_store.h"
#include "kube/leader_elector.h"
#include "kube/leader_pending_workloads.h"
#include "kube/remote_cluster.h"
#include "kube/request_header_auth.h"
#include "kube/resource_path.h"
#include "kube/subject_access_review.h"
#include "kube/visibility_endpoint.h"
#include "kube/webhook_certs.h"
#include "kube/webhook_configuration_ca.h"
#include "metrics/registry.h"

namespace kuota::kube {
namespace {

volatile std::sig_atomic_t g_signal = 0;  // set only by the signal handler
void OnSignal(int) { g_signal = 1; }

constexpr const char* kKueueResources[] = {
    "resourceflavors.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io",         "localqueues.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",       "workloadpriorityclasses.kueue.x-k8s.io",
    "admissionchecks.kueue.x-k8s.io",
};
constexpr const char* kTopologies = "topologies.kueue.x-k8s.io";
constexpr const char* kMultiKueueClusters = "multikueueclusters.kueue.x-k8s.io";
constexpr const char* kMultiKueueConfigs = "multikueueconfigs.kueue.x-k8s.io";
constexpr const char* kProvisioningRequestConfigs = "provisioningrequestconfigs.kueue.x-k8s.io";
constexpr const char* kProvisioningResources[] = {
    kProvisioningRequestConfigs, "provisioningrequests.autoscaling.x-k8s.io", "podtemplates"};
constexpr const char* kNodes = "nodes";

// What the Configuration file says beyond api::Configuration: Kueue's
// clientConnection and leaderElection blocks.
struct ClusterSettings {
  double qps = 50;
  int burst = 100;
  bool leader_elect = true;
  std::string resource_name, resource_namespace;
  int lease_duration_s = 15, renew_deadline_s = 10, retry_period_s = 2;
};

// "15s", "1m30s", "2m" (a Go duration, whole seconds) or a bare number of seconds.
Result<int> ParseSeconds(const std::string& text, const std::string& field) {
  int total = 0, cur = 0;
  bool digits = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + (c - '0');
      digits = true;
      if (cur > 86400) break;
    } else if ((c == 'h' || c == 'm' || c == 's') && digits) {
      total += cur * (c == 'h' ? 3600 : c == 'm' ? 60 : 1);
      cur = 0;
      digits = false;
    } else {
      return Status::Invalid(field + ": want a duration such as 15s, got \"" + text + "\"");
    }
  }
  total += cur;
  if (total <= 0 || total > 86400) {
    return Status::Invalid(field + ": want a duration between 1s and 24h, got \"" + text + "\"");
  }
  return total;
}

Result<ClusterSettings> ReadClusterSettings(const std::string& path) {
  ClusterSettings s;
  if (path.empty()) return s;
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (YAML::Node cc = root["clientConnection"]; cc && cc.IsMap()) {
      if (cc["qps"]) s.qps = cc["qps"].as<double>();
      if (cc["burst"]) s.burst = cc["burst"].as<int>();
      if (s.qps < 0 || s.burst < 0) {
        return Status::Invalid(path + ": clientConnection: qps and burst must not be negative");
      }
    }
    if (YAML::Node le = root["leaderElection"]; le && le.IsMap()) {
      if (le["leaderElect"]) s.leader_elect = le["leaderElect"].as<bool>();
      if (le["resourceName"]) s.resource_name = le["resourceName"].as<std::string>();
      if (le["resourceNamespace"]) s.resource_namespace = le["resourceNamespace"].as<std::string>();
      struct D {
        const char* key;
        int* out;
      };
      for (D d : {D{"leaseDuration", &s.lease_duration_s}, D{"renewDeadline", &s.renew_deadline_s},
                  D{"retryPeriod", &s.retry_period_s}}) {
        if (!le[d.key]) continue;
        KUOTA_ASSIGN_OR_RETURN(
            *d.out, ParseSeconds(le[d.key].as<std::string>(), path + ": leaderElection." + d.key));
      }
    }
  } catch (const std::exception& e) {
    return Status::Invalid(path + ": " + e.what());
  }
  return s;
}

// Which of `wanted` (store keys) the cluster serves, from its discovery
// documents (one request per group version).
Result<std::set<std::string>> ServedByCluster(KubeClient& client,
                                              const std::vector<std::string>& wanted) {
  std::map<std::string, std::set<std::string>> by_group_version;  // path -> plurals
  std::set<std::string> served;
  for (const std::string& key : wanted) {
    KUOTA_ASSIGN_OR_RETURN(const server::ResourceInfo* r, ResourceForKey(key));
    const std::string path =
        r->group.empty() ? "/api/" + r->version : "/apis/" + r->group + "/" + r->version;
    auto it = by_group_version.find(path);
    if (it == by_group_version.end()) {
      std::set<std::string> plurals;
      Result<Json> doc = client.Request("GET", path, nullptr);
      if (doc.ok()) {
        for (const Json& res : doc->value("resources", Json::array())) {
          plurals.insert(res.value("name", ""));
        }
      } else if (doc.status().code() != StatusCode::kNotFound) {
        return doc.status();
      }
      it = by_group_version.emplace(path, std::move(plurals)).first;
    }
    if (it->second.count(r->plural)) served.insert(key);
  }
  return served;
}

// Why the driver may not list one of `keys` (its ServiceAccount's RBAC), or
// "" when it may list them all.
std::string CannotList(KubeClient& client, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    Result<const server::ResourceInfo*> r = ResourceForKey(key);
    if (!r.ok()) return r.status().message();
    Result<Json> page = client.Request("GET", CollectionPath(**r, "") + "?limit=1", nullptr);
    if (!page.ok() && page.status().message().rfind("forbidden", 0) == 0) {
      return std::string("may not list ") + key + " (" + page.status().message() +
             "; its ClusterRole needs get, list and watch on it)";
    }
  }
  return "";
}

std::string RandomSuffix() {
  std::random_device rd;
  static const char* kChars = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  for (int i = 0; i < 8; ++i) out += kChars[rd() % 36];
  return out;
}

}  // namespace

Status RunDriver(const DriverOptions& options) {
  KUOTA_ASSIGN_OR_RETURN(api::Configuration config, control::LoadConfigFile(options.config_file));
  Result<control::JobManagement> management = control::JobManagement::FromConfig(config);
  if (!management.ok()) {
    return management.status().WithContext("config file " + options.config_file);
  }
  KUOTA_ASSIGN_OR_RETURN(ClusterSettings settings, ReadClusterSettings(options.config_file));
  Result<ClusterTarget> target =
      options.in_cluster ? InClusterTarget() : TargetFromKubeconfigFile(options.kubeconfig);
  KUOTA_RETURN_IF_ERROR(target.status());
  ClientOptions copts;
  copts.qps = settings.qps;
  copts.burst = settings.burst;
  KubeClient client(*target, copts);

  // What to list and watch: Kueue's kinds (their CRDs must be installed),
  // Namespaces, PriorityClasses, and each enabled integration the cluster
  // serves (Kueue skips one whose CRD is missing, and says so).
  // Pods too, and Nodes with Kueue's Topologies: topology-aware scheduling
  // reads Nodes and the pods that use node capacity outside Kueue's topology
  // assignments, and the pods of a topology-placed job are ungated onto their
  // domains.
  std::vector<std::string> wanted(std::begin(kKueueResources), std::end(kKueueResources));
  wanted.push_back("namespaces");
  wanted.push_back("priorityclasses.scheduling.k8s.io");
  wanted.push_back("pods");
  std::vector<std::string> job_resources;
  for (const auto& k : jobs::JobKinds()) {
    if (management->Enabled(*k)) job_resources.push_back(k->Resource());
  }
  if (management->PodIntegrationRuns() && options.webhook_port < 0) {
    // Kueue's plain-pod integration needs its pod webhook (to gate pods as
    // they are created), which --webhook-port -1 turns off: pods are then
    // watched for topology-aware scheduling only. So do the
    // LeaderWorkerSet's, Deployment's and StatefulSet's, whose pods are plain pods.
    std::fprintf(stderr,
                 "kuotad: integration pod skipped (and leaderworkerset.x-k8s.io/leaderworkerset, "
                 "deployment, statefulset): "
                 "plain pods are held back by Kueue's pod webhook, which --webhook-port -1 "
                 "turns off\n");
    api::Configuration without_pods = config;
    if (!without_pods.integrations.frameworks) {
      // The default list: every kind Kuota knows.
      without_pods.integrations.frameworks.emplace();
      for (const auto& k : jobs::JobKinds()) {
        without_pods.integrations.frameworks->push_back(k->Framework());
      }
    }
    auto& frameworks = *without_pods.integrations.frameworks;
    for (const char* f : {jobs::kPodFramework, jobs::kLeaderWorkerSetFramework,
                          jobs::kDeploymentFramework, jobs::kStatefulSetFramework}) {
      frameworks.erase(std::remove(frameworks.begin(), frameworks.end(), f), frameworks.end());
    }
    management = control::JobManagement::FromConfig(without_pods);
    KUOTA_RETURN_IF_ERROR(management.status());
  }
  // Kueue's Topology CRD is optional: without it there is no topology-aware
  // scheduling.
  // MultiKueue's kinds too (the manager's clusters and their sets).
  std::vector<std::string> optional = {kNodes, kTopologies, kMultiKueueClusters,
                                       kMultiKueueConfigs};
  // Kueue's ProvisioningRequest admission check, where the cluster serves its
  // kinds: ProvisioningRequestConfigs, the cluster autoscaler's
  // ProvisioningRequests, PodTemplates (control/provisioning_controller.h).
  for (const char* r : kProvisioningResources) optional.push_back(r);
  // What enabled kinds build their Workloads from (a TrainJob's runtimes),
  // so that a job waiting for one is handled again when it is created.
  for (const auto& k : jobs::JobKinds()) {
    if (!management->Enabled(*k)) continue;
    for (const std::string& r : k->ReferencedResources()) optional.push_back(r);
  }
  std::vector<std::string> all = wanted;
  all.insert(all.end(), optional.begin(), optional.end());
  all.insert(all.end(), job_resources.begin(), job_resources.end());
  KUOTA_ASSIGN_OR_RETURN(std::set<std::string> served, ServedByCluster(client, all));
  std::vector<std::string> missing;
  for (const std::string& r : wanted) {
    if (!served.count(r)) missing.push_back(r);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    return Status::NotFound("the cluster at " + client.url() + " does not serve " + list +
                            " (install Kuota's CRDs: kubectl apply --server-side -f "
                            "deploy/manifests.yaml)");
  }
  if (!served.count(kTopologies)) {
    std::fprintf(stderr,
                 "kuotad: topology-aware scheduling off: the cluster does not serve %s (Kueue's "
                 "Topology CRD is not installed)\n",
                 kTopologies);
  } else if (std::string why = CannotList(client, {kNodes, kTopologies}); !why.empty()) {
    // An older install's RBAC: run without topology-aware scheduling rather
    // than not at all.
    std::fprintf(stderr, "kuotad: topology-aware scheduling off: %s\n", why.c_str());
    served.erase(kTopologies);
  }
  if (!served.count(kTopologies)) served.erase(kNodes);
  for (const std::string& r : job_resources) {
    if (!served.count(r)) {
      std::fprintf(stderr,
                   "kuotad: integration for %s skipped: the cluster does not serve it (its CRD "
                   "is not installed)\n",
                   r.c_str());
    }
  }
  std::vector<std::string> resources(served.begin(), served.end());
  std::fprintf(stderr, "kuotad: Kubernetes mode: managing the cluster at %s (%zu kinds watched)\n",
               client.url().c_str(), resources.size());

  std::atomic<bool> stop{false}, lost{false}, leading{false}, synced{false};
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::thread signal_watch([&] {
    while (!stop) {
      if (g_signal) stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  KubeObjectStore store(client, resources);
  metrics::Registry registry;
  std::unique_ptr<httplib::Server> health;
  std::thread health_thread;
  if (options.health_port >= 0) {
    health = std::make_unique<httplib::Server>();
    health->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    health->Get("/livez", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    // Ready when following (a standby is ready) or leading with the engine synced.
    health->Get("/readyz", [&](const httplib::Request&, httplib::Response& res) {
      const bool ready = !leading || synced;
      res.status = ready ? 200 : 503;
      res.set_content(ready ? "ok" : "engine not synced yet", "text/plain");
    });
    health->Get("/metrics", [&](const httplib::Request& req, httplib::Response& res) {
      auto gauge = [](const char* name, const char* help, double v) {
        metrics::MetricFamily f;
        f.name = name;
        f.help = help;
        metrics::Sample sample;
        sample.value = v;
        f.samples.push_back(sample);
        return f;
      };
      const metrics::Format format = metrics::FormatForAccept(req.get_header_value("Accept"));
      std::string text;
      metrics::Render(
          {gauge("kuota_leader", "Whether this replica leads (runs the engine).", leading ? 1 : 0),
           gauge("kuota_engine_synced", "Whether the engine has listed the cluster.",
                 synced ? 1 : 0),
           gauge("kuota_watched_kinds", "Kinds listed and watched on the cluster.",
                 static_cast<double>(resources.size()))},
          format, &text);
      // Kueue's metrics, from the engine while this replica leads (ends the document).
      text += registry.Render(format);
      res.set_content(text, metrics::ContentType(format));
    });
    int port =
        options.health_port == 0
            ? health->bind_to_any_port(options.address)
            : (health->bind_to_port(options.address, options.health_port) ? options.health_port
                                                                          : -1);
    if (port < 0) {
      stop = true;
      signal_watch.join();
      return Status::Unavailable("cannot listen on " + options.address + ":" +
                                 std::to_string(options.health_port) + " (--health-port)");
    }
    std::fprintf(stderr, "kuotad: health and metrics at http://%s:%d/healthz, /readyz, /metrics\n",
                 options.address.c_str(), port);
    health_thread = std::thread([&] { health->listen_after_bind(); });
    // httplib's stop() is lost before the loop runs (finish() would then wait forever).
    while (!health->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The CRDs' conversion webhook and Kueue's admission webhooks on the same
  // port: served by every replica, leader or not.
  AdmissionWebhook admission(
      *management,
      [&store](const std::string& ns) {
        return store.Get("localqueues.kueue.x-k8s.io", ns, control::kDefaultLocalQueueName).ok();
      },
      [&store](const std::string& ns, const std::string& queue) {
        return control::QueueUsesMultiKueue(store, ns, queue);
      });
  // Kueue's visibility API on the same port, for kube-apiserver's aggregator
  // (only the leader's engine answers; a standby says so).
  LeaderPendingWorkloads pending;
  SubjectAccessReviewer reviewer(client);  // the second authorization, as Kueue's server
  std::unique_ptr<VisibilityEndpoint> visibility;
  ConversionWebhook webhook;
  auto finish = [&](Status st) {
    stop = true;
    signal_watch.join();
    webhook.Stop();
    if (health) {
      health->stop();
      health_thread.join();
    }
    return st;
  };

  if (options.webhook_port >= 0) {
    WebhookCertOptions wo;
    wo.ns = !options.webhook_namespace.empty() ? options.webhook_namespace
                                               : InClusterNamespace("kuota-system");
    wo.service_name = options.webhook_service;
    wo.secret_name = options.webhook_secret;
    Result<auth::TlsPem> pem = EnsureWebhookCert(client, wo);
    if (!pem.ok()) {
      return finish(pem.status().WithContext(
          "the conversion webhook's certificate (--webhook-port -1 turns the webhook off)"));
    }
    Result<RequestHeaderConfig> proxy = ReadRequestHeaderConfig(client);
    Result<std::unique_ptr<RequestHeaderAuthenticator>> proxy_auth =
        proxy.ok() ? RequestHeaderAuthenticator::Create(*proxy)
                   : Result<std::unique_ptr<RequestHeaderAuthenticator>>(proxy.status());
    if (proxy_auth.ok()) {
      visibility = std::make_unique<VisibilityEndpoint>(
          std::move(*proxy_auth), pending,
          [&reviewer](const auth::UserInfo& user, const nlohmann::json& attributes) {
            return reviewer.Allowed(user, attributes);
          });
    } else {
      std::fprintf(stderr, "kuotad: visibility API off: %s\n",
                   proxy_auth.status().message().c_str());
    }
    if (Status st = webhook.Start(options.address, options.webhook_port, *pem,
                                  [&](httplib::Server& s) {
                                    admission.Register(s);
                                    if (visibility) visibility->Register(s);
                                  });
        !st.ok()) {
      return finish(st);
    }
    std::fprintf(stderr,
                 "kuotad: conversion webhook at https://%s:%d/convert (certificate for %s, kept "
                 "in secret %s/%s)\n",
                 options.address.c_str(), webhook.port(), WebhookDnsNames(wo).front().c_str(),
                 wo.ns.c_str(), wo.secret_name.c_str());
    std::vector<std::string> crds(std::begin(kKueueResources), std::end(kKueueResources));
    // Skipped where not installed: Topology, MultiKueue's, ProvisioningRequestConfig.
    for (const char* crd :
         {kTopologies, kMultiKueueClusters, kMultiKueueConfigs, kProvisioningRequestConfigs}) {
      crds.push_back(crd);
    }
    Result<int> injected = InjectCaBundle(client, crds, pem->ca_cert);
    if (!injected.ok()) return finish(injected.status());
    std::fprintf(stderr, "kuotad: conversion webhook's CA set in %d CRD(s)\n", *injected);
    if (visibility) {
      std::fprintf(stderr,
                   "kuotad: visibility API at https://%s:%d/apis/visibility.kueue.x-k8s.io "
                   "(for the aggregator's proxy certificate only)\n",
                   options.address.c_str(), webhook.port());
      std::vector<std::string> names(std::begin(kVisibilityApiServices),
                                     std::end(kVisibilityApiServices));
      Result<int> set = InjectApiServiceCa(client, names, pem->ca_cert);
      if (!set.ok()) {
        std::fprintf(stderr, "kuotad: visibility APIServices' CA not set: %s\n",
                     set.status().message().c_str());
      } else if (*set > 0) {
        std::fprintf(stderr, "kuotad: visibility API's CA set in %d APIService(s)\n", *set);
      }
    }
    // The admission webhooks' configurations (an install without them, or
    // whose RBAC predates them, runs with the webhooks unregistered).
    for (const auto& [kind, name] :
         {std::pair{"mutatingwebhookconfigurations", kMutatingWebhookConfiguration},
          std::pair{"validatingwebhookconfigurations", kValidatingWebhookConfiguration}}) {
      Result<int> set = InjectWebhookConfigurationCa(client, kind, name, pem->ca_cert);
      if (!set.ok()) {
        std::fprintf(stderr, "kuotad: admission webhooks' CA not set: %s\n",
                     set.status().message().c_str());
      } else if (*set > 0) {
        std::fprintf(stderr, "kuotad: admission webhooks' CA set in %d webhook(s) of %s\n", *set,
                     name);
      }
    }
  }

  // Leader election: the engine runs only while this replica holds the Lease.
  std::unique_ptr<KubeObjectStore> lease_store;
  std::unique_ptr<LeaderElector> elector;
  const bool elect = options.leader_elect && settings.leader_elect;
  if (elect) {
    lease_store = std::make_unique<KubeObjectStore>(
        client, std::vector<std::string>{"leases.coordination.k8s.io"});
    LeaderElectionOptions lo;
    lo.ns = !options.leader_election_namespace.empty() ? options.leader_election_namespace
            : !settings.resource_namespace.empty()     ? settings.resource_namespace
                                                       : InClusterNamespace("kuota-system");
    lo.name = !options.leader_election_id.empty() ? options.leader_election_id
              : !settings.resource_name.empty()   ? settings.resource_name
                                                  : "kuota-controller-leader";
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    lo.identity = std::string(host) + "_" + RandomSuffix();
    int lease_s = options.lease_duration_seconds > 0 ? options.lease_duration_seconds
                                                     : settings.lease_duration_s;
    int renew_s = options.lease_duration_seconds > 0 ? std::max(1, lease_s * 2 / 3)
                                                     : settings.renew_deadline_s;
    int retry_s =
        options.lease_duration_seconds > 0 ? std::max(1, lease_s / 7) : settings.retry_period_s;
    lo.lease_duration = std::chrono::seconds(lease_s);
    lo.renew_deadline = std::chrono::seconds(renew_s);
    lo.retry_period = std::chrono::seconds(retry_s);
    elector = std::make_unique<LeaderElector>(*lease_store, lo);
    if (!elector->Acquire(stop)) return finish(Status::Ok());
    elector->KeepRenewing([&] {
      lost = true;
      stop = true;
    });
  } else {
    std::fprintf(stderr, "kuotad: leader election off: run only one replica\n");
  }
  leading = true;

  RealClock clock;
  control::ControllerOptions ctl;
  ctl.config = config;
  ctl.jobs = *management;
  ctl.workload_finalizer = "kueue.x-k8s.io/resource-in-use";
  ctl.metrics = &registry;
  control::Controller controller(store, clock, ctl);
  Status started = controller.Start();
  if (!started.ok()) {
    if (elector) elector->Release();
    return finish(started.WithContext("starting the engine on the cluster"));
  }
  // Kueue's ProvisioningRequest admission check, on its own thread over the
  // same store (stopped by its destructor).
  control::ProvisioningController provisioning(store, clock);
  provisioning.Start();
  synced = true;
  pending.Attach(controller);
  // The MultiKueue manager, for ClusterQueues with a MultiKueue check.
  control::MultiKueueOptions mko;
  mko.settings = config.multi_kueue;
  mko.controller_namespace = config.namespace_.value_or(!options.webhook_namespace.empty()
                                                            ? options.webhook_namespace
                                                            : InClusterNamespace("kuota-system"));
  mko.metrics = &registry;
  control::MultiKueueController multikueue(store, clock, OpenRemoteCluster, mko);
  multikueue.Start();
  std::fprintf(stderr, "kuotad: engine running on the cluster\n");
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  multikueue.Stop();
  pending.Detach();  // waits for the visibility calls in flight
  controller.Stop();
  leading = false;
  if (lost) {
    return finish(Status::Unavailable(
        "lost the leader election lease; exiting so that a fresh start campaigns again"));
  }
  std::fprintf(stderr, "kuotad: shutting down\n");
  if (elector) elector->Release();
  return finish(Status::Ok());
}

}  // namespace kuota::kube
