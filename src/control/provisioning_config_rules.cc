#include "control/provisioning_config_rules.h"

#include <cstdint>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "api/validation/field_errors.h"

namespace kuota::control {
namespace {

using Json = nlohmann::json;

const Json* PrcMember(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// `path: Invalid value: "<type>": path in body must be of type <want>: "<type>"`.
void PrcWrongType(validation::FieldErrors& errs, const std::string& path, const Json& value,
                  const char* want) {
  const std::string got = value.is_number() ? "number" : value.type_name();
  errs.Invalid(path, got, path + " in body must be of type " + want + ": \"" + got + "\"");
}

// A string field with the CRD's minLength / maxLength / pattern.
void PrcString(validation::FieldErrors& errs, const Json& value, const std::string& path,
               size_t min, size_t max, const std::regex* pattern, const char* pattern_text) {
  if (!value.is_string()) return PrcWrongType(errs, path, value, "string");
  const std::string& s = value.get_ref<const std::string&>();
  if (s.size() > max) return errs.TooLong(path, max);
  if (s.size() < min) {
    return errs.Invalid(
        path, s, path + " in body should be at least " + std::to_string(min) + " chars long");
  }
  if (pattern != nullptr && !std::regex_match(s, *pattern)) {
    errs.Invalid(path, s, path + " in body should match '" + pattern_text + "'");
  }
}

constexpr const char* kPrcClassPattern =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
constexpr const char* kPrcKeyPattern =
    "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/"
    ")?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

void PrcInt32(validation::FieldErrors& errs, const Json& value, const std::string& path) {
  if (!value.is_number_integer()) return PrcWrongType(errs, path, value, "integer");
  const bool fits = value.is_number_unsigned()
                        ? value.get<uint64_t>() <= uint64_t{std::numeric_limits<int32_t>::max()}
                        : value.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                              value.get<int64_t>() <= std::numeric_limits<int32_t>::max();
  if (!fits) errs.Invalid(path, value.dump(), path + " in body should be an int32");
}

// Fields the schema does not declare, as kube-apiserver's strict decoding
// names them: `unknown field "spec.x"`.
void PrcUnknownFields(std::vector<std::string>& unknown, const Json& object,
                      const std::string& path, std::initializer_list<const char*> known) {
  for (const auto& [key, value] : object.items()) {
    (void)value;
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) unknown.push_back("unknown field \"" + validation::Child(path, key) + "\"");
  }
}

void PrcNodeSelector(validation::FieldErrors& errs, std::vector<std::string>& unknown,
                     const Json& list, const std::string& path) {
  if (!list.is_array()) return PrcWrongType(errs, path, list, "array");
  if (list.size() > 8) return errs.TooMany(path, list.size(), 8);
  static const std::regex kKey(kPrcKeyPattern);
  std::set<std::string> keys;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = validation::Index(path, i);
    const Json& item = list[i];
    if (!item.is_object()) {
      PrcWrongType(errs, at, item, "object");
      continue;
    }
    const Json* key = PrcMember(item, "key");
    const Json* detail = PrcMember(item, "valueFromProvisioningClassDetail");
    if (key == nullptr) errs.Required(at + ".key");
    if (detail == nullptr) errs.Required(at + ".valueFromProvisioningClassDetail");
    if (key != nullptr) {
      PrcString(errs, *key, at + ".key", 1, 317, &kKey, kPrcKeyPattern);
      if (key->is_string() && !keys.insert(key->get<std::string>()).second) {
        errs.Duplicate(at, "{\"key\":" + key->dump() + "}");
      }
    }
    if (detail != nullptr) {
      PrcString(errs, *detail, at + ".valueFromProvisioningClassDetail", 1, 32768, nullptr, "");
    }
    PrcUnknownFields(unknown, item, at, {"key", "valueFromProvisioningClassDetail"});
  }
}

}  // namespace

void DefaultProvisioningRequestConfig(Json& object) {
  if (!object.is_object()) return;
  Json& spec = object["spec"];
  if (!spec.is_object()) return;
  auto rs = spec.find("retryStrategy");
  if (rs == spec.end() || rs->is_null()) {
    spec["retryStrategy"] = {
        {"backoffLimitCount", 3}, {"backoffBaseSeconds", 60}, {"backoffMaxSeconds", 1800}};
    return;
  }
  if (!rs->is_object()) return;
  auto set = [&](const char* key, int v) {
    if (!rs->contains(key) || (*rs)[key].is_null()) (*rs)[key] = v;
  };
  set("backoffLimitCount", 3);
  set("backoffBaseSeconds", 60);
  set("backoffMaxSeconds", 1800);
}

