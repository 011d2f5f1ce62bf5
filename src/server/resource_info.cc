#include "server/resource_info.h"

#include <cctype>

#include "jobs/registry.h"

namespace kuota::server {
namespace {

constexpr const char* kKueue = "kueue.x-k8s.io";

ResourceInfo Make(std::string group, std::string version, std::string kind, std::string plural,
                  std::string singular, bool namespaced, bool has_status,
                  std::vector<std::string> short_names, std::vector<std::string> categories) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.kind = std::move(kind);
  r.plural = std::move(plural);
  r.singular = std::move(singular);
  r.namespaced = namespaced;
  r.has_status = has_status;
  r.short_names = std::move(short_names);
  r.categories = std::move(categories);
  return r;
}

std::vector<ResourceInfo> BuildServedResources() {
  const bool kNamespaced = true, kCluster = false, kStatus = true, kNoStatus = false;
  std::vector<ResourceInfo> served = {
      // kueue.x-k8s.io/v1beta2: the stored version, listed first so discovery prefers it.
      Make(kKueue, "v1beta2", "ResourceFlavor", "resourceflavors", "resourceflavor", kCluster,
           kStatus, {"flavor", "flavors", "rf"}, {"kueue"}),
      Make(kKueue, "v1beta2", "ClusterQueue", "clusterqueues", "clusterqueue", kCluster, kStatus,
           {"cq"}, {"kueue"}),
      Make(kKueue, "v1beta2", "Cohort", "cohorts", "cohort", kCluster, kStatus, {}, {"kueue"}),
      Make(kKueue, "v1beta2", "LocalQueue", "localqueues", "localqueue", kNamespaced, kStatus,
           {"lq", "queue", "queues"}, {"kueue"}),
      Make(kKueue, "v1beta2", "Workload", "workloads", "workload", kNamespaced, kStatus, {"wl"},
           {"kueue"}),
      Make(kKueue, "v1beta2", "WorkloadPriorityClass", "workloadpriorityclasses",
           "workloadpriorityclass", kCluster, kNoStatus, {}, {"kueue"}),
      Make(kKueue, "v1beta2", "AdmissionCheck", "admissionchecks", "admissioncheck", kCluster,
           kStatus, {}, {"kueue"}),
      // MultiKueue (control/multikueue_controller.h): the worker clusters and the sets of them
      // an AdmissionCheck of controllerName kueue.x-k8s.io/multikueue names.
      Make(kKueue, "v1beta2", "MultiKueueCluster", "multikueueclusters", "multikueuecluster",
           kCluster, kStatus, {}, {"kueue"}),
      Make(kKueue, "v1beta2", "MultiKueueConfig", "multikueueconfigs", "multikueueconfig", kCluster,
           kNoStatus, {}, {"kueue"}),
      // ProvisioningRequestConfig: the parameters of an AdmissionCheck of controllerName
      // kueue.x-k8s.io/provisioning-request (control/provisioning_controller.h).
      Make(kKueue, "v1beta2", "ProvisioningRequestConfig", "provisioningrequestconfigs",
           "provisioningrequestconfig", kCluster, kNoStatus, {"prc"}, {"kueue"}),
      // Topology: Kueue's CRD has no status and no printer columns (NAME, AGE).
      Make(kKueue, "v1beta2", "Topology", "topologies", "topology", kCluster, kNoStatus, {"topo"},
           {"kueue"}),
      // core v1
      Make("", "v1", "Namespace", "namespaces", "namespace", kCluster, kStatus, {"ns"}, {}),
      Make("", "v1", "Pod", "pods", "pod", kNamespaced, kStatus, {"po"}, {"all"}),
      Make("", "v1", "Event", "events", "event", kNamespaced, kNoStatus, {"ev"}, {}),
      Make("", "v1", "Node", "nodes", "node", kCluster, kStatus, {"no"}, {}),
      // v1 Secret and ConfigMap: validated as kube-apiserver does (config_data_validation);
      // kuotad's pods read them through env and volumes (the Kubernetes mode also keeps its
      // conversion webhook's certificate in a Secret).
      Make("", "v1", "Secret", "secrets", "secret", kNamespaced, kNoStatus, {}, {}),
      Make("", "v1", "ConfigMap", "configmaps", "configmap", kNamespaced, kNoStatus, {"cm"}, {}),
      // v1 Service and Endpoints, apiregistration.k8s.io/v1 APIService: the aggregator of
      // kuotad --serve-only (aggregator.h) proxies an APIService's group and version to the
      // endpoints of its Service.
      Make("", "v1", "Service", "services", "service", kNamespaced, kStatus, {"svc"}, {"all"}),
      Make("", "v1", "Endpoints", "endpoints", "endpoints", kNamespaced, kNoStatus, {"ep"}, {}),
      Make("apiregistration.k8s.io", "v1", "APIService", "apiservices", "apiservice", kCluster,
           kStatus, {}, {"api-extensions"}),
      // scheduling.k8s.io/v1
      Make("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", kCluster,
           kNoStatus, {"pc"}, {}),
      // rbac.authorization.k8s.io/v1: enforced by kuotad's authorizer (src/auth).
      Make("rbac.authorization.k8s.io", "v1", "Role", "roles", "role", kNamespaced, kNoStatus, {},
           {}),
      Make("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "rolebinding",
           kNamespaced, kNoStatus, {}, {}),
      Make("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "clusterrole",
           kCluster, kNoStatus, {}, {}),
      Make("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings",
           "clusterrolebinding", kCluster, kNoStatus, {}, {}),
      // coordination.k8s.io/v1 Lease: leader election of Kuota's Kubernetes driver.
      Make("coordination.k8s.io", "v1", "Lease", "leases", "lease", kNamespaced, kNoStatus, {}, {}),
      // apiextensions.k8s.io/v1: stored and served (kuotad --serve-only stands in for a
      // kube-apiserver that deploy/crds are applied to); Kueue's kinds are served built in.
      Make("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions",
           "customresourcedefinition", kCluster, kStatus, {"crd", "crds"}, {"api-extensions"}),
      // admissionregistration.k8s.io/v1: validated as kube-apiserver does
      // (webhook_configuration_rules); kuotad --serve-only calls the webhooks
      // they register (admission_webhooks).
      Make("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
           "mutatingwebhookconfigurations", "mutatingwebhookconfiguration", kCluster, kNoStatus, {},
           {"api-extensions"}),
      Make("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
           "validatingwebhookconfigurations", "validatingwebhookconfiguration", kCluster, kNoStatus,
           {}, {"api-extensions"}),
      // autoscaling.x-k8s.io/v1 ProvisioningRequest (the cluster autoscaler's) and v1
      // PodTemplate: what Kueue's provisioning admission check creates for a workload.
      Make("autoscaling.x-k8s.io", "v1", "ProvisioningRequest", "provisioningrequests",
           "provisioningrequest", kNamespaced, kStatus, {"provreq", "provreqs"}, {}),
      Make("", "v1", "PodTemplate", "podtemplates", "podtemplate", kNamespaced, kNoStatus, {}, {}),
      // scheduling.volcano.sh/v1beta1 Queue: mapped onto the quota tree by kuotad.
      Make("scheduling.volcano.sh", "v1beta1", "Queue", "queues", "queue", kCluster, kStatus,
           {"q", "queue-v1beta1"}, {}),
      // trainer.kubeflow.org/v1alpha1 runtimes: what a TrainJob's runtimeRef names
      // (jobs/train_job.h); stored as written, no status.
      Make("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime", "trainingruntimes",
           "trainingruntime", kNamespaced, kNoStatus, {}, {}),
      Make("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes",
           "clustertrainingruntime", kCluster, kNoStatus, {}, {}),
  };
  // apps/v1: serving workloads (Kueue's deployment and statefulset integrations);
  // kuotad plays their controllers (standalone/serving_reconciler.h). A
  // Deployment owns its pods directly: ReplicaSets are served but none is made.
  for (const char* kind : {"Deployment", "StatefulSet", "ReplicaSet"}) {
    std::string k = kind, lower = k;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::vector<std::string> shorts = {k == "Deployment"    ? "deploy"
                                       : k == "StatefulSet" ? "sts"
                                                            : "rs"};
    ResourceInfo r =
        Make("apps", "v1", k, lower + "s", lower, kNamespaced, kStatus, std::move(shorts), {"all"});
    r.scale = ScalePaths{};
    r.scale->label_selector = ".spec.selector";
    served.push_back(std::move(r));
  }
  // kueue.x-k8s.io/v1beta1 (the seeds' manifests): the same kinds, stored as
  // v1beta2 (api/conversion).
  size_t kueue_kinds = 0;
  while (kueue_kinds < served.size() && served[kueue_kinds].group == kKueue) ++kueue_kinds;
  for (size_t i = 0; i < kueue_kinds; ++i) {
    ResourceInfo v1 = served[i];
    v1.version = "v1beta1";
    v1.storage_version = "v1beta2";
    served.push_back(std::move(v1));
  }
  // Every job kind: batch/v1 Job and the operators' kinds.
  for (const auto& k : jobs::JobKinds()) {
    const jobs::KindInfo& i = k->Info();
    ResourceInfo r = Make(i.group, i.version, i.kind, i.plural, i.singular, kNamespaced, kStatus,
                          i.short_names, i.categories);
    if (i.scale) {
      r.scale =
          ScalePaths{i.scale->spec_replicas, i.scale->status_replicas, i.scale->label_selector};
    }
    served.push_back(std::move(r));
  }
  return served;
}

}  // namespace

const std::vector<ResourceInfo>& ServedResources() {
  static const std::vector<ResourceInfo> kResources = BuildServedResources();
  return kResources;
}

const ResourceInfo* FindResource(const std::string& group, const std::string& plural) {
  for (const ResourceInfo& r : ServedResources()) {
    if (r.group == group && r.plural == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo* FindResource(const std::string& group, const std::string& version,
                                 const std::string& plural) {
  for (const ResourceInfo& r : ServedResources()) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

const ResourceInfo& StorageResource(const ResourceInfo& r) {
  if (r.storage_version.empty()) return r;
  const ResourceInfo* stored = FindResource(r.group, r.storage_version, r.plural);
  return stored != nullptr ? *stored : r;
}

const ResourceInfo* FindResourceByKind(const std::string& api_version, const std::string& kind) {
  for (const ResourceInfo& r : ServedResources()) {
    if (r.ApiVersion() == api_version && r.kind == kind) return &r;
  }
  return nullptr;
}

}  // namespace kuota::server
