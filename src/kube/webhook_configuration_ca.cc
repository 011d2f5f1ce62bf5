#include "kube/webhook_configuration_ca.h"

#include "auth/base64.h"

namespace kuota::kube {

Result<int> InjectWebhookConfigurationCa(KubeClient& client, const std::string& kind,
                                         const std::string& name, const std::string& ca_pem) {
  using Json = nlohmann::json;
  const std::string bundle = auth::Base64Encode(ca_pem);
  const std::string path = "/apis/admissionregistration.k8s.io/v1/" + kind + "/" + name;
  const std::string what = kind + " " + name;
  // Two tries: a configuration applied again between the read and the patch
  // is read again.
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<Json> config = client.Request("GET", path, nullptr);
    if (!config.ok()) {
      if (config.status().code() == StatusCode::kNotFound) return 0;
      return config.status().WithContext("reading " + what);
    }
    auto webhooks = config->find("webhooks");
    if (webhooks == config->end() || !webhooks->is_array()) return 0;
    Json patch = Json::array();
    int changed = 0;
    for (size_t i = 0; i < webhooks->size(); ++i) {
      const Json& hook = (*webhooks)[i];
      if (!hook.is_object() || !hook.contains("clientConfig")) continue;
      const Json& cc = hook["clientConfig"];
      if (cc.is_object() && cc.value("caBundle", "") == bundle) continue;
      const std::string at = "/webhooks/" + std::to_string(i);
      patch.push_back({{"op", "test"}, {"path", at + "/name"}, {"value", hook.value("name", "")}});
      patch.push_back({{"op", "add"}, {"path", at + "/clientConfig/caBundle"}, {"value", bundle}});
      ++changed;
    }
    if (changed == 0) return 0;
    Result<Json> done = client.Request("PATCH", path, &patch, "application/json-patch+json");
    if (done.ok()) return changed;
    // A failed test (the list changed) is answered 422: read it again.
    if (done.status().code() != StatusCode::kInvalid || attempt == 1) {
      return done.status().WithContext("patching " + what);
    }
  }
  return 0;
}

}  // namespace kuota::kube
