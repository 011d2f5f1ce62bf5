// ResourceInfo: one kind the API server serves (group, version, kind, plural,
// scope, short names, whether it has a status subresource) and the registry
// of every served kind. Immutable after construction; thread-safe to read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kuota::server {

// Where a kind keeps what its scale subresource (autoscaling/v1 Scale) reads
// and writes, as a CRD's subresources.scale names it: dotted JSON paths.
struct ScalePaths {
  std::string spec_replicas = ".spec.replicas";      // written by PUT/PATCH .../scale
  std::string status_replicas = ".status.replicas";  // Scale's status.replicas
  // Scale's status.selector: a string there, or a LabelSelector object
  // (Deployment's .spec.selector) printed as "a=b,c in (x)". "" for none.
  std::string label_selector;
};

struct ResourceInfo {
  std::string group;     // "" for the core group
  std::string version;   // "v1", "v1beta1"
  std::string kind;      // "ClusterQueue"
  std::string plural;    // "clusterqueues"
  std::string singular;  // "clusterqueue"
  bool namespaced = true;
  bool has_status = true;                // serves the /status subresource
  std::vector<std::string> short_names;  // "cq"
  std::vector<std::string> categories;   // "kueue", "all"
  // Set when objects are stored in another version of the group than
  // `version` (the kueue.x-k8s.io/v1beta1 kinds: "v1beta2"); empty otherwise.
  std::string storage_version;
  // Set when the kind serves the /scale subresource.
  std::optional<ScalePaths> scale;

  // "clusterqueues.kueue.x-k8s.io", "jobs.batch", "pods": the ObjectStore key.
  std::string StoreKey() const { return group.empty() ? plural : plural + "." + group; }
  // "kueue.x-k8s.io/v1beta1" or "v1".
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
};

// Every kind Kuota serves: kueue.x-k8s.io/v1beta2 ResourceFlavor, ClusterQueue,
// Cohort, LocalQueue, Workload, WorkloadPriorityClass, AdmissionCheck, Topology
// (stored in v1beta2, listed first, so discovery prefers it), and the same
// kinds in kueue.x-k8s.io/v1beta1 (stored as v1beta2);
// v1 Namespace, Pod, Event, Node, Secret, ConfigMap; scheduling.k8s.io/v1 PriorityClass;
// rbac.authorization.k8s.io/v1 Role, RoleBinding, ClusterRole, ClusterRoleBinding;
// coordination.k8s.io/v1 Lease; apps/v1 Deployment, StatefulSet (with /scale)
// and ReplicaSet; apiextensions.k8s.io/v1 CustomResourceDefinition;
// scheduling.volcano.sh/v1beta1 Queue; and
// every job kind in jobs::JobKinds() (batch/v1 Job, PyTorchJob, RayCluster, ...).
const std::vector<ResourceInfo>& ServedResources();
// Finds by group + plural (the first served version); nullptr when not served.
const ResourceInfo* FindResource(const std::string& group, const std::string& plural);
// Finds by group + version + plural; nullptr when not served.
const ResourceInfo* FindResource(const std::string& group, const std::string& version,
                                 const std::string& plural);
// The entry of the version `r`'s objects are stored in (`r` itself unless it
// has a storage_version).
const ResourceInfo& StorageResource(const ResourceInfo& r);
// Finds by apiVersion ("kueue.x-k8s.io/v1beta1", "v1") + kind; nullptr when not served.
const ResourceInfo* FindResourceByKind(const std::string& api_version, const std::string& kind);

}  // namespace kuota::server
