// UrlEncode: percent-encoding of a path segment or query value for the HTTP
// clients (kuota's CLI, the Kubernetes driver's client): every byte but
// RFC 3986's unreserved characters (A-Z a-z 0-9 - _ . ~) becomes %XX. Pure.
#pragma once

#include <string>
#include <string_view>

namespace kuota {

std::string UrlEncode(std::string_view value);

}  // namespace kuota
