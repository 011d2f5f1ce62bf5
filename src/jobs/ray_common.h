// Ray common: what KubeRay's RayCluster and RayJob integrations share. A
// RayClusterSpec (head group + worker groups) validated as the CRD, KubeRay's
// webhook and Kueue's webhook do; its Workload pod sets as Kueue builds them
// ("head", then one per worker group); the labels and environment KubeRay
// gives a Ray pod (RAY_ADDRESS, KUBERAY_GEN_RAY_START_CMD, ...); and the
// RayClusterStatus KubeRay writes (state, desired resources, conditions).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs::ray {

inline constexpr const char* kHeadPodSet = "head";
// The ray.io/group label KubeRay gives the head pod.
inline constexpr const char* kHeadGroupName = "headgroup";
// The local runtime's one address (PodPosition::address), used where the
// status names an IP or URL of the cluster.
inline constexpr const char* kLocalAddress = "127.0.0.1";

// Where a RayClusterSpec sits inside its job.
struct ClusterSpecAt {
  Json::json_pointer pointer;  // "/spec" (RayCluster), "/spec/rayClusterSpec" (RayJob)
  std::string field;           // the same as a field path: "spec", "spec.rayClusterSpec"
};

// Where RayCluster ("/spec") and RayJob ("/spec/rayClusterSpec") hold theirs.
const ClusterSpecAt& RayClusterSpecAt();
const ClusterSpecAt& RayJobClusterSpecAt();

// KubeRay's longest RayCluster and RayJob names.
inline constexpr size_t kMaxRayClusterNameLength = 63;
inline constexpr size_t kMaxRayJobNameLength = 47;

// metadata.name as KubeRay checks it: a DNS-1035 label of at most `max_len`
// characters. An absent name passes (the server names the object).
Status ValidateName(const Json& job, size_t max_len);

// The RayClusterSpec at `at` as the CRD schema and KubeRay's webhook check it
// (head group and its template required, worker group names present, unique
// and not "head", replica bounds); with `managed` (a queue-named job) also
// Kueue's rules: no in-tree autoscaling (`autoscaling_why` says why) and at
// most 7 worker groups.
Status ValidateClusterSpec(const Json& job, const ClusterSpecAt& at, bool managed,
                           const std::string& autoscaling_why);

// Kueue's pod sets of the cluster: "head" (count 1, stage 0), then one per
// worker group named by its lower-cased groupName with replicas x numOfHosts
// pods (stage 1). No minCount: Kueue admits Ray clusters whole.
std::vector<PodSetDef> ClusterPodSets(const Json& job, const ClusterSpecAt& at);

// "<cluster>-head-<index>" for the head set, "<cluster>-worker-<group>-<index>"
// for a worker group's set (KubeRay's names with the random suffix replaced
// by the index).
std::string RayPodName(const std::string& cluster, const PodSetDef& set, int64_t index);

// The GCS port the head listens on: rayStartParams "port", else "6379".
std::string HeadPort(const Json& job, const ClusterSpecAt& at);
// The dashboard port: rayStartParams "dashboard-port", else "8265".
std::string DashboardPort(const Json& job, const ClusterSpecAt& at);

// The `ray start` command KubeRay generates for a head (`head`) or worker
// group: the group's rayStartParams completed with KubeRay's defaults and the
// Ray container's resources, flags sorted by name.
std::string RayStartCommand(const Json& group, bool head, const std::string& head_address);

// Adds what KubeRay gives a head or worker pod of `cluster`: the ray.io labels
// and, in every container, RAY_ADDRESS / RAY_PORT / RAY_CLUSTER_NAME /
// RAY_CLOUD_INSTANCE_ID / RAY_NODE_TYPE_NAME / KUBERAY_GEN_RAY_START_CMD (and
// RAY_IP / FQ_RAY_IP on workers), every address being `where.address`.
void CustomizeRayPod(const Json& job, const ClusterSpecAt& at, const std::string& cluster,
                     const PodPosition& where, Json& pod);

// Appends {"name","value"} to every container's env; with `unless_set`, not
// to a container that already sets `name`.
void AddEnv(Json& pod, const std::string& name, const std::string& value, bool unless_set);
// Sets a pod label.
void SetLabel(Json& pod, const std::string& key, const std::string& value);

// The desired resources KubeRay reports, as resource.Quantity strings: sums
// over the head and every desired worker pod of the requests (or limits).
struct DesiredResources {
  std::string cpu = "0";
  std::string memory = "0";
  std::string gpu = "0";
  std::string tpu = "0";
};
DesiredResources SumDesiredResources(const Json& job, const ClusterSpecAt& at);

// The RayClusterStatus KubeRay writes for the cluster `cluster` whose pod sets
// are the first `sets.size()` entries of `seen.sets`. Returns `old` itself
// when nothing changed (lastUpdateTime only moves with a change).
Json ClusterStatus(const Json& job, const ClusterSpecAt& at, const std::string& cluster,
                   const std::vector<PodSetDef>& sets, const GroupObservation& seen,
                   const Json& old);
// Every Ray pod of the cluster runs now: head ready and all desired workers
// ready.
bool ClusterPodsReady(const Json& status);

// The restart count the status records ("restarts"; absent is 0).
int64_t RecordedRestarts(const Json& job);
// Records `restarts` in `status` (absent when 0).
void RecordRestarts(Json& status, int64_t restarts);

// The value at `path` ("/status/state") in `job`, or null.
Json ValueAt(const Json& job, const char* path);
// A printer column whose cell is the value at `path` (ValueAt).
PrinterColumn Column(const char* name, const char* type, const char* path, int priority = 0,
                     const char* description = "");

}  // namespace kuota::jobs::ray
