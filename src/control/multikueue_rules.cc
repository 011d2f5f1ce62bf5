#include "control/multikueue_rules.h"

#include <set>

#include "api/validation/field_errors.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

const Json* MkMember(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

Status MkRequired(const std::string& path) { return Status::Invalid(path + ": Required value"); }

Status MkString(const Json* value, const std::string& path, size_t max) {
  if (value == nullptr) return MkRequired(path);
  if (!value->is_string()) {
    return Status::Invalid(path + ": Invalid value: \"" + std::string(value->type_name()) +
                           "\": " + path + " in body must be of type string: \"" +
                           value->type_name() + "\"");
  }
  const std::string& s = value->get_ref<const std::string&>();
  if (s.empty()) {
    return Status::Invalid(path + ": Invalid value: \"\": " + path +
                           " in body should be at least 1 chars long");
  }
  if (s.size() > max) {
    return Status::Invalid(path + ": Too long: may not be more than " + std::to_string(max) +
                           " bytes");
  }
  return Status::Ok();
}

Status ValidateKubeConfig(const Json& kc, const std::string& path) {
  if (!kc.is_object()) return Status::Invalid(path + ": Invalid value: must be an object");
  KUOTA_RETURN_IF_ERROR(MkString(MkMember(kc, "location"), path + ".location", 256));
  const Json* type = MkMember(kc, "locationType");
  if (type != nullptr && (!type->is_string() || (*type != "Secret" && *type != "Path"))) {
    return Status::Invalid(path + ".locationType: Unsupported value: " + type->dump() +
                           ": supported values: \"Secret\", \"Path\"");
  }
  for (const auto& [key, value] : kc.items()) {
    (void)value;
    if (key != "location" && key != "locationType") {
      return Status::Invalid(path + "." + key + ": unknown field");
    }
  }
  return Status::Ok();
}

Status ValidateCluster(const Json& object) {
  const Json* spec = MkMember(object, "spec");
  const Json* source = spec != nullptr ? MkMember(*spec, "clusterSource") : nullptr;
  if (source == nullptr) return MkRequired("spec.clusterSource");
  if (!source->is_object()) {
    return Status::Invalid("spec.clusterSource: Invalid value: must be an object");
  }
  const Json* kc = MkMember(*source, "kubeConfig");
  const Json* profile = MkMember(*source, "clusterProfileRef");
  if ((kc != nullptr) == (profile != nullptr)) {
    return Status::Invalid(
        "spec.clusterSource: Invalid value: \"object\": exactly one of the fields in "
        "[kubeConfig clusterProfileRef] must be set");
  }
  if (kc != nullptr) return ValidateKubeConfig(*kc, "spec.clusterSource.kubeConfig");
  return MkString(MkMember(*profile, "name"), "spec.clusterSource.clusterProfileRef.name", 256);
}

Status ValidateConfig(const Json& object) {
  const Json* spec = MkMember(object, "spec");
  const Json* clusters = spec != nullptr ? MkMember(*spec, "clusters") : nullptr;
  if (clusters == nullptr) return MkRequired("spec.clusters");
  if (!clusters->is_array()) {
    return Status::Invalid("spec.clusters: Invalid value: \"" + std::string(clusters->type_name()) +
                           "\": spec.clusters in body must be of type array");
  }
  if (clusters->empty()) {
    return Status::Invalid(
        "spec.clusters: Invalid value: 0: spec.clusters in body should have at least 1 items");
  }
  if (clusters->size() > 20) {
    return Status::Invalid("spec.clusters: Too many: " + std::to_string(clusters->size()) +
                           ": must have at most 20 items");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < clusters->size(); ++i) {
    KUOTA_RETURN_IF_ERROR(MkString(&(*clusters)[i], validation::Index("spec.clusters", i), 256));
    seen.insert((*clusters)[i].get<std::string>());
  }
  if (seen.size() != clusters->size()) {
    return Status::Invalid("spec.clusters: Invalid value: \"array\": must be unique");
  }
  if (const Json* qm = MkMember(*spec, "quotaManagement");
      qm != nullptr && (!qm->is_string() || (*qm != "Manual" && *qm != "Automated"))) {
    return Status::Invalid("spec.quotaManagement: Unsupported value: " + qm->dump() +
                           ": supported values: \"Manual\", \"Automated\"");
  }
  return Status::Ok();
}

}  // namespace

bool IsMultiKueueKind(const std::string& kind) {
  return kind == "MultiKueueCluster" || kind == "MultiKueueConfig";
}

void DefaultMultiKueueObject(const std::string& kind, Json& object) {
  if (kind != "MultiKueueCluster") return;
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return;
  auto source = spec->find("clusterSource");
  if (source == spec->end() || !source->is_object()) return;
  auto kc = source->find("kubeConfig");
  if (kc != source->end() && kc->is_object() && !kc->contains("locationType")) {
    (*kc)["locationType"] = "Secret";
  }
}

Status ValidateMultiKueueObject(const std::string& kind, const Json& object) {
  if (kind == "MultiKueueCluster") return ValidateCluster(object);
  if (kind == "MultiKueueConfig") return ValidateConfig(object);
  return Status::Ok();
}

}  // namespace kuota::control
