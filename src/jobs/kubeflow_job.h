// KubeflowJobKind: the one class serving the Kubeflow job kinds whose spec is a
// map of replica specs ({Type: {replicas, restartPolicy, template}}) beside a
// runPolicy (suspend, backoffLimit, cleanPodPolicy, schedulingPolicy):
// PyTorchJob, TFJob, JAXJob, PaddleJob and XGBoostJob (training-operator,
// kubeflow.org/v1) and MPIJob (mpi-operator, kubeflow.org/v2beta1). It
// implements what those operators share: the replica-spec and runPolicy
// checks, Kueue's pod sets (one per replica type present, in Kueue's order,
// named by the lower-cased type, count = replicas defaulting to 1, no partial
// admission), the labels the operators put on pods, the replica restart
// policies, and the status they write (conditions Created / Running /
// Restarting / Suspended / Succeeded / Failed, the changed one moved last as
// the operators do, so the CRD's "State" column `.status.conditions[-1:].type`
// reads the latest; replicaStatuses
// {Type: {active, succeeded, failed}}; startTime and completionTime).
//
// Kuota addition: `status.restarts`, the pod restarts counted so far (the
// operators keep no such field; the local runtime needs it back).
//
// Each kind is a KubeflowKindSpec (its KindInfo, traits and hooks). Stateless;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jobs/group_job_kind.h"

namespace kuota::jobs {

// Pod labels the Kubeflow operators set (kubeflow/common's constants).
inline constexpr const char* kKubeflowJobNameLabel = "training.kubeflow.org/job-name";
inline constexpr const char* kKubeflowOperatorNameLabel = "training.kubeflow.org/operator-name";
inline constexpr const char* kKubeflowReplicaTypeLabel = "training.kubeflow.org/replica-type";
inline constexpr const char* kKubeflowReplicaIndexLabel = "training.kubeflow.org/replica-index";
inline constexpr const char* kKubeflowJobRoleLabel = "training.kubeflow.org/job-role";

// The replica types more than one kind has.
inline constexpr const char* kKubeflowMaster = "Master";
inline constexpr const char* kKubeflowWorker = "Worker";

// One replica type a kind knows.
struct KubeflowReplicaType {
  std::string name;                    // "Master"
  std::string default_restart_policy;  // what the operator's defaulting sets
  int stage = 0;                       // PodSetDef::stage for its pods
};

// What differs between the operators; one constant per kind.
struct KubeflowTraits {
  std::string specs_field;                    // "pytorchReplicaSpecs"
  std::vector<KubeflowReplicaType> types;     // Kueue's pod set order
  std::vector<std::string> restart_policies;  // accepted replica restartPolicy values
  std::string default_container;              // required container name; "" for none
  bool image_required = true;                 // every container names an image
  std::string operator_name;                  // training.kubeflow.org/operator-name
  int64_t default_backoff_limit = -1;         // without runPolicy.backoffLimit; -1: unlimited
  // Kueue's webhook checks the pod set groups the templates name
  // (kueue.x-k8s.io/podset-group-name): its MPIJob webhook does, its
  // training-operator one does not.
  bool check_pod_set_groups = false;
  // The missing-container message quotes the name (PaddleJob's webhook: %q).
  bool quote_container_name = false;
};

class KubeflowJobKind;

// What a Kubeflow kind does its own way, called with the kind serving it.
struct KubeflowHooks {
  using EnvVar = std::pair<std::string, std::string>;

  // The kind's own webhook rules, after the shared ones passed.
  Status (*validate_kind)(const KubeflowJobKind& kind, const Json& job) = nullptr;
  // The job-name check of the kind's webhook: Ok, or Invalid on metadata.name.
  Status (*validate_name)(const KubeflowJobKind& kind, const Json& job) = nullptr;
  // The environment the operator gives the pod at `where` (replica `type`).
  std::vector<EnvVar> (*pod_env)(const KubeflowJobKind& kind, const Json& job,
                                 const PodPosition& where, const std::string& type) = nullptr;
  // Whether the pod gets training.kubeflow.org/job-role=master.
  bool (*is_master_role)(const KubeflowJobKind& kind, const Json& job, const std::string& type,
                         int64_t index) = nullptr;
  // Whether the job has succeeded (GroupJobKind::Succeeded).
  bool (*succeeded)(const KubeflowJobKind& kind, const Json& job,
                    const std::vector<PodSetDef>& sets, const GroupObservation& seen) = nullptr;
};

// What one Kubeflow kind says beyond the shared behaviour; one constant per
// kind (PyTorchJobSpec, TFJobSpec, MPIJobSpec, JAXJobSpec, ...).
struct KubeflowKindSpec {
  KindInfo info;
  KubeflowTraits traits;
  KubeflowHooks hooks;
};

// One Kubeflow kind: the shared behaviour, with what differs read from its
// spec (which must outlive it).
class KubeflowJobKind final : public GroupJobKind {
 public:
  using EnvVar = KubeflowHooks::EnvVar;

