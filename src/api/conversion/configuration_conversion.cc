// Configuration (config.kueue.x-k8s.io): v1beta2 has no fairSharing.enable or
// waitForPodsReady.enable: the section's presence turns the feature on. Up
// drops a disabled section and the enable flags (a v1beta1 waitForPodsReady
// without blockAdmission gets blockAdmission: true, its v1beta1 default when
// enabled); Down sets enable: true on each present section (a v1beta2
// waitForPodsReady without blockAdmission gets blockAdmission: false, as
// Kueue's conversion does). v1beta2 also drops v1beta1's deprecated
// queueVisibility and integrations.podOptions.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {
namespace {

bool Enabled(const Json& section) {
  auto it = section.find("enable");
  return it != section.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

Status ConfigurationUp(Json& object) {
  if (Json* fs = ObjectMember(object, "fairSharing")) {
    if (!Enabled(*fs)) {
      object.erase("fairSharing");
    } else {
      fs->erase("enable");
    }
  }
  if (Json* w = ObjectMember(object, "waitForPodsReady")) {
    if (!Enabled(*w)) {
      object.erase("waitForPodsReady");
    } else {
      w->erase("enable");
      if (!w->contains("blockAdmission")) (*w)["blockAdmission"] = true;
    }
  }
  object.erase("queueVisibility");
  if (Json* integrations = ObjectMember(object, "integrations")) integrations->erase("podOptions");
  return Status::Ok();
}

Status ConfigurationDown(Json& object) {
  if (Json* fs = ObjectMember(object, "fairSharing")) {
    if (!fs->contains("enable")) (*fs)["enable"] = true;
  }
  if (Json* w = ObjectMember(object, "waitForPodsReady")) {
    if (!w->contains("enable")) (*w)["enable"] = true;
    if (!w->contains("blockAdmission")) (*w)["blockAdmission"] = false;
  }
  return Status::Ok();
}

}  // namespace kuota::conversion
