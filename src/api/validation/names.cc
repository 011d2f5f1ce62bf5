#include "api/validation/names.h"

#include <cstddef>

namespace kuota::validation {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

bool MatchesDns1123Label(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDns1123Subdomain(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (!MatchesDns1123Label(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

constexpr const char* kDns1123LabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr const char* kDns1123SubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr const char* kQualifiedNameMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr const char* kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

std::string TooLongMsg(size_t max) {
  return "must be no more than " + std::to_string(max) + " characters";
}

}  // namespace

std::string CheckDns1123Label(std::string_view value) {
  if (value.size() > kDns1123LabelMaxLength) return TooLongMsg(kDns1123LabelMaxLength);
  if (!MatchesDns1123Label(value)) return kDns1123LabelMsg;
  return {};
}

std::string CheckDns1123Subdomain(std::string_view value) {
  if (value.size() > kDns1123SubdomainMaxLength) return TooLongMsg(kDns1123SubdomainMaxLength);
  if (!MatchesDns1123Subdomain(value)) return kDns1123SubdomainMsg;
  return {};
}

std::string CheckQualifiedName(std::string_view value) {
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
             "must start and end with an alphanumeric character, with an optional DNS "
             "subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    std::string_view prefix = value.substr(0, slash);
    if (prefix.empty()) return "prefix part must be non-empty";
    std::string msg = CheckDns1123Subdomain(prefix);
    if (!msg.empty()) return "prefix part " + msg;
    name = value.substr(slash + 1);
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kQualifiedNameMaxLength) {
    return "name part " + TooLongMsg(kQualifiedNameMaxLength);
  }
  if (!MatchesQualifiedNamePart(name)) return kQualifiedNameMsg;
  return {};
}

std::string CheckLabelValue(std::string_view value) {
  if (value.size() > kLabelValueMaxLength) return TooLongMsg(kLabelValueMaxLength);
  if (!value.empty() && !MatchesQualifiedNamePart(value)) return kLabelValueMsg;
  return {};
}

}  // namespace kuota::validation