  explicit KubeflowJobKind(const KubeflowKindSpec& spec) : spec_(spec) {}

  const KindInfo& Info() const override { return spec_.info; }
  const KubeflowTraits& Traits() const { return spec_.traits; }
  Status Validate(const Json& job) const override;
  std::vector<PodSetDef> PodSets(const Json& job) const override;
  Json::json_pointer SuspendPath() const override;
  void CustomizePod(const Json& job, const PodPosition& where, Json& pod) const override;
  Json NextStatus(const Json& job, const GroupObservation& seen) const override;
  int64_t Restarts(const Json& job) const override;
  int64_t MaxRestarts(const Json& job) const override;
  // By the replica's restartPolicy: Always/OnFailure restart the pod; Never
  // fails the job; ExitCode restarts an evicted pod (killed by a signal, exit
  // code >= 128) and fails the job on any other failure (the runtime does not
  // report exit codes, so a failure counts as a program error, 1-127).
  GroupAction OnPodEvent(const Json& job, const PodSetDef& set, PodEvent event) const override;
  bool Succeeded(const Json& job, const std::vector<PodSetDef>& sets,
                 const GroupObservation& seen) const override;
  // runPolicy.schedulingPolicy.priorityClass, else the first template's
  // priorityClassName in pod set order (Kueue's KubeflowJob.PriorityClass).
  std::string PodPriorityClass(const Json& job) const override;
  // "spec.<field>[<Type>].template.metadata", as Kueue keys replica types.
  std::string TopologyMetadataPath(const PodSetDef& set) const override;
  bool IsFinished(const Json& job, bool* succeeded) const override;
  // Every replica of every type is active or has succeeded, as the status
  // reads, and the job is not suspended.
  bool PodsReady(const Json& job) const override;

  // ---- Reading the job (for the kinds' hooks) ----

  // The replica types present in the job, in Kueue's order.
  std::vector<std::string> PresentTypes(const Json& job) const;
  // The replica type of a pod set ("worker" -> "Worker"); "" when unknown.
  std::string TypeOfSet(const std::string& set_name) const;
  // The replica spec of `type`, or null.
  const Json* ReplicaSpec(const Json& job, const std::string& type) const;
  // spec.<field>.<type>.replicas, 1 when unset; 0 when the type is absent.
  int64_t ReplicaCount(const Json& job, const std::string& type) const;
  // The sum of every present type's replicas.
  int64_t TotalReplicas(const Json& job) const;
  // The containerPort named `port_name` of the container named `container`
  // in `type`'s template; `fallback` when there is none.
  int64_t NamedPort(const Json& job, const std::string& type, const std::string& container,
                    const std::string& port_name, int64_t fallback) const;
  // The restartPolicy of `type` (the operator's default when unset).
  std::string RestartPolicy(const Json& job, const std::string& type) const;
  // What was observed of replica `type`, and how many it wants; false when
  // the job has no such pod set.
  bool Observed(const std::vector<PodSetDef>& sets, const GroupObservation& seen,
                const std::string& type, PodSetObservation* out, int64_t* want) const;
  // "spec.<field>" and "spec.<field>.<type>".
  std::string SpecsPath() const;
  std::string TypePath(const std::string& type) const;

 private:
  const KubeflowKindSpec& spec_;
};

// The printer columns of the training-operator CRDs: State, the type of the
// last condition (`.status.conditions[-1:].type`), and Age
// (metadata.creationTimestamp, printed as an age).
PrinterColumn KubeflowStateColumn();
PrinterColumn KubeflowAgeColumn();

// obj[key] when obj is an object holding a non-null `key`; else null.
const Json* FieldOrNull(const Json& obj, const char* key);
// "Master" -> "master".
std::string LowerAscii(std::string s);
// Kube's DNS-1035 and DNS-1123 label checks: "" when valid, else kube's message.
std::string CheckDns1035Label(const std::string& value);
std::string CheckDns1123LabelValue(const std::string& value);
// training-operator's job-name rule (its five kinds): metadata.name is a
// DNS-1035 label. A KubeflowKindSpec::validate_name hook.
Status ValidateTrainingJobName(const KubeflowJobKind& kind, const Json& job);
// The is_master_role hook of the kinds whose Master replica is the master
// (PyTorchJob, PaddleJob, XGBoostJob).
bool MasterTypeIsMasterRole(const KubeflowJobKind& kind, const Json& job, const std::string& type,
                            int64_t index);
// The succeeded hook of PyTorchJob and PaddleJob: every Master pod
// succeeded, or, with no Master, every Worker pod.
bool MasterElseWorkersSucceeded(const KubeflowJobKind& kind, const Json& job,
                                const std::vector<PodSetDef>& sets, const GroupObservation& seen);
// "Unsupported value" for `path`, listing the supported values.
Status NotSupported(const std::string& path, const Json& value,
                    const std::vector<std::string>& supported);
// "Forbidden: <why>" for `path`.
Status Forbidden(const std::string& path, const std::string& why);

}  // namespace kuota::jobs
