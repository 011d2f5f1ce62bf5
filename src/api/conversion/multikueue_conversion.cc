// MultiKueueCluster: v1beta1's spec.kubeConfig and spec.clusterProfileRef sit
// under v1beta2's spec.clusterSource. MultiKueueConfig: v1beta2's
// spec.quotaManagement has no v1beta1 field and is dropped going down.
#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {

Status MultiKueueClusterUp(Json& object) {
  Json* spec = ObjectMember(object, "spec");
  if (spec == nullptr) return Status::Ok();
  Json source = Json::object();
  for (const char* field : {"kubeConfig", "clusterProfileRef"}) {
    auto it = spec->find(field);
    if (it == spec->end()) continue;
    // v1beta1's kubeConfig is required, so an empty one is its zero value.
    const bool empty_kubeconfig = std::string_view(field) == "kubeConfig" && it->is_object() &&
                                  it->value("location", "").empty();
    if (!empty_kubeconfig) source[field] = std::move(*it);
    spec->erase(it);
  }
  if (!source.empty()) (*spec)["clusterSource"] = std::move(source);
  return Status::Ok();
}

Status MultiKueueClusterDown(Json& object) {
  Json* spec = ObjectMember(object, "spec");
  if (spec == nullptr) return Status::Ok();
  auto it = spec->find("clusterSource");
  if (it == spec->end()) return Status::Ok();
  Json source = std::move(*it);
  spec->erase(it);
  if (!source.is_object()) return Status::Ok();
  for (const char* field : {"kubeConfig", "clusterProfileRef"}) {
    if (auto f = source.find(field); f != source.end()) (*spec)[field] = std::move(*f);
  }
  return Status::Ok();
}

Status MultiKueueConfigUp(Json&) { return Status::Ok(); }

Status MultiKueueConfigDown(Json& object) {
  if (Json* spec = ObjectMember(object, "spec")) spec->erase("quotaManagement");
  return Status::Ok();
}

}  // namespace kuota::conversion
