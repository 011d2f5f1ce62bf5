// LocalQueue: v1beta1 status.flavorUsage is v1beta2 status.flavorsUsage;
// v1beta1 status.flavors (the flavors' node labels and taints) is dropped.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {

Status LocalQueueUp(Json& object) {
  if (Json* status = ObjectMember(object, "status")) {
    RenameField(*status, "flavorUsage", "flavorsUsage");
    status->erase("flavors");
  }
  return Status::Ok();
}

Status LocalQueueDown(Json& object) {
  if (Json* status = ObjectMember(object, "status")) {
    RenameField(*status, "flavorsUsage", "flavorUsage");
  }
  return Status::Ok();
}

}  // namespace kuota::conversion
