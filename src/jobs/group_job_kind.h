// GroupJobKind: the shared base of the job kinds whose pods the local runtime
// creates from pod templates inside the job (Kubeflow's replica specs, Ray's
// head and worker groups, JobSet's replicated jobs, Volcano's tasks). An
// adapter says where its pod sets are, where its suspend flag lives, what each
// pod sees (environment, hostnames) and how its status reads; this class
// builds the Workload, starts and stops the job and tells failures apart, the
// same way for every kind. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jobs/job_kind.h"
#include "jobs/topology_request.h"

namespace kuota::jobs {

// Labels the local runtime puts on every pod of a group job.
inline constexpr const char* kPodSetLabel = "kuota.dev/pod-set";
inline constexpr const char* kReplicaIndexLabel = "kuota.dev/replica-index";
inline constexpr const char* kJobNameLabel = "kuota.dev/job-name";
// Set on a pod by the job's own controller when it deletes the pod (restart,
// suspension, scale-down) or has handled its deletion: a pod deleted without
// it was evicted by someone else (`kubectl delete pod`), Volcano's PodEvicted.
inline constexpr const char* kDeletionHandledAnnotation = "kuota.dev/deletion-handled";

// One Workload pod set of a job, and where its pods come from.
struct PodSetDef {
  std::string name;                  // the Workload pod set ("master", "worker")
  Json::json_pointer template_path;  // the pod template inside the job
  Json::json_pointer replicas_path;  // the replica count inside the job; empty: fixed
  int64_t count = 1;
  std::optional<int64_t> min_count;  // partial admission down to this count
  // The local runtime starts the pods of stage N+1 once every pod of stages
  // up to N is running (Ray's head before its workers).
  int stage = 0;
  // How the set's pods are numbered, for its topologyRequest (Kueue's
  // podIndexLabel, subGroupIndexLabel and subGroupCount of the integration).
  PodSetIndexLabels index_labels;
};

// What the local runtime sees of one pod set's pods.
struct PodSetObservation {
  int64_t pending = 0;  // created, not running yet
  int64_t running = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;  // failed and not (yet) replaced
};

// One pod the runtime counted, for a kind whose status names its pods
// (Spark's executorState).
struct ObservedPod {
  size_t set = 0;  // in PodSets() order
  int64_t index = 0;
  std::string name{};
  std::string phase{};  // Pending, Running, Succeeded or Failed
  // A failed pod's first failed container, as kube reports it: "container
  // c: exit code 128, StartError: <message>"; empty otherwise.
  std::string failure{};
};

// Everything a kind needs to write its status.
struct GroupObservation {
  std::vector<PodSetObservation> sets;  // in PodSets() order
  bool suspended = false;
  enum class Outcome { kRunning, kSucceeded, kFailed } outcome = Outcome::kRunning;
  std::string reason;       // with a decided outcome: a CamelCase reason
  std::string message;      // and a sentence for the condition
  int64_t restarts = 0;     // pod and job restarts so far, this one included
  bool restarting = false;  // the whole job is being restarted now
  std::string now;          // RFC 3339, for condition times
  // The pods counted in `sets`, and those created now (Pending).
  std::vector<ObservedPod> pods{};
};

// What the local runtime does when one of a job's pods ends.
enum class PodEvent { kFailed, kEvicted, kSucceeded };
enum class GroupAction { kNone, kRestartPod, kRestartJob, kFailJob, kCompleteJob };

// Where one pod sits in its job, for its environment.
struct PodPosition {
  const std::vector<PodSetDef>* sets = nullptr;
  size_t set = 0;
  int64_t index = 0;
  std::string address;  // where every pod of the job is reached: "127.0.0.1"
};

class GroupJobKind : public JobKind {
 public:
  // ---- What each kind says ----

  // The job's pod sets in the order Kueue lists them, with the counts the job
  // asks for now. Called on validated jobs only.
  virtual std::vector<PodSetDef> PodSets(const Json& job) const = 0;
  // The job as ReconcileGroup reads it when its templates live elsewhere
  // (TrainJob: with the JobSet its runtime makes), or nullopt: the job
  // itself. Default: nullopt.
  virtual std::optional<Json> Expand(const Json& /*job*/) const { return std::nullopt; }
  // The suspend flag. Default: "/spec/suspend" (Kubeflow's is
  // "/spec/runPolicy/suspend").
  virtual Json::json_pointer SuspendPath() const;
  // The name of a pod the local runtime creates: "<job>-<set>-<index>".
  virtual std::string PodName(const Json& job, const PodSetDef& set, int64_t index) const;
  // Adds what the real operator gives this pod (environment, labels,
  // hostname) to `pod`, built from the set's template.
  virtual void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const = 0;
  // The job's status after what the runtime observed (the kind's own
  // fields and conditions). Returns the whole new status.
  virtual Json NextStatus(const Json& job, const GroupObservation& seen) const = 0;
  // Restarts counted so far, as NextStatus recorded them. Default:
  // status.restarts, 0 when absent.
  virtual int64_t Restarts(const Json& job) const;
  // How many restarts the job allows before it fails.
  virtual int64_t MaxRestarts(const Json& job) const = 0;
  // What to do when a pod of set `set` ends. Default: a failed or evicted
  // pod restarts unless its template says restartPolicy Never, which fails
  // the job; a succeeded pod changes nothing.
  virtual GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const;
  // Whether the job has succeeded, from what was observed (called while it
  // runs). Default: every pod of every set succeeded.
  virtual bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                         const GroupObservation& seen) const;
  // The priority class a job names when it has no kueue.x-k8s.io/priority-class
  // label. Default: the first pod template's priorityClassName.
  virtual std::string PodPriorityClass(const Json& job) const;
  // Where `set`'s template metadata is, as Kueue's webhook names it in its
  // topology errors. Default: the template's dotted path + ".metadata"
  // ("spec.replicatedJobs[0].template.spec.template.metadata").
  virtual std::string TopologyMetadataPath(const PodSetDef& set) const;

  // ---- The same for every kind ----

  void DefaultOnCreate(Json& job) const override;
  Result<Json> BuildWorkload(const Json& job) const override;
  bool IsSuspended(const Json& job) const override;
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  Json Stop(const Json& job) const override;
  std::string PodSetTemplateField(const Json& job, size_t index) const override;

  // Kueue's webhook checks of the topology annotations on every pod set's
  // template (ValidateTASPodSetRequest, then the slice size against the
  // set's count), and with `check_groups` of the pod set groups they name
  // (ValidatePodSetGroupingTopology). For a kind's Validate, once the rest
  // of the job is valid (it reads PodSets).
  Status ValidateTopology(const Json& job, bool check_groups) const;
};

// "/spec/tasks/0/template" -> "spec.tasks[0].template".
std::string DottedPath(const Json::json_pointer& pointer);

// The pod template of `set` in `job`, or null when absent.
const Json* FindTemplate(const Json& job, const PodSetDef& set);

// A condition list entry as operators write them.
Json MakeCondition(const std::string& type, const std::string& status, const std::string& reason,
                   const std::string& message, const std::string& now);
// Sets condition `c` in `conditions` (an array), keeping the old transition
// time when the status did not change.
void SetCondition(Json& conditions, Json c);

}  // namespace kuota::jobs
