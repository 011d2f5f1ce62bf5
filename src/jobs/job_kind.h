// JobKind: the interface every job integration implements (Kueue's
// jobframework GenericJob): how the API serves and validates the kind, how a
// job maps to a Workload's pod sets, and how to start (unsuspend with the
// admitted flavors' node labels and tolerations) or stop it. Works on JSON
// objects as stored. Implementations are stateless and thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/status.h"
#include "jobs/kind_info.h"

namespace kuota::jobs {

using Json = nlohmann::json;

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
// Kueue's prebuilt workloads: a job (or pod) with this label uses the named
// Workload instead of making one (MultiKueue labels what it creates on a worker).
inline constexpr const char* kPrebuiltWorkloadLabel = "kueue.x-k8s.io/prebuilt-workload-name";
inline constexpr const char* kMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism";
// Annotation holding the pod templates' original nodeSelector/tolerations
// (and counts) while the job runs with a flavor's injected ones.
inline constexpr const char* kOriginalPlacementAnnotation = "kuota.dev/original-placement";

// What admission decided for one pod set, to inject into the job.
struct PodSetPlacement {
  std::string name;
  int32_t count = 0;
  std::map<std::string, std::string> node_selector;  // flavors' nodeLabels, checks' nodeSelector
  Json tolerations = Json::array();                  // flavors' and checks' tolerations
  // Ready admission checks' podSetUpdates for the pod template's metadata
  // (pod_set_update.h).
  std::map<std::string, std::string> labels{};
  std::map<std::string, std::string> annotations{};
  // Scheduling gates for the pod template: filled only for a kind whose
  // TopologyGatesInPlacement is true (Kueue's topology gate).
  std::vector<std::string> scheduling_gates{};
};

// A stored object, besides the job, that a job's Workload and pods are built
// from (a TrainJob's training runtime).
struct ReferencedObject {
  std::string resource{};  // store key: "clustertrainingruntimes.trainer.kubeflow.org"
  std::string ns{};        // empty for a cluster-scoped object
  std::string name{};
  std::string kind{};  // for messages: "ClusterTrainingRuntime"
};

class JobKind {
 public:
  virtual ~JobKind() = default;
  virtual const KindInfo& Info() const = 0;
  // The store key of the job resource, e.g. "jobs.batch".
  std::string Resource() const;
  std::string ApiVersion() const;
  std::string Kind() const { return Info().kind; }
  // Kueue's framework name, e.g. "batch/job".
  std::string Framework() const { return Info().framework; }

  // The queue a job names (label, else annotation); empty when unmanaged.
  static std::string QueueName(const Json& job);
  // The LocalQueue the job's Workload goes to (its spec.queueName); empty when
  // the job names none. QueueName by default; a kind with a queue field of its
  // own (Volcano's spec.queue) maps it here.
  virtual std::string LocalQueueName(const Json& job) const { return QueueName(job); }

