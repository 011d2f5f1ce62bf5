#include "kube/api_service_ca.h"

#include "auth/base64.h"
#include "server/json_fields.h"

namespace kuota::kube {

Result<int> InjectApiServiceCa(KubeClient& client, const std::vector<std::string>& names,
                               const std::string& ca_pem) {
  const std::string bundle = auth::Base64Encode(ca_pem);
  int patched = 0;
  for (const std::string& name : names) {
    const std::string path = "/apis/apiregistration.k8s.io/v1/apiservices/" + name;
    Result<Json> svc = client.Request("GET", path, nullptr);
    if (!svc.ok()) {
      if (svc.status().code() == StatusCode::kNotFound) continue;
      return svc.status().WithContext("reading apiservice " + name);
    }
    const Json spec = svc->value("spec", Json::object());
    if (!spec.contains("service") || !spec["service"].is_object()) continue;
    if (spec.value("insecureSkipTLSVerify", false) == true) continue;
    if (server::StringField(spec, {"caBundle"}) == bundle) continue;
    Json patch = {{"spec", {{"caBundle", bundle}}}};
    Result<Json> done = client.Request("PATCH", path, &patch, "application/merge-patch+json");
    if (!done.ok()) return done.status().WithContext("patching apiservice " + name);
    ++patched;
  }
  return patched;
}

}  // namespace kuota::kube
