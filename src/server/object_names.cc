#include "server/object_names.h"

#include "api/validation/names.h"

namespace kuota::server {
namespace {

constexpr size_t kGeneratedSuffixLength = 5;  // the store appends 5 [a-z0-9] characters

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

std::string ValidateObjectName(const ResourceInfo& resource, const std::string& name,
                               const std::string& generate_name) {
  bool label = resource.group.empty() && resource.plural == "namespaces";
  auto check = [&](std::string_view v) {
    return label ? validation::CheckDns1123Label(v) : validation::CheckDns1123Subdomain(v);
  };
  if (name.empty()) {
    if (generate_name.empty()) {
      return "metadata.name: Required value: name or generateName is required";
    }
    // As kube: the prefix may end in '-'; the generated name must be valid.
    std::string sample = generate_name;
    size_t max = label ? validation::kDns1123LabelMaxLength
                       : validation::kDns1123SubdomainMaxLength;
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
