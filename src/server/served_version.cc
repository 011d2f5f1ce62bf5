#include "server/served_version.h"

#include "api/conversion/kueue_conversion.h"

namespace kuota::server {

nlohmann::json ToServedVersion(const ResourceInfo& r, nlohmann::json stored) {
  if (r.storage_version.empty() || !stored.is_object()) return stored;
  if (!stored.contains("apiVersion")) stored["apiVersion"] = StorageResource(r).ApiVersion();
  if (!stored.contains("kind")) stored["kind"] = r.kind;
  Result<nlohmann::json> served = conversion::Convert(stored, r.version);
  if (!served.ok()) return stored;
  return std::move(served).value();
}

Result<nlohmann::json> ToStorageVersion(const ResourceInfo& r, nlohmann::json served) {
  if (r.storage_version.empty()) return served;
  return conversion::Convert(served, r.storage_version);
}

Result<std::vector<nlohmann::json>> ToServedVersions(const ResourceInfo& r,
                                                     std::vector<nlohmann::json> stored,
                                                     const CrdWebhookConversion* webhooks) {
  if (r.storage_version.empty()) return stored;
  for (nlohmann::json& o : stored) {
    if (!o.is_object()) continue;
    if (!o.contains("apiVersion")) o["apiVersion"] = StorageResource(r).ApiVersion();
    if (!o.contains("kind")) o["kind"] = r.kind;
  }
  if (webhooks != nullptr) {
    if (std::optional<Status> st = webhooks->Convert(r, stored, r.version)) {
      KUOTA_RETURN_IF_ERROR(*st);
      return stored;
    }
  }
  for (nlohmann::json& o : stored) o = ToServedVersion(r, std::move(o));
  return stored;
}

Result<nlohmann::json> ToServedVersion(const ResourceInfo& r, nlohmann::json stored,
                                       const CrdWebhookConversion* webhooks) {
  std::vector<nlohmann::json> one;
  one.push_back(std::move(stored));
  KUOTA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> served,
                         ToServedVersions(r, std::move(one), webhooks));
  return std::move(served.front());
}

Result<nlohmann::json> ToStorageVersion(const ResourceInfo& r, nlohmann::json served,
                                        const CrdWebhookConversion* webhooks) {
  if (r.storage_version.empty()) return served;
  if (webhooks != nullptr) {
    std::vector<nlohmann::json> one;
    one.push_back(std::move(served));
    if (std::optional<Status> st = webhooks->Convert(r, one, r.storage_version)) {
      KUOTA_RETURN_IF_ERROR(*st);
      return std::move(one.front());
    }
    served = std::move(one.front());
  }
  return ToStorageVersion(r, std::move(served));
}

}  // namespace kuota::server
