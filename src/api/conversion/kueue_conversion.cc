#include "api/conversion/kueue_conversion.h"

#include <string>

#include "api/conversion/kind_conversions.h"

namespace kuota::conversion {
namespace {

// Kinds whose v1beta1 and v1beta2 forms have the same fields.
bool IsSameInBothVersions(std::string_view kind) {
  return kind == "ResourceFlavor" || kind == "Cohort" || kind == "WorkloadPriorityClass" ||
         kind == "Topology" || kind == "ProvisioningRequestConfig";
}

struct Steps {
  Status (*up)(Json&);
  Status (*down)(Json&);
};

Status NoChange(Json&) { return Status::Ok(); }

const Steps* StepsFor(std::string_view group, std::string_view kind) {
  static const Steps kSame{&NoChange, &NoChange};
  static const Steps kClusterQueue{&ClusterQueueUp, &ClusterQueueDown};
  static const Steps kLocalQueue{&LocalQueueUp, &LocalQueueDown};
  static const Steps kWorkload{&WorkloadUp, &WorkloadDown};
  static const Steps kAdmissionCheck{&AdmissionCheckUp, &AdmissionCheckDown};
  static const Steps kMultiKueueCluster{&MultiKueueClusterUp, &MultiKueueClusterDown};
  static const Steps kMultiKueueConfig{&MultiKueueConfigUp, &MultiKueueConfigDown};
  static const Steps kConfiguration{&ConfigurationUp, &ConfigurationDown};
  if (group == kConfigGroup) return kind == "Configuration" ? &kConfiguration : nullptr;
  if (group != kKueueGroup) return nullptr;
  if (IsSameInBothVersions(kind)) return &kSame;
  if (kind == "ClusterQueue") return &kClusterQueue;
  if (kind == "LocalQueue") return &kLocalQueue;
  if (kind == "Workload") return &kWorkload;
  if (kind == "AdmissionCheck") return &kAdmissionCheck;
  if (kind == "MultiKueueCluster") return &kMultiKueueCluster;
  if (kind == "MultiKueueConfig") return &kMultiKueueConfig;
  return nullptr;
}

}  // namespace

bool IsConvertibleKind(std::string_view kind) { return StepsFor(kKueueGroup, kind) != nullptr; }

void RenameField(Json& object, const char* from, const char* to) {
  if (!object.is_object()) return;
  auto it = object.find(from);
  if (it == object.end()) return;
  Json value = std::move(*it);
  object.erase(it);
  object[to] = std::move(value);
}

Json* ObjectMember(Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return nullptr;
  return &*it;
}

Result<Json> Convert(const Json& object, std::string_view to_version) {
  if (!object.is_object()) return Status::Invalid("expected an object, got " + object.dump());
  auto api_version = object.find("apiVersion");
  auto kind_it = object.find("kind");
  if (api_version == object.end() || !api_version->is_string()) {
    return Status::Invalid("apiVersion: Required value");
  }
  if (kind_it == object.end() || !kind_it->is_string()) {
    return Status::Invalid("kind: Required value");
  }
  std::string av = api_version->get<std::string>();
  std::string kind = kind_it->get<std::string>();
  size_t slash = av.find('/');
  if (slash == std::string::npos) {
    return Status::Invalid("apiVersion: Unsupported value: \"" + av + "\"");
  }
  std::string group = av.substr(0, slash);
  std::string from = av.substr(slash + 1);
  if (to_version != kV1beta1 && to_version != kV1beta2) {
    return Status::Invalid("cannot convert to version \"" + std::string(to_version) + "\"");
  }
  if (from != kV1beta1 && from != kV1beta2) {
    return Status::Invalid("apiVersion: Unsupported value: \"" + av +
                           "\": supported versions: v1beta1, v1beta2");
  }
  const Steps* steps = StepsFor(group, kind);
  if (steps == nullptr) {
    return Status::Invalid("kind: Unsupported value: \"" + kind + "\": no conversion for " + av);
  }
  Json out = object;
  if (from == to_version) return out;
  Status st = to_version == kV1beta2 ? steps->up(out) : steps->down(out);
  if (!st.ok()) return st;
  out["apiVersion"] = group + "/" + std::string(to_version);
  return out;
}

}  // namespace kuota::conversion