Status ValidateProvisioningRequestConfig(const Json& object) {
  validation::FieldErrors errs;
  std::vector<std::string> unknown;
  const Json* spec = PrcMember(object, "spec");
  if (spec == nullptr) {
    errs.Required("spec.provisioningClassName");
    return errs.ToStatus();
  }
  if (!spec->is_object()) {
    PrcWrongType(errs, "spec", *spec, "object");
    return errs.ToStatus();
  }
  static const std::regex kClass(kPrcClassPattern);
  if (const Json* cls = PrcMember(*spec, "provisioningClassName"); cls == nullptr) {
    errs.Required("spec.provisioningClassName");
  } else {
    PrcString(errs, *cls, "spec.provisioningClassName", 1, 253, &kClass, kPrcClassPattern);
  }
  if (const Json* params = PrcMember(*spec, "parameters")) {
    if (!params->is_object()) {
      PrcWrongType(errs, "spec.parameters", *params, "object");
    } else if (params->size() > 100) {
      errs.TooMany("spec.parameters", params->size(), 100);
    } else {
      for (const auto& [k, v] : params->items()) {
        PrcString(errs, v, validation::Child("spec.parameters", k), 0, 255, nullptr, "");
      }
    }
  }
  if (const Json* managed = PrcMember(*spec, "managedResources")) {
    if (!managed->is_array()) {
      PrcWrongType(errs, "spec.managedResources", *managed, "array");
    } else if (managed->size() > 100) {
      errs.TooMany("spec.managedResources", managed->size(), 100);
    } else {
      std::set<std::string> seen;
      for (size_t i = 0; i < managed->size(); ++i) {
        const std::string at = validation::Index("spec.managedResources", i);
        const Json& r = (*managed)[i];
        if (!r.is_string()) {
          PrcWrongType(errs, at, r, "string");
        } else if (!seen.insert(r.get<std::string>()).second) {
          errs.Duplicate(at, r.get<std::string>());
        }
      }
    }
  }
  if (const Json* rs = PrcMember(*spec, "retryStrategy")) {
    if (!rs->is_object()) {
      PrcWrongType(errs, "spec.retryStrategy", *rs, "object");
    } else {
      for (const char* f : {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"}) {
        if (const Json* v = PrcMember(*rs, f)) {
          PrcInt32(errs, *v, validation::Child("spec.retryStrategy", f));
        }
      }
      PrcUnknownFields(unknown, *rs, "spec.retryStrategy",
                       {"backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"});
    }
  }
  if (const Json* updates = PrcMember(*spec, "podSetUpdates")) {
    if (!updates->is_object()) {
      PrcWrongType(errs, "spec.podSetUpdates", *updates, "object");
    } else {
      if (const Json* ns = PrcMember(*updates, "nodeSelector")) {
        PrcNodeSelector(errs, unknown, *ns, "spec.podSetUpdates.nodeSelector");
      }
      PrcUnknownFields(unknown, *updates, "spec.podSetUpdates", {"nodeSelector"});
    }
  }
  if (const Json* policy = PrcMember(*spec, "podSetMergePolicy")) {
    if (!policy->is_string() || (*policy != "IdenticalPodTemplates" &&
                                 *policy != "IdenticalWorkloadSchedulingRequirements")) {
      errs.NotSupported("spec.podSetMergePolicy",
                        policy->is_string() ? policy->get<std::string>() : policy->dump(),
                        {"IdenticalPodTemplates", "IdenticalWorkloadSchedulingRequirements"});
    }
  }
  PrcUnknownFields(unknown, *spec, "spec",
                   {"provisioningClassName", "parameters", "managedResources", "retryStrategy",
                    "podSetUpdates", "podSetMergePolicy"});
  if (!unknown.empty()) {
    std::string m;
    for (const auto& u : unknown) m += (m.empty() ? "" : ", ") + u;
    return Status::Invalid(m);
  }
  return errs.ToStatus();
}

}  // namespace kuota::control
