// InjectApiServiceCa: the webhook CA (webhook_certs.h) set as spec.caBundle
// of the APIServices that route an aggregated API (Kueue's visibility API)
// to this driver, so kube-apiserver verifies the driver's serving
// certificate, as cert-manager's CA injection does for Kueue's install.
// Thread-safe (one KubeClient call after another).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "kube/kube_client.h"

namespace kuota::kube {

// Kueue's APIServices for its visibility API (deploy/ ships both).
inline constexpr const char* kVisibilityApiServices[] = {"v1beta2.visibility.kueue.x-k8s.io",
                                                         "v1beta1.visibility.kueue.x-k8s.io"};

// Patches `ca_pem` (base64) into the caBundle of each of `names` that exists,
// names a service and does not skip TLS verification; returns how many
// changed. Errors name the APIService (Forbidden where RBAC does not allow
// patching it).
Result<int> InjectApiServiceCa(KubeClient& client, const std::vector<std::string>& names,
                               const std::string& ca_pem);

}  // namespace kuota::kube
