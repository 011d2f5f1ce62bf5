// AdmissionCheck: v1beta1 spec.retryDelayMinutes (deprecated) does not exist
// in v1beta2 and is dropped.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {

Status AdmissionCheckUp(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) spec->erase("retryDelayMinutes");
  return Status::Ok();
}

Status AdmissionCheckDown(Json&) { return Status::Ok(); }

}  // namespace kuota::conversion
