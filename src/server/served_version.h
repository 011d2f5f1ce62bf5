// Objects served in one version and stored in another: a ResourceInfo with a
// storage_version (kueue.x-k8s.io/v1beta1 kinds, stored as v1beta2) has its
// objects converted on the way in and out (api/conversion). Every other
// resource passes through unchanged. With a CrdWebhookConversion (kuotad
// --serve-only), a kind whose applied CRD asks for a conversion webhook is
// converted by that webhook instead, as kube-apiserver would. Thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "server/crd_webhook_conversion.h"
#include "server/resource_info.h"

namespace kuota::server {

// The stored object as the client of `r` sees it. An object that cannot be
// converted (never for what kuotad stores) is returned unchanged.
nlohmann::json ToServedVersion(const ResourceInfo& r, nlohmann::json stored);

// A client's object of `r` in the version it is stored in; Invalid, naming the
// field path, when it has no form there.
Result<nlohmann::json> ToStorageVersion(const ResourceInfo& r, nlohmann::json served);

// ToServedVersion of each of `stored`, through `webhooks` (nullable) when
// `r`'s CRD asks for a conversion webhook; the webhook's failure is the
// error (InternalError), as a kube-apiserver's read fails then.
Result<std::vector<nlohmann::json>> ToServedVersions(const ResourceInfo& r,
                                                     std::vector<nlohmann::json> stored,
                                                     const CrdWebhookConversion* webhooks);
Result<nlohmann::json> ToServedVersion(const ResourceInfo& r, nlohmann::json stored,
                                       const CrdWebhookConversion* webhooks);

// ToStorageVersion, through `webhooks` (nullable) when `r`'s CRD asks for a
// conversion webhook (its failure: InternalError).
Result<nlohmann::json> ToStorageVersion(const ResourceInfo& r, nlohmann::json served,
                                        const CrdWebhookConversion* webhooks);

}  // namespace kuota::server
