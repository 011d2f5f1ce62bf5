// Object names: the metadata.name rules kube-apiserver enforces before an
// object is stored (DNS-1123 subdomain for most kinds, DNS-1123 label for
// Namespaces), with kube's field-error messages. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "server/resource_info.h"

namespace kuota::server {

// Checks metadata.name (or, when `name` is empty, metadata.generateName) of an
// object of `resource` about to be created. Returns "" when valid, else a
// field error such as `metadata.name: Invalid value: "Bad_Name": a lowercase
// RFC 1123 subdomain must consist of ...`.
std::string ValidateObjectName(const ResourceInfo& resource, const std::string& name,
                               const std::string& generate_name);

}  // namespace kuota::server
