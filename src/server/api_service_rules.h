// ApiServiceRules: what kube-apiserver checks on an apiregistration.k8s.io/v1
// APIService before storing it (kube-aggregator's ValidateAPIService): the
// name is spec.version + "." + spec.group, the group a DNS subdomain (empty
// only for v1), the version a DNS label, groupPriorityMinimum in (0, 20000],
// versionPriority in (0, 1000], a service with namespace and name (and a
// port in 1..65535), never insecureSkipTLSVerify with a caBundle, no
// caBundle or insecureSkipTLSVerify on a local (service-less) APIService;
// spec.service.port defaults to 443. Also the port rules of a v1 Service's
// spec.ports, which the aggregator resolves. Errors are Invalid and name
// the field paths. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/resource_info.h"

namespace kuota::server {

// True for the kinds PrepareApiService handles (APIService, v1 Service).
bool IsApiServiceRulesKind(const ResourceInfo& resource);

// Defaults and validates `object` (an APIService or Service to store); other
// kinds are left alone. `old_object` is the stored object on update.
Status PrepareApiService(const ResourceInfo& resource, const nlohmann::json* old_object,
                         nlohmann::json& object);

}  // namespace kuota::server
