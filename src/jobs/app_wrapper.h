// AppWrapperKind: CodeFlare's workload.codeflare.dev/v1beta2 AppWrapper as a
// Kueue integration ("workload.codeflare.dev/appwrapper"): a group of
// Kubernetes objects (spec.components[].template) queued and run as one
// unit. Each component's pod sets are declared (spec.components[].podSets:
// replicas, a path to a pod template inside the component, annotations) or,
// for the kinds the AppWrapper controller knows (batch Job, JobSet,
// PyTorchJob, RayCluster, RayJob, Pod, Deployment, StatefulSet), inferred.
// The Workload has one pod set per AppWrapper pod set ("<name>-<i>"), as
// Kueue's appwrapper integration builds it; starting writes the admitted
// placement into spec.components[].podSetInfos and clears spec.suspend, and
// the AppWrapper controller (on a cluster CodeFlare's, in kuotad
// standalone/app_wrapper_reconciler.h) creates the components with it
// injected at each pod set's path. Finished and pods-ready come from the
// status the controller writes (phase, conditions). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jobs/job_kind.h"

namespace kuota::jobs {

// The label the AppWrapper controller puts on every component and on every
// pod template it injects into: the AppWrapper's name.
inline constexpr const char* kAppWrapperLabel = "workload.codeflare.dev/appwrapper";
// The AppWrapper controller's name, spec.managedBy's default meaning.
inline constexpr const char* kAppWrapperControllerName =
    "workload.codeflare.dev/appwrapper-controller";
// The pod set annotations that carry the component's pod index labels for
// Kueue's topology-aware scheduling.
inline constexpr const char* kAppWrapperTasPodIndexLabel =
    "workload.codeflare.dev.appwrapper/tas-pod-index-label";
inline constexpr const char* kAppWrapperTasSubGroupIndexLabel =
    "workload.codeflare.dev.appwrapper/tas-sub-group-index-label";
inline constexpr const char* kAppWrapperTasSubGroupCount =
    "workload.codeflare.dev.appwrapper/tas-sub-group-count";

// One pod set of an AppWrapper: declared, or inferred from its component.
struct AppWrapperPodSet {
  size_t component = 0;        // index in spec.components
  size_t index = 0;            // index among the component's pod sets
  std::string path;            // "template.spec.template"
  Json::json_pointer pointer;  // the same inside the component: "/template/spec/template"
  int64_t replicas = 1;        // declared, else inferred; 1 when neither says
  Json annotations = Json::object();
};

class AppWrapperKind final : public JobKind {
 public:
  const KindInfo& Info() const override;
  // The AppWrapper webhook's checks on create (components decode as objects
  // with apiVersion and kind, no nested AppWrapper, no other namespace,
  // every declared pod set's path leads to a pod template and matches what
  // is inferred, 1 to 8 pod sets) and, for a queued AppWrapper, Kueue's
  // topology annotations on every pod set's template.
  Status Validate(const Json& job) const override;
  // The webhook's deep immutability: components' templates and declared pod
  // sets, managedBy, the user labels.
  Status ValidateUpdate(const Json& old_job, const Json& job) const override;
  // The AppWrapper webhook's defaulting: the workload.codeflare.dev/user and
  // /userid labels name who created it (sanitized as label values), here the
  // submitter kuotad's API server recorded (jobctl/submitter.h).
  void Default(Json& job) const override;
  void DefaultOnCreate(Json& job) const override;
  Result<Json> BuildWorkload(const Json& job) const override;
  bool IsSuspended(const Json& job) const override;
  // spec.components[].podSetInfos (each pod set's nodeSelector,
  // tolerations, labels, annotations) and spec.suspend false.
  Json Start(const Json& job, const std::vector<PodSetPlacement>& placement) const override;
  // spec.components[].podSetInfos cleared, spec.suspend true.
  Json Stop(const Json& job) const override;
  // Kueue's: phase Succeeded; phase Failed once its resources are deleted
  // (ResourcesDeployed not True).
  bool IsFinished(const Json& job, bool* succeeded) const override;
  // The PodsReady condition the controller writes.
  bool PodsReady(const Json& job) const override;
  // "spec.components[c].template.<path after template>".
  std::string PodSetTemplateField(const Json& job, size_t index) const override;
  // True: Kueue's topology gate, workload annotation and pod set label go
  // into podSetInfos (schedulingGates, annotations, labels), as Kueue's
  // RunWithPodSetsInfo passes them; the templates are immutable.
  bool TopologyGatesInPlacement() const override { return true; }

  // The AppWrapper's pod sets in order (component by component): declared,
  // else inferred for the known kinds. Invalid naming the field when a path
  // does not parse or an inferred count is not an integer.
  static Result<std::vector<AppWrapperPodSet>> PodSets(const Json& job);
  // The component `index` as the controller creates it: the template with
  // the AppWrapper's namespace, kAppWrapperLabel on it and on each pod set's
  // template, each pod set's podSetInfo injected (nodeSelector, tolerations,
  // labels, annotations, schedulingGates), and the AppWrapper as its
  // controlling owner. Invalid when an injected key conflicts with one the
  // template has, as the controller refuses it.
  static Result<Json> ComponentObject(const Json& job, size_t index);
};

// "template.spec.replicatedJobs[0].template" -> "/template/spec/replicatedJobs/0/template";
// Invalid when it does not start with "template" or does not parse.
Result<Json::json_pointer> AppWrapperPathPointer(const std::string& path);

}  // namespace kuota::jobs
