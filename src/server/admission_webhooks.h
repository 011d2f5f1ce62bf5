// AdmissionWebhooks: kube-apiserver's dynamic admission control — the
// webhooks registered by admissionregistration.k8s.io/v1
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations called on
// every create, update and delete (subresources included) whose rules,
// namespaceSelector and objectSelector match (webhook_rules.h). Mutating
// webhooks run first, one after another in configuration-name order, each
// answer's JSONPatch applied to the object, those with reinvocationPolicy
// IfNeeded called once more when a later webhook changed the object; then
// the validating webhooks. An AdmissionReview v1 is POSTed over HTTPS
// verified with the webhook's caBundle (webhook_client.h). A denial reaches
// the client as 'admission webhook "NAME" denied the request: MESSAGE' with
// the webhook's code; a failed call fails the request (failurePolicy Fail,
// 500 'failed calling webhook "NAME": ...') or skips the webhook (Ignore).
// Webhooks are never called for webhook configurations themselves.
// Used by kuotad --serve-only, the stand-in cluster. Thread-safe: each call
// reads the configurations from the store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "auth/user_info.h"
#include "server/resource_info.h"
#include "server/status_errors.h"
#include "server/webhook_client.h"
#include "store/object_store.h"

namespace kuota::server {

// One request as the webhooks see it.
struct AdmissionAttributes {
  const ResourceInfo* resource = nullptr;  // as the client asked for it (its version)
  std::string subresource;                 // "" or "status", "scale"
  std::string operation;                   // "CREATE", "UPDATE" or "DELETE"
  std::string name;                        // "" for a create with generateName
  std::string ns;                          // "" for cluster-scoped objects
  auth::UserInfo user;
  bool dry_run = false;
};

class AdmissionWebhooks {
 public:
  // `store` (where the configurations are) must outlive this. `call`'s
  // timeout is replaced by each webhook's timeoutSeconds.
  AdmissionWebhooks(store::ObjectStore& store, WebhookCallOptions call);

  // Calls the matching mutating webhooks; `object` (stored version; null
  // for DELETE) is changed by their patches. The error the client gets, if
  // any. `old_object` is null on create. The warnings of the webhooks that
  // allowed the request are appended to `warnings` (nullable), for the
  // client's Warning headers.
  std::optional<ApiError> Mutate(const AdmissionAttributes& attributes,
                                 const nlohmann::json* old_object, nlohmann::json* object,
                                 std::vector<std::string>* warnings = nullptr) const;

  // Calls the matching validating webhooks with the final object.
  std::optional<ApiError> Validate(const AdmissionAttributes& attributes,
                                   const nlohmann::json* old_object, const nlohmann::json* object,
                                   std::vector<std::string>* warnings = nullptr) const;

 private:
  store::ObjectStore& store_;
  const WebhookCallOptions call_;
};

}  // namespace kuota::server
