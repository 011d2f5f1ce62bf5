// Workload: v1beta1 spec.priorityClassName + spec.priorityClassSource are
// v1beta2 spec.priorityClassRef {group, kind, name}
// (kueue.x-k8s.io/WorkloadPriorityClass or scheduling.k8s.io/PriorityClass);
// status.accumulatedPastExexcutionTimeSeconds (v1beta1's spelling) is
// status.accumulatedPastExecutionTimeSeconds; each pod set assignment's
// topologyAssignment lists domains in v1beta1 and packs them into slices in
// v1beta2 (topology_assignment_conversion.cc); v1beta2's
// topologyRequest.podsetSliceRequiredTopologyConstraints has no v1beta1 form
// and is dropped going down, as Kueue drops it.
#include "api/conversion/kind_conversions.h"

#include <string>

namespace kuota::conversion {
namespace {

constexpr const char* kWorkloadSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr const char* kPodSource = "scheduling.k8s.io/priorityclass";

// Converts each status.admission.podSetAssignments[].topologyAssignment.
Status ConvertTopologyAssignments(Json& status, Status (*convert)(Json&, const std::string&)) {
  Json* admission = ObjectMember(status, "admission");
  if (admission == nullptr) return Status::Ok();
  auto it = admission->find("podSetAssignments");
  if (it == admission->end() || !it->is_array()) return Status::Ok();
  for (size_t i = 0; i < it->size(); ++i) {
    Json* assignment = ObjectMember((*it)[i], "topologyAssignment");
    if (assignment == nullptr) continue;
    KUOTA_RETURN_IF_ERROR(convert(*assignment, "status.admission.podSetAssignments[" +
                                                   std::to_string(i) + "].topologyAssignment"));
  }
  return Status::Ok();
}

}  // namespace

Status WorkloadUp(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) {
    std::string source = spec->value("priorityClassSource", "");
    std::string name = spec->value("priorityClassName", "");
    spec->erase("priorityClassSource");
    spec->erase("priorityClassName");
    // As Kueue: a name without a known source has no v1beta2 form.
    if (!name.empty() && source == kWorkloadSource) {
      (*spec)["priorityClassRef"] = {
          {"group", "kueue.x-k8s.io"}, {"kind", "WorkloadPriorityClass"}, {"name", name}};
    } else if (!name.empty() && source == kPodSource) {
      (*spec)["priorityClassRef"] = {
          {"group", "scheduling.k8s.io"}, {"kind", "PriorityClass"}, {"name", name}};
    }
  }
  if (Json* status = ObjectMember(object, "status")) {
    RenameField(*status, "accumulatedPastExexcutionTimeSeconds",
                "accumulatedPastExecutionTimeSeconds");
    KUOTA_RETURN_IF_ERROR(ConvertTopologyAssignments(*status, &TopologyAssignmentUp));
  }
  return Status::Ok();
}

Status WorkloadDown(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) {
    if (auto pod_sets = spec->find("podSets"); pod_sets != spec->end() && pod_sets->is_array()) {
      for (Json& pod_set : *pod_sets) {
        if (Json* request = ObjectMember(pod_set, "topologyRequest")) {
          request->erase("podsetSliceRequiredTopologyConstraints");
        }
      }
    }
    auto ref_it = spec->find("priorityClassRef");
    if (ref_it != spec->end()) {
      Json ref = std::move(*ref_it);
      spec->erase(ref_it);
      if (!ref.is_null()) {
        if (!ref.is_object()) {
          return Status::Invalid("spec.priorityClassRef: Invalid value: expected an object");
        }
        std::string group = ref.value("group", "");
        std::string kind = ref.value("kind", "");
        const Json& name = ref.contains("name") ? ref["name"] : Json();
        if (!name.is_string() || name.get<std::string>().empty()) {
          return Status::Invalid("spec.priorityClassRef.name: Required value");
        }
        if (group == "kueue.x-k8s.io" && kind == "WorkloadPriorityClass") {
          (*spec)["priorityClassSource"] = kWorkloadSource;
        } else if (group == "scheduling.k8s.io" && kind == "PriorityClass") {
          (*spec)["priorityClassSource"] = kPodSource;
        } else if (group != "kueue.x-k8s.io" && group != "scheduling.k8s.io") {
          return Status::Invalid("spec.priorityClassRef.group: Unsupported value: \"" + group +
                                 "\": supported values: \"kueue.x-k8s.io\", "
                                 "\"scheduling.k8s.io\"");
        } else {
          return Status::Invalid(
              "spec.priorityClassRef.kind: Unsupported value: \"" + kind + "\": group " + group +
              " allows only " +
              (group == "kueue.x-k8s.io" ? "WorkloadPriorityClass" : "PriorityClass"));
        }
        (*spec)["priorityClassName"] = name;
      }
    }
  }
  if (Json* status = ObjectMember(object, "status")) {
    RenameField(*status, "accumulatedPastExecutionTimeSeconds",
                "accumulatedPastExexcutionTimeSeconds");
    KUOTA_RETURN_IF_ERROR(ConvertTopologyAssignments(*status, &TopologyAssignmentDown));
  }
  return Status::Ok();
}

}  // namespace kuota::conversion
