#include "standalone/pod_config_objects.h"

#include <initializer_list>
#include <tuple>

#include "auth/base64.h"
#include "server/json_fields.h"

namespace kuota::standalone {
namespace {

using Json = nlohmann::json;

using server::StringField;

// The list at `path`; an empty one when absent or not a list.
const Json& ListAt(const Json& obj, std::initializer_list<const char*> path) {
  static const Json kEmpty = Json::array();
  const Json* list = server::FindField(obj, path);
  return list == nullptr || !list->is_array() ? kEmpty : *list;
}

void AddName(std::set<std::string>& names, const std::string& name) {
  if (!name.empty()) names.insert(name);
}

const Json* MapOf(const Json& object, const char* field) {
  const Json* map = server::FindField(object, {field});
  return map == nullptr || !map->is_object() ? nullptr : map;
}

}  // namespace

const Json* PodConfigObjects::FindConfigMap(const std::string& name) const {
  auto it = config_maps.find(name);
  return it == config_maps.end() ? nullptr : &it->second;
}

const Json* PodConfigObjects::FindSecret(const std::string& name) const {
  auto it = secrets.find(name);
  return it == secrets.end() ? nullptr : &it->second;
}

PodConfigNames ConfigNamesOf(const Json& pod) {
  PodConfigNames names;
  for (const char* list : {"containers", "initContainers"}) {
    for (const Json& c : ListAt(pod, {"spec", list})) {
      if (!c.is_object()) continue;
      for (const Json& e : c.value("env", Json::array())) {
        AddName(names.config_maps, StringField(e, {"valueFrom", "configMapKeyRef", "name"}));
        AddName(names.secrets, StringField(e, {"valueFrom", "secretKeyRef", "name"}));
      }
      for (const Json& e : c.value("envFrom", Json::array())) {
        AddName(names.config_maps, StringField(e, {"configMapRef", "name"}));
        AddName(names.secrets, StringField(e, {"secretRef", "name"}));
      }
    }
  }
  for (const Json& v : ListAt(pod, {"spec", "volumes"})) {
    AddName(names.config_maps, StringField(v, {"configMap", "name"}));
    AddName(names.secrets, StringField(v, {"secret", "secretName"}));
  }
  return names;
}

Result<PodConfigObjects> ReadPodConfigObjects(store::ObjectStore& store, const Json& pod) {
  PodConfigObjects out;
  out.ns = StringField(pod, {"metadata", "namespace"});
  const PodConfigNames names = ConfigNamesOf(pod);
  for (const auto& [resource, wanted, into] :
       {std::tuple{"configmaps", &names.config_maps, &out.config_maps},
        std::tuple{"secrets", &names.secrets, &out.secrets}}) {
    for (const std::string& name : *wanted) {
      Result<Json> got = store.Get(resource, out.ns, name);
      if (got.ok()) {
        into->emplace(name, std::move(got).value());
      } else if (got.status().code() != StatusCode::kNotFound) {
        return Status::Unavailable("reading " + std::string(resource) + " " + out.ns + "/" + name +
                                   ": " + got.status().message());
      }
    }
  }
  return out;
}

std::optional<std::string> ConfigMapValue(const Json& config_map, const std::string& key,
                                          bool binary) {
  if (const Json* data = MapOf(config_map, "data")) {
    auto it = data->find(key);
    if (it != data->end() && it->is_string()) return it->get<std::string>();
  }
  if (!binary) return std::nullopt;
  if (const Json* data = MapOf(config_map, "binaryData")) {
    auto it = data->find(key);
    if (it != data->end() && it->is_string()) return auth::Base64Decode(it->get<std::string>());
  }
  return std::nullopt;
}

std::optional<std::string> SecretValue(const Json& secret, const std::string& key) {
  const Json* data = MapOf(secret, "data");
  if (data == nullptr) return std::nullopt;
  auto it = data->find(key);
  if (it == data->end() || !it->is_string()) return std::nullopt;
  return auth::Base64Decode(it->get<std::string>());
}

std::map<std::string, std::string> ConfigMapValues(const Json& config_map, bool binary) {
  std::map<std::string, std::string> out;
  for (const char* field : {"data", "binaryData"}) {
    if (!binary && std::string(field) == "binaryData") continue;
    if (const Json* data = MapOf(config_map, field)) {
      for (const auto& [key, value] : data->items()) {
        if (auto v = ConfigMapValue(config_map, key, binary)) out.emplace(key, std::move(*v));
      }
    }
  }
  return out;
}

std::map<std::string, std::string> SecretValues(const Json& secret) {
  std::map<std::string, std::string> out;
  if (const Json* data = MapOf(secret, "data")) {
    for (const auto& [key, value] : data->items()) {
      if (auto v = SecretValue(secret, key)) out.emplace(key, std::move(*v));
    }
  }
  return out;
}

std::string ConfigNotFoundMessage(const std::string& kind, const std::string& name) {
  return kind + " \"" + name + "\" not found";
}

}  // namespace kuota::standalone
