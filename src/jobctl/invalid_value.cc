#include "jobctl/invalid_value.h"

namespace kuota::jobctl {

std::string QuoteValue(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 64) s = s.substr(0, 61) + "...";
  return s;
}

Status InvalidValue(std::string_view path, const nlohmann::json& v, std::string_view why) {
  return Status::Invalid(std::string(path) + ": Invalid value: " + QuoteValue(v) + ": " +
                         std::string(why));
}

}  // namespace kuota::jobctl
