// Base64 (RFC 4648, with padding) through OpenSSL, for the PEM data a
// kubeconfig carries (certificate-authority-data). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kuota::auth {

std::string Base64Encode(std::string_view in);
// nullopt when `in` is not base64 (whitespace and newlines are skipped).
std::optional<std::string> Base64Decode(std::string_view in);

}  // namespace kuota::auth
