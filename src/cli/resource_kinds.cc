#include "cli/resource_kinds.h"

#include <cctype>

namespace kuota::cli {
namespace {

constexpr const char* kKueue = "kueue.x-k8s.io";

std::vector<KindInfo> BuildKinds() {
  const bool kNamespaced = true, kCluster = false;
  return {
      {"ClusterQueue", kKueue, "v1beta1", "clusterqueues", "clusterqueue", kCluster, {"cq"}},
      {"LocalQueue",
       kKueue,
       "v1beta1",
       "localqueues",
       "localqueue",
       kNamespaced,
       {"lq", "queue", "queues"}},
      {"Workload", kKueue, "v1beta1", "workloads", "workload", kNamespaced, {"wl"}},
      {"Job", "batch", "v1", "jobs", "job", kNamespaced, {}},
      {"Pod", "", "v1", "pods", "pod", kNamespaced, {"po"}},
      {"ResourceFlavor",
       kKueue,
       "v1beta1",
       "resourceflavors",
       "resourceflavor",
       kCluster,
       {"rf", "flavor", "flavors"}},
      {"Cohort", kKueue, "v1beta1", "cohorts", "cohort", kCluster, {}},
      {"WorkloadPriorityClass",
       kKueue,
       "v1beta1",
       "workloadpriorityclasses",
       "workloadpriorityclass",
       kCluster,
       {"wpc"}},
      {"AdmissionCheck", kKueue, "v1beta1", "admissionchecks", "admissioncheck", kCluster, {}},
      // MultiKueue's workers and the sets of them a check dispatches to (served as v1beta2;
      // Kueue's CRDs have no short names: mkc is Kuota's).
      {"MultiKueueCluster",
       kKueue,
       "v1beta2",
       "multikueueclusters",
       "multikueuecluster",
       kCluster,
       {"mkc"}},
      {"MultiKueueConfig",
       kKueue,
       "v1beta2",
       "multikueueconfigs",
       "multikueueconfig",
       kCluster,
       {}},
      {"Topology", kKueue, "v1beta1", "topologies", "topology", kCluster, {"topo"}},
      {"PyTorchJob", "kubeflow.org", "v1", "pytorchjobs", "pytorchjob", kNamespaced, {}},
      {"TFJob", "kubeflow.org", "v1", "tfjobs", "tfjob", kNamespaced, {}},
      {"MPIJob", "kubeflow.org", "v2beta1", "mpijobs", "mpijob", kNamespaced, {}},
      {"JAXJob", "kubeflow.org", "v1", "jaxjobs", "jaxjob", kNamespaced, {}},
      {"PaddleJob", "kubeflow.org", "v1", "paddlejobs", "paddlejob", kNamespaced, {}},
      {"XGBoostJob", "kubeflow.org", "v1", "xgboostjobs", "xgboostjob", kNamespaced, {}},
      {"RayJob", "ray.io", "v1", "rayjobs", "rayjob", kNamespaced, {}},
      {"RayCluster", "ray.io", "v1", "rayclusters", "raycluster", kNamespaced, {}},
      {"RayService", "ray.io", "v1", "rayservices", "rayservice", kNamespaced, {}},
      {"JobSet", "jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", kNamespaced, {}},
      {"TrainJob", "trainer.kubeflow.org", "v1alpha1", "trainjobs", "trainjob", kNamespaced, {}},
      {"AppWrapper",
       "workload.codeflare.dev",
       "v1beta2",
       "appwrappers",
       "appwrapper",
       kNamespaced,
       {"aw"}},
      {"SparkApplication",
       "sparkoperator.k8s.io",
       "v1beta2",
       "sparkapplications",
       "sparkapplication",
       kNamespaced,
       {"sparkapp"}},
      {"LeaderWorkerSet",
       "leaderworkerset.x-k8s.io",
       "v1",
       "leaderworkersets",
       "leaderworkerset",
       kNamespaced,
       {"lws"}},
      // Kueue's serving integrations (kuotad plays their controllers).
      {"Deployment", "apps", "v1", "deployments", "deployment", kNamespaced, {"deploy"}},
      {"StatefulSet", "apps", "v1", "statefulsets", "statefulset", kNamespaced, {"sts"}},
      {"TrainingRuntime",
       "trainer.kubeflow.org",
       "v1alpha1",
       "trainingruntimes",
       "trainingruntime",
       kNamespaced,
       {}},
      {"ClusterTrainingRuntime",
       "trainer.kubeflow.org",
       "v1alpha1",
       "clustertrainingruntimes",
       "clustertrainingruntime",
       kCluster,
       {}},
      // Volcano's Job: `kuota get job` means batch/v1 (listed first).
      {"Job", "batch.volcano.sh", "v1alpha1", "jobs", "job", kNamespaced, {"vcjob", "vcjobs"}},
      {"Event", "", "v1", "events", "event", kNamespaced, {"ev"}},
      {"Node", "", "v1", "nodes", "node", kCluster, {"no"}},
      {"Namespace", "", "v1", "namespaces", "namespace", kCluster, {"ns"}},
      {"PriorityClass",
       "scheduling.k8s.io",
       "v1",
       "priorityclasses",
       "priorityclass",
       kCluster,
       {"pc"}},
  };
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string KindInfo::QualifiedName(const std::string& name) const {
  return (group.empty() ? singular : singular + "." + group) + "/" + name;
}

std::string KindInfo::CollectionPath(const std::string& ns) const {
  std::string base = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) base += "/namespaces/" + ns;
  return base + "/" + plural;
}

std::string KindInfo::ObjectPath(const std::string& ns, const std::string& name) const {
  return CollectionPath(namespaced ? ns : "") + "/" + name;
}

const std::vector<KindInfo>& Kinds() {
  static const std::vector<KindInfo> kKinds = BuildKinds();
  return kKinds;
}

const KindInfo* FindKind(std::string_view name) {
  const std::string want = Lower(name);
  for (const KindInfo& k : Kinds()) {
    if (want == k.plural || want == k.singular || want == Lower(k.kind) || want == k.Resource() ||
        (!k.group.empty() && want == k.singular + "." + k.group)) {
      return &k;
    }
    for (const std::string& s : k.short_names) {
      if (want == s) return &k;
    }
  }
  return nullptr;
}

std::string KnownKindsText() {
  std::string out;
  for (const KindInfo& k : Kinds()) {
    if (!out.empty()) out += ", ";
    out += k.plural;
    if (!k.short_names.empty()) {
      out += " (";
      for (size_t i = 0; i < k.short_names.size(); ++i) out += (i ? ", " : "") + k.short_names[i];
      out += ")";
    }
  }
  return out;
}

}  // namespace kuota::cli