  // The operator's validating webhook and CRD schema: Ok, or Invalid whose
  // message leads with the field path ("spec.pytorchReplicaSpecs.Master:
  // Required value"). Called on create and update with the object to store.
  virtual Status Validate(const Json& job) const = 0;
  // The operator's rules on an update (its CRD's transition rules: fields
  // that are immutable), given the stored `old_job`: Ok, or Invalid naming
  // the field. Called after Validate. Default: Ok.
  virtual Status ValidateUpdate(const Json& /*old_job*/, const Json& /*job*/) const {
    return Status::Ok();
  }
  // The operator's defaulting webhook, on every create (before Validate):
  // fills fields the operator defaults. Must cope with invalid objects.
  virtual void Default(Json& /*job*/) const {}
  // Kueue's webhook on create of a managed job: it starts suspended.
  virtual void DefaultOnCreate(Json& job) const = 0;
  // Kueue's webhook on update of a managed job, for the kinds whose webhook
  // defaults on update too (LeaderWorkerSet). Default: nothing.
  virtual void DefaultOnUpdate(Json& /*job*/) const {}
  // The Workload (kueue.x-k8s.io/v1beta1) that represents the job.
  virtual Result<Json> BuildWorkload(const Json& job) const = 0;
  virtual bool IsSuspended(const Json& job) const = 0;
  // Unsuspends with flavors injected; returns the new job object.
  virtual Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const = 0;
  // Suspends and restores the original templates; returns the new job object.
  virtual Json Stop(const Json& job) const = 0;
  // True when the job finished; `succeeded` tells how.
  virtual bool IsFinished(const Json& job, bool* succeeded) const = 0;
  // Kueue's PodsReady, from the job's status: every pod it runs now is ready
  // (or has succeeded).
  virtual bool PodsReady(const Json& job) const = 0;
  // The object the job still needs copied into it (WithReference) before its
  // Workload can be built, or nullopt: none, or already copied. The
  // controller reads it from the store, writes WithReference's job back, and
  // reports on the job while it does not exist. Default: nullopt.
  virtual std::optional<ReferencedObject> PendingReference(const Json& /*job*/) const {
    return std::nullopt;
  }
  // The store keys of the resources PendingReference may name, for a driver
  // to watch (a job waiting for one is handled again when it is created).
  virtual std::vector<std::string> ReferencedResources() const { return {}; }
  // `job` with `referenced` (as stored) copied into it; Invalid when the two
  // do not make a job that can run (the reason is reported on the job).
  virtual Result<Json> WithReference(const Json& job, const Json& /*referenced*/) const {
    return job;
  }
  // The field path, in the job, of the template of the Workload's pod set
  // `index` ("spec.template"), so that errors found in the Workload name the
  // job's own field.
  virtual std::string PodSetTemplateField(const Json& job, size_t index) const;
  // Whether Kueue's topology-aware scheduling marks (the topology gate, the
  // workload annotation, the pod set label) reach the pods through Start's
  // placement (its labels, annotations and scheduling_gates), as for a kind
  // whose own controller injects Kueue's PodSetInfo (AppWrapper), instead of
  // being written into the pod templates after Start. Default: false.
  virtual bool TopologyGatesInPlacement() const { return false; }
};

// Name of the Workload for a job, as Kueue names it: "<prefix>-<name>-<hash5>"
// ("job-sample-1a2b3", "pytorchjob-mnist-4c5d6").
std::string WorkloadNameFor(const std::string& prefix, const std::string& job_name,
                            const std::string& job_uid);

// The owner reference a controller puts on what it makes: {apiVersion,
// kind, name, uid, controller: true, blockOwnerDeletion: true}.
Json ControllerOwnerRef(const std::string& api_version, const std::string& kind,
                        const std::string& name, const std::string& uid);

// The kueue.x-k8s.io/v1beta2 Workload of the object `name` (of `kind` at
// `api_version`, in `ns`, with `uid`): named WorkloadNameFor(prefix, ...),
// labelled with the job's uid, owned by it (ControllerOwnerRef), in
// LocalQueue `queue`, with `pod_sets`.
Json MakeJobWorkload(const std::string& prefix, const std::string& api_version,
                     const std::string& kind, const std::string& name, const std::string& ns,
                     const std::string& uid, const std::string& queue, Json pod_sets);

// Sets a v1beta2 Workload's spec.priorityClassRef to `name`: a
// kueue.x-k8s.io WorkloadPriorityClass (from the job's
// kueue.x-k8s.io/priority-class label) or, when `workload_class` is false, a
// scheduling.k8s.io PriorityClass (from the pod template).
void SetPriorityClassRef(Json& workload, const std::string& name, bool workload_class);

// Kueue's max-exec-time-seconds label on a job.
inline constexpr const char* kMaxExecTimeSecondsLabel = "kueue.x-k8s.io/max-exec-time-seconds";

// Copies `job`'s kueue.x-k8s.io/max-exec-time-seconds label, when it holds a
// positive 32-bit integer (admission refuses other values), into
// `workload`'s spec.maximumExecutionTimeSeconds, as Kueue does.
void ApplyMaxExecutionTime(const Json& job, Json& workload);

}  // namespace kuota::jobs
