#include "control/config_file.h"

#include <fstream>
#include <iterator>
#include <variant>

#include "api/codec/decode.h"

namespace kuota::control {

Result<api::Configuration> LoadConfigFile(const std::string& path) {
  if (path.empty()) return api::Configuration{};
  std::ifstream in(path);
  if (!in) return Status::NotFound("config file " + path + ": cannot open");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto obj = codec::DecodeObject(text);
  if (!obj.ok()) return obj.status().WithContext(path);
  auto* cfg = std::get_if<api::Configuration>(&obj->value);
  if (cfg == nullptr) {
    return Status::Invalid(
        path + ": want kind Configuration (config.kueue.x-k8s.io/v1beta1 or v1beta2), got " +
        obj->kind);
  }
  return *cfg;
}

}  // namespace kuota::control
