#include "server/storage_upgrade.h"

#include "api/conversion/kueue_conversion.h"

namespace kuota::server {

Result<std::optional<nlohmann::json>> UpgradeStoredObject(const std::string& resource,
                                                          const nlohmann::json& object) {
  static const std::string kSuffix = "." + std::string(conversion::kKueueGroup);
  if (resource.size() <= kSuffix.size() ||
      resource.compare(resource.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return std::optional<nlohmann::json>();
  }
  auto av = object.find("apiVersion");
  static const std::string kOld =
      std::string(conversion::kKueueGroup) + "/" + std::string(conversion::kV1beta1);
  if (av == object.end() || !av->is_string() || av->get_ref<const std::string&>() != kOld) {
    return std::optional<nlohmann::json>();
  }
  KUOTA_ASSIGN_OR_RETURN(nlohmann::json upgraded,
                         conversion::Convert(object, conversion::kV1beta2));
  return std::optional<nlohmann::json>(std::move(upgraded));
}

}  // namespace kuota::server
