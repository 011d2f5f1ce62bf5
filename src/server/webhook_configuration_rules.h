// WebhookConfigurationRules: what kube-apiserver does to an
// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration or
// ValidatingWebhookConfiguration before storing it — its defaults
// (failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10, empty
// namespaceSelector and objectSelector, reinvocationPolicy Never, rule scope
// "*", service port 443) and its validation (webhook names, rules,
// clientConfig url XOR service, sideEffects, admissionReviewVersions,
// failurePolicy, matchPolicy, timeoutSeconds 1..30, selectors). Errors are
// Invalid and name the field path as kube-apiserver reports it
// ("webhooks[0].sideEffects: Required value: ..."). Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/resource_info.h"

namespace kuota::server {

// True for admissionregistration.k8s.io's two webhook configuration kinds.
bool IsWebhookConfigurationKind(const ResourceInfo& resource);

// Defaults `object` (a webhook configuration of `resource`'s kind) and
// validates it.
Status PrepareWebhookConfiguration(const ResourceInfo& resource, nlohmann::json& object);

}  // namespace kuota::server
