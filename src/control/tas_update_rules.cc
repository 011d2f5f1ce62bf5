#include "control/tas_update_rules.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

const Json* SpecMember(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return nullptr;
  auto it = spec->find(key);
  return it == spec->end() || it->is_null() ? nullptr : &*it;
}

bool LowestIsHostname(const Json* levels) {
  if (levels == nullptr || !levels->is_array() || levels->empty()) return false;
  const Json& last = levels->back();
  return last.is_object() && last.value("nodeLabel", Json()) == "kubernetes.io/hostname";
}

}  // namespace

Status ValidateTasUpdate(const std::string& kind, const Json& old_object, const Json& object) {
  if (kind == "ResourceFlavor") {
    const Json* before = SpecMember(old_object, "topologyName");
    const Json* after = SpecMember(object, "topologyName");
    if (before != nullptr && (after == nullptr || *after != *before)) {
      return Status::Invalid(
          "spec: Invalid value: \"object\": topologyName is immutable when topologyName is set");
    }
  } else if (kind == "Topology") {
    const Json* before = SpecMember(old_object, "levels");
    const Json* after = SpecMember(object, "levels");
    const bool same =
        (before == nullptr) == (after == nullptr) && (before == nullptr || *before == *after);
    if (!same && !(LowestIsHostname(before) && LowestIsHostname(after))) {
      return Status::Invalid(
          "spec.levels: Invalid value: \"array\": levels are mutable only when "
          "kubernetes.io/hostname is the lowest level both before and after the change");
    }
  }
  return Status::Ok();
}

}  // namespace kuota::control
