// PodConfigObjects: the ConfigMaps and Secrets of its namespace that a pod
// draws on — through its containers' env (valueFrom configMapKeyRef /
// secretKeyRef) and envFrom, and its configMap and secret volumes — read
// from the store as the pod runner starts its containers, and their values as
// the kubelet reads them (a Secret's data decoded from base64; a ConfigMap's
// binaryData in volumes only), with the kubelet's words for what is missing
// (`configmap "app-config" not found`). Thread-safe as the store.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "store/object_store.h"

namespace kuota::standalone {

struct PodConfigObjects {
  std::string ns;
  // By name; a name the pod refers to that is absent was not found.
  std::map<std::string, nlohmann::json> config_maps;
  std::map<std::string, nlohmann::json> secrets;

  const nlohmann::json* FindConfigMap(const std::string& name) const;
  const nlohmann::json* FindSecret(const std::string& name) const;
};

// The names of the ConfigMaps and Secrets `pod` refers to.
struct PodConfigNames {
  std::set<std::string> config_maps;
  std::set<std::string> secrets;
};
PodConfigNames ConfigNamesOf(const nlohmann::json& pod);

// Reads the ConfigMaps and Secrets `pod` refers to from its namespace (those
// not found are left out). Unavailable when the store fails otherwise.
Result<PodConfigObjects> ReadPodConfigObjects(store::ObjectStore& store, const nlohmann::json& pod);

// `key`'s value in a ConfigMap's data (and binaryData, decoded, when
// `binary`); nullopt when it has none.
std::optional<std::string> ConfigMapValue(const nlohmann::json& config_map, const std::string& key,
                                          bool binary);
// `key`'s value in a Secret's data, decoded; nullopt when it has none (or it
// is not base64, which the API server refuses).
std::optional<std::string> SecretValue(const nlohmann::json& secret, const std::string& key);
// Every key and value, as above.
std::map<std::string, std::string> ConfigMapValues(const nlohmann::json& config_map, bool binary);
std::map<std::string, std::string> SecretValues(const nlohmann::json& secret);

// The kubelet's message for a missing object: `configmap "name" not found`,
// `secret "name" not found` (`kind` is "configmap" or "secret").
std::string ConfigNotFoundMessage(const std::string& kind, const std::string& name);

}  // namespace kuota::standalone
