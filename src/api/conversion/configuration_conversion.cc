// Configuration (config.kueue.x-k8s.io): v1beta2 has no fairSharing.enable or
// waitForPodsReady.enable. A present fairSharing is on; waitForPodsReady is
// on even when absent (Kueue's v1beta2 defaulting: timeout 30m, v1beta1's 5m)
// unless the feature gate DisableWaitForPodsReady is set. Up drops a disabled
// fairSharing; a disabled or absent waitForPodsReady becomes that feature gate
// (Kueue's conversion leaves the section nil, which its in-memory Configuration
// reads as off; a v1beta2 document without it would be defaulted on). An enabled
// one keeps its timeout (5m when unset, as Kueue's conversion fills it) and gets
// blockAdmission: true when unset (its v1beta1 default). Down sets enable: true
// on each present section, and makes Kueue's v1beta2 defaults explicit: an
// absent waitForPodsReady (gate off) becomes an enabled one, timeout 30m when
// unset, blockAdmission false when unset (as Kueue's conversion does). v1beta2
// also drops v1beta1's deprecated queueVisibility and integrations.podOptions.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {
namespace {

constexpr const char* kDisableGate = "DisableWaitForPodsReady";

bool Enabled(const Json& section) {
  auto it = section.find("enable");
  return it != section.end() && it->is_boolean() && it->get<bool>();
}

// Whether featureGates sets DisableWaitForPodsReady.
bool PodsReadyGateOff(const Json& object) {
  auto gates = object.find("featureGates");
  if (gates == object.end() || !gates->is_object()) return false;
  auto gate = gates->find(kDisableGate);
  return gate != gates->end() && gate->is_boolean() && gate->get<bool>();
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
  Json* w = ObjectMember(object, "waitForPodsReady");
  if (w != nullptr && Enabled(*w)) {
    w->erase("enable");
    if (!w->contains("timeout")) (*w)["timeout"] = "5m";
    if (!w->contains("blockAdmission")) (*w)["blockAdmission"] = true;
  } else {
    object.erase("waitForPodsReady");
    if (!object.contains("featureGates") || !object["featureGates"].is_object()) {
      object["featureGates"] = Json::object();
    }
    object["featureGates"][kDisableGate] = true;
  }
  object.erase("queueVisibility");
  if (Json* integrations = ObjectMember(object, "integrations")) integrations->erase("podOptions");
  return Status::Ok();
}

Status ConfigurationDown(Json& object) {
  if (Json* fs = ObjectMember(object, "fairSharing")) {
    if (!fs->contains("enable")) (*fs)["enable"] = true;
  }
  if (!PodsReadyGateOff(object) && !ObjectMember(object, "waitForPodsReady")) {
    object["waitForPodsReady"] = Json::object();
  }
  if (Json* w = ObjectMember(object, "waitForPodsReady")) {
    if (!w->contains("enable")) (*w)["enable"] = true;
    if (!w->contains("timeout")) (*w)["timeout"] = "30m";
    if (!w->contains("blockAdmission")) (*w)["blockAdmission"] = false;
  }
  return Status::Ok();
}

}  // namespace kuota::conversion
