#include "server/config_data_rules.h"

#include <cctype>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "auth/base64.h"
#include "base/result.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// Well-known Secret types and the data keys they require (core/v1 types.go).
constexpr const char* kOpaque = "Opaque";
constexpr const char* kTlsType = "kubernetes.io/tls";
constexpr const char* kDockerConfigJsonType = "kubernetes.io/dockerconfigjson";
constexpr const char* kDockerCfgType = "kubernetes.io/dockercfg";
constexpr const char* kBasicAuthType = "kubernetes.io/basic-auth";
constexpr const char* kSshAuthType = "kubernetes.io/ssh-auth";
constexpr const char* kServiceAccountTokenType = "kubernetes.io/service-account-token";

std::string Quoted(const std::string& s) { return Json(s).dump(); }

// validation.IsConfigMapKey: the message for a bad key, or "".
std::string KeyProblem(const std::string& key) {
  if (key.size() > 253) return "must be no more than 253 characters";
  bool chars_ok = !key.empty();
  for (unsigned char c : key) {
    if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.')) chars_ok = false;
  }
  if (!chars_ok) {
    return "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
           "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
           "'[-._a-zA-Z0-9]+')";
  }
  if (key == ".") return "must not be '.'";
  if (key == "..") return "must not be '..'";
  if (key.rfind("..", 0) == 0) return "must not start with '..'";
  return "";
}

Status KeyError(const std::string& field, const std::string& key) {
  if (std::string why = KeyProblem(key); !why.empty()) {
    return Status::Invalid(field + "[" + key + "]: Invalid value: " + Quoted(key) + ": " + why);
  }
  return Status::Ok();
}

// `object[field]`: absent (nullptr) or a JSON object; else Invalid.
Result<const Json*> MapField(const Json& object, const char* field) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return static_cast<const Json*>(nullptr);
  if (!it->is_object()) {
    return Status::Invalid(std::string(field) + ": Invalid value: must be a map of strings");
  }
  return &*it;
}

// The bytes of a base64 value at `field`[`key`].
Result<std::string> DecodedValue(const std::string& field, const std::string& key,
                                 const Json& value) {
  const std::string path = field + "[" + key + "]";
  if (!value.is_string()) {
    return Status::Invalid(path + ": Invalid value: must be a base64-encoded string");
  }
  std::optional<std::string> bytes = auth::Base64Decode(value.get_ref<const std::string&>());
  if (!bytes) {
    return Status::Invalid(path +
                           ": Invalid value: must be a base64-encoded string (illegal "
                           "base64 data)");
  }
  return std::move(*bytes);
}

Status CheckImmutableFlag(const Json& object) {
  auto it = object.find("immutable");
  if (it != object.end() && !it->is_null() && !it->is_boolean()) {
    return Status::Invalid("immutable: Invalid value: must be a boolean");
  }
  return Status::Ok();
}

