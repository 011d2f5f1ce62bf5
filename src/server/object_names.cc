#include "server/object_names.h"

namespace kuota::server {
namespace {

constexpr size_t kLabelMax = 63;
constexpr size_t kSubdomainMax = 253;
constexpr size_t kGeneratedSuffixLength = 5;  // the store appends 5 [a-z0-9] characters

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsLabel(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool IsSubdomain(std::string_view s) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!IsLabel(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string TooLong(size_t max) {
  return "must be no more than " + std::to_string(max) + " characters";
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

std::string CheckDns1123Label(std::string_view value) {
  if (value.size() > kLabelMax) return TooLong(kLabelMax);
  if (!IsLabel(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
           "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
           "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return "";
}

std::string CheckDns1123Subdomain(std::string_view value) {
  if (value.size() > kSubdomainMax) return TooLong(kSubdomainMax);
  if (!IsSubdomain(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return "";
}

std::string ValidateObjectName(const ResourceInfo& resource, const std::string& name,
                               const std::string& generate_name) {
  bool label = resource.group.empty() && resource.plural == "namespaces";
  auto check = [&](std::string_view v) {
    return label ? CheckDns1123Label(v) : CheckDns1123Subdomain(v);
  };
  if (name.empty()) {
    if (generate_name.empty()) {
      return "metadata.name: Required value: name or generateName is required";
    }
    // As kube: the prefix may end in '-'; the generated name must be valid.
    std::string sample = generate_name;
    size_t max = label ? kLabelMax : kSubdomainMax;
    if (sample.size() > max - kGeneratedSuffixLength) sample.resize(max - kGeneratedSuffixLength);
    sample += "abcde";
    std::string why = check(sample);
    if (!why.empty()) {
      return "metadata.generateName: Invalid value: " + Quote(generate_name) + ": " + why;
    }
    return "";
  }
  std::string why = check(name);
  if (!why.empty()) return "metadata.name: Invalid value: " + Quote(name) + ": " + why;
  return "";
}

}  // namespace kuota::server
