// The admission webhooks' CA: sets the webhook Secret's CA as
// clientConfig.caBundle of every webhook in Kuota's
// MutatingWebhookConfiguration and ValidatingWebhookConfiguration (the
// chart's kuota-mutating-webhook-configuration and
// kuota-validating-webhook-configuration), as Kueue's internal cert
// management does. Thread-compatible: call from one thread (KubeClient itself
// is thread-safe).
#pragma once

#include <string>

#include "base/result.h"
#include "kube/kube_client.h"

namespace kuota::kube {

inline constexpr const char* kMutatingWebhookConfiguration = "kuota-mutating-webhook-configuration";
inline constexpr const char* kValidatingWebhookConfiguration =
    "kuota-validating-webhook-configuration";

// Sets caBundle to `ca_pem` (base64, as the API wants it) in each webhook of
// the configuration `name` of `kind` ("mutatingwebhookconfigurations" or
// "validatingwebhookconfigurations") whose bundle differs, with one JSON
// patch that tests each webhook's name first (a list that changed meanwhile
// fails the patch instead of setting another webhook's bundle). Returns how
// many webhooks were changed; a missing configuration changes none. Errors
// from the cluster name the configuration.
Result<int> InjectWebhookConfigurationCa(KubeClient& client, const std::string& kind,
                                         const std::string& name, const std::string& ca_pem);

}  // namespace kuota::kube