bool IsImmutable(const Json& object) {
  auto it = object.find("immutable");
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

const Json& FieldOr(const Json& object, const char* field, const Json& fallback) {
  auto it = object.find(field);
  return it == object.end() || it->is_null() ? fallback : *it;
}

// ValidateConfigMapUpdate / ValidateSecretUpdate's rule for immutable objects.
Status CheckImmutableUpdate(const Json* old_object, const Json& object,
                            std::initializer_list<const char*> fields) {
  if (old_object == nullptr || !IsImmutable(*old_object)) return Status::Ok();
  const std::string forbidden = ": Forbidden: field is immutable when `immutable` is set";
  if (!IsImmutable(object)) return Status::Invalid("immutable" + forbidden);
  static const Json kEmpty = Json::object();
  for (const char* field : fields) {
    if (FieldOr(*old_object, field, kEmpty) != FieldOr(object, field, kEmpty)) {
      return Status::Invalid(std::string(field) + forbidden);
    }
  }
  return Status::Ok();
}

Status TooLong(const std::string& field) {
  return Status::Invalid(field + ": Too long: must have at most " +
                         std::to_string(kMaxConfigDataBytes) + " bytes");
}

Status PrepareConfigMap(const Json* old_object, Json& cm) {
  KUOTA_RETURN_IF_ERROR(CheckImmutableFlag(cm));
  KUOTA_ASSIGN_OR_RETURN(const Json* data, MapField(cm, "data"));
  KUOTA_ASSIGN_OR_RETURN(const Json* binary, MapField(cm, "binaryData"));
  size_t total = 0;
  if (data != nullptr) {
    for (const auto& [key, value] : data->items()) {
      KUOTA_RETURN_IF_ERROR(KeyError("data", key));
      if (!value.is_string()) {
        return Status::Invalid("data[" + key + "]: Invalid value: must be a string");
      }
      if (binary != nullptr && binary->contains(key)) {
        return Status::Invalid("data[" + key + "]: Invalid value: " + Quoted(key) +
                               ": duplicate of key present in binaryData");
      }
      total += value.get_ref<const std::string&>().size();
    }
  }
  if (binary != nullptr) {
    for (const auto& [key, value] : binary->items()) {
      KUOTA_RETURN_IF_ERROR(KeyError("binaryData", key));
      KUOTA_ASSIGN_OR_RETURN(std::string bytes, DecodedValue("binaryData", key, value));
      total += bytes.size();
    }
  }
  if (total > kMaxConfigDataBytes) return TooLong("data");
  return CheckImmutableUpdate(old_object, cm, {"data", "binaryData"});
}

// The keys a Secret of `type` must have in its data (ValidateSecret).
Status CheckSecretType(const std::string& type, const Json& secret,
                       const std::map<std::string, std::string>& data) {
  auto required = [&](const char* key) -> Status {
    if (data.count(key) == 0)
      return Status::Invalid("data[" + std::string(key) + "]: Required value");
    return Status::Ok();
  };
  auto json_value = [&](const char* key) -> Status {
    KUOTA_RETURN_IF_ERROR(required(key));
    if (Json::parse(data.at(key), nullptr, /*allow_exceptions=*/false).is_discarded()) {
      return Status::Invalid("data[" + std::string(key) +
                             "]: Invalid value: \"<secret contents redacted>\": not valid JSON");
    }
    return Status::Ok();
  };
  if (type == kTlsType) {
    KUOTA_RETURN_IF_ERROR(required("tls.crt"));
    return required("tls.key");
  }
  if (type == kDockerConfigJsonType) return json_value(".dockerconfigjson");
  if (type == kDockerCfgType) return json_value(".dockercfg");
  if (type == kSshAuthType) return required("ssh-privatekey");
  if (type == kBasicAuthType) {
    if (data.count("username") == 0 && data.count("password") == 0) {
      return Status::Invalid(
          "data[username]: Required value: a kubernetes.io/basic-auth Secret needs username or "
          "password");
    }
    return Status::Ok();
  }
  if (type == kServiceAccountTokenType) {
    const Json* annotations = nullptr;
    if (auto m = secret.find("metadata"); m != secret.end() && m->is_object()) {
      if (auto a = m->find("annotations"); a != m->end() && a->is_object()) annotations = &*a;
    }
    if (annotations == nullptr || !annotations->contains("kubernetes.io/service-account.name")) {
      return Status::Invalid(
          "metadata.annotations[kubernetes.io/service-account.name]: Required value");
    }
  }
  return Status::Ok();
}

Status PrepareSecret(const Json* old_object, Json& secret) {
  KUOTA_RETURN_IF_ERROR(CheckImmutableFlag(secret));
  // SetDefaults_Secret: type Opaque.
  auto type_it = secret.find("type");
  if (type_it == secret.end() || type_it->is_null() ||
      (type_it->is_string() && type_it->get_ref<const std::string&>().empty())) {
    secret["type"] = kOpaque;
  } else if (!type_it->is_string()) {
    return Status::Invalid("type: Invalid value: must be a string");
  }
  const std::string type = secret["type"].get<std::string>();
  // stringData is write-only: merged into data (it wins), as the v1 conversion does.
  KUOTA_ASSIGN_OR_RETURN(const Json* string_data, MapField(secret, "stringData"));
  if (string_data != nullptr) {
    Json merged = FieldOr(secret, "data", Json::object());
    if (!merged.is_object())
      return Status::Invalid("data: Invalid value: must be a map of strings");
    for (const auto& [key, value] : string_data->items()) {
      if (!value.is_string()) {
        return Status::Invalid("stringData[" + key + "]: Invalid value: must be a string");
      }
      merged[key] = auth::Base64Encode(value.get_ref<const std::string&>());
    }
    secret["data"] = std::move(merged);
    secret.erase("stringData");
  }
  KUOTA_ASSIGN_OR_RETURN(const Json* data, MapField(secret, "data"));
  std::map<std::string, std::string> decoded;
  size_t total = 0;
  if (data != nullptr) {
    for (const auto& [key, value] : data->items()) {
      KUOTA_RETURN_IF_ERROR(KeyError("data", key));
      KUOTA_ASSIGN_OR_RETURN(std::string bytes, DecodedValue("data", key, value));
      total += bytes.size();
      decoded.emplace(key, std::move(bytes));
    }
  }
  if (total > kMaxConfigDataBytes) return TooLong("data");
  KUOTA_RETURN_IF_ERROR(CheckSecretType(type, secret, decoded));
  if (old_object != nullptr) {
    const std::string old_type =
        FieldOr(*old_object, "type", Json(kOpaque)).is_string()
            ? FieldOr(*old_object, "type", Json(kOpaque)).get<std::string>()
            : kOpaque;
    if (old_type != type) {
      return Status::Invalid("type: Invalid value: " + Quoted(type) + ": field is immutable");
    }
  }
  return CheckImmutableUpdate(old_object, secret, {"data"});
}

}  // namespace

bool IsConfigDataKind(const ResourceInfo& resource) {
  return resource.group.empty() && (resource.kind == "ConfigMap" || resource.kind == "Secret");
}

Status PrepareConfigData(const ResourceInfo& resource, const Json* old_object, Json& object) {
  if (!IsConfigDataKind(resource)) return Status::Ok();
  if (!object.is_object()) return Status::Invalid("the object must be a JSON object");
  if (resource.kind == "Secret") return PrepareSecret(old_object, object);
  return PrepareConfigMap(old_object, object);
}

}  // namespace kuota::server
