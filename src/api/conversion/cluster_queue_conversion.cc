// ClusterQueue: v1beta1 spec.cohort is v1beta2 spec.cohortName; v1beta1
// spec.admissionChecks (names) becomes spec.admissionChecksStrategy (rules
// without onFlavors, which apply to every flavor); v1beta1's deprecated
// flavorFungibility values Borrow / Preempt are v1beta2's MayStopSearch;
// status.pendingWorkloadsStatus (v1beta1 only) is dropped.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {

Status ClusterQueueUp(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) {
    RenameField(*spec, "cohort", "cohortName");
    auto checks = spec->find("admissionChecks");
    if (checks != spec->end()) {
      Json names = std::move(*checks);
      spec->erase(checks);
      if (names.is_array() && !names.empty()) {
        Json rules = Json::array();
        for (const Json& name : names) rules.push_back({{"name", name}});
        (*spec)["admissionChecksStrategy"] = {{"admissionChecks", rules}};
      }
    }
    if (Json* ff = ObjectMember(*spec, "flavorFungibility")) {
      if (ff->value("whenCanBorrow", "") == "Borrow") (*ff)["whenCanBorrow"] = "MayStopSearch";
      if (ff->value("whenCanPreempt", "") == "Preempt") (*ff)["whenCanPreempt"] = "MayStopSearch";
    }
  }
  if (Json* status = ObjectMember(object, "status")) status->erase("pendingWorkloadsStatus");
  return Status::Ok();
}

Status ClusterQueueDown(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) RenameField(*spec, "cohortName", "cohort");
  return Status::Ok();
}

}  // namespace kuota::conversion
