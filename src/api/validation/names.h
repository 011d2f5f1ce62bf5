// Name and label syntax checks from Kubernetes' apimachinery validation:
// DNS-1123 labels and subdomains (object names), qualified names (label keys,
// resource names) and label values. Each returns an empty string when the
// value is valid, else Kubernetes' message. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace kuota::validation {

inline constexpr size_t kDns1123LabelMaxLength = 63;
inline constexpr size_t kDns1123SubdomainMaxLength = 253;
inline constexpr size_t kLabelValueMaxLength = 63;
inline constexpr size_t kQualifiedNameMaxLength = 63;

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters.
std::string CheckDns1123Label(std::string_view value);
// Dot-separated DNS-1123 labels, at most 253 characters.
std::string CheckDns1123Subdomain(std::string_view value);
// [prefix/]name: prefix a DNS subdomain, name ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// of at most 63 characters.
std::string CheckQualifiedName(std::string_view value);
// Empty, or ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] of at most 63 characters.
std::string CheckLabelValue(std::string_view value);

}  // namespace kuota::validation
