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

}  // namespace kuota::server
