#include "control/stateful_set_pods.h"

#include <string>

#include "control/meta_string.h"
#include "jobs/job_fields.h"
#include "jobs/job_kind.h"
#include "jobs/pod_kind.h"
#include "jobs/serving_workloads.h"
#include "jobs/topology_request.h"

namespace kuota::control {

bool NeedsStatefulSetLabels(const nlohmann::json& pod) {
  return jobs::MetaMapValue(pod, "annotations", jobs::kPodSuspendingParentAnnotation) ==
             jobs::kStatefulSetFramework &&
         !jobs::IsManagedPod(pod) && !jobs::PodIsTerminal(pod) && !jobs::PodIsDeleting(pod);
}

Result<std::optional<nlohmann::json>> LabelStatefulSetPod(store::ObjectStore& store,
                                                          const nlohmann::json& pod) {
  if (!NeedsStatefulSetLabels(pod)) return std::optional<nlohmann::json>();
  std::string owner;
  const nlohmann::json meta = pod.value("metadata", nlohmann::json::object());
  for (const auto& r : meta.value("ownerReferences", nlohmann::json::array())) {
    if (r.is_object() && r.value("controller", false) && r.value("kind", "") == "StatefulSet" &&
        r.value("apiVersion", "") == "apps/v1") {
      owner = r.value("name", "");
    }
  }
  if (owner.empty()) return std::optional<nlohmann::json>();
  Result<nlohmann::json> sts = store.Get("statefulsets.apps", MetaString(pod, "namespace"), owner);
  if (!sts.ok()) {
    if (sts.status().code() == StatusCode::kNotFound) return std::optional<nlohmann::json>();
    return sts.status();
  }
  if (jobs::JobKind::QueueName(*sts).empty()) return std::optional<nlohmann::json>();
  nlohmann::json labelled = pod;
  jobs::DefaultStatefulSetPod(*sts, labelled);
  // The pod index label Kueue's pod webhook copies for a group pod.
  labelled["metadata"]["labels"][jobs::kPodGroupPodIndexLabel] =
      jobs::MetaMapValue(pod, "labels", "apps.kubernetes.io/pod-index");
  KUOTA_ASSIGN_OR_RETURN(nlohmann::json stored, store.Update("pods", labelled));
  return std::optional<nlohmann::json>(std::move(stored));
}

}  // namespace kuota::control
