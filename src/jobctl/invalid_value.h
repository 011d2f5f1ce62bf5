// Invalid value: the "path: Invalid value: <value>: <why>" field error that
// jobctl's validation of Jobs and pod specs returns, with the value quoted as
// Kubernetes' messages quote it. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::jobctl {

// `v` as JSON (invalid UTF-8 replaced), cut to 64 characters ("...") when
// longer, so a huge value does not flood the message.
std::string QuoteValue(const nlohmann::json& v);

// "path: Invalid value: <QuoteValue(v)>: why".
Status InvalidValue(std::string_view path, const nlohmann::json& v, std::string_view why);

}  // namespace kuota::jobctl
