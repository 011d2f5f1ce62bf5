#include "kube/webhook_certs.h"

#include <cstdio>

#include "auth/base64.h"
#include "server/json_fields.h"

namespace kuota::kube {
namespace {

struct Key {
  const char* name;
  std::string auth::TlsPem::*field;
};
constexpr Key kKeys[] = {{"ca.crt", &auth::TlsPem::ca_cert},
                         {"ca.key", &auth::TlsPem::ca_key},
                         {"tls.crt", &auth::TlsPem::server_cert},
                         {"tls.key", &auth::TlsPem::server_key}};

std::string SecretPath(const WebhookCertOptions& o, bool with_name) {
  std::string path = "/api/v1/namespaces/" + o.ns + "/secrets";
  return with_name ? path + "/" + o.secret_name : path;
}

// The material a Secret holds; empty strings for keys it lacks.
auth::TlsPem FromSecret(const Json& secret) {
  auth::TlsPem pem;
  const Json* data =
      secret.contains("data") && secret["data"].is_object() ? &secret["data"] : nullptr;
  if (data == nullptr) return pem;
  for (const Key& k : kKeys) {
    auto it = data->find(k.name);
    if (it == data->end() || !it->is_string()) continue;
    std::optional<std::string> text = auth::Base64Decode(it->get<std::string>());
    if (text) pem.*k.field = *text;
  }
  return pem;
}

Json DataOf(const auth::TlsPem& pem) {
  Json data = Json::object();
  for (const Key& k : kKeys) data[k.name] = auth::Base64Encode(pem.*k.field);
  return data;
}

}  // namespace

std::vector<std::string> WebhookDnsNames(const WebhookCertOptions& options) {
  const std::string svc = options.service_name + "." + options.ns + ".svc";
  return {svc, svc + ".cluster.local"};
}

Result<auth::TlsPem> EnsureWebhookCert(KubeClient& client, const WebhookCertOptions& options) {
  const std::vector<std::string> names = WebhookDnsNames(options);
  const std::string what = "secret " + options.ns + "/" + options.secret_name;
  for (int attempt = 0; attempt < 5; ++attempt) {
    Result<Json> secret = client.Request("GET", SecretPath(options, true), nullptr);
    if (!secret.ok() && secret.status().code() != StatusCode::kNotFound) {
      return secret.status().WithContext("reading " + what);
    }
    if (secret.ok()) {
      auth::TlsPem pem = FromSecret(*secret);
      Status usable = auth::CheckTlsPem(pem, names);
      if (usable.ok()) return pem;
      if (!pem.ca_cert.empty() || !pem.server_cert.empty()) {
        std::fprintf(stderr, "kuotad: webhook certificate in %s renewed: %s\n", what.c_str(),
                     usable.message().c_str());
      }
    }
    KUOTA_ASSIGN_OR_RETURN(auth::TlsPem fresh, auth::GenerateTlsPem(names));
    Result<Json> written = Status::Internal("unreachable");
    if (secret.ok()) {
      Json updated = *secret;
      updated["data"] = DataOf(fresh);
      written = client.Request("PUT", SecretPath(options, true), &updated);
    } else {
      Json created = {{"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"metadata", {{"name", options.secret_name}, {"namespace", options.ns}}},
                      {"type", "Opaque"},
                      {"data", DataOf(fresh)}};
      written = client.Request("POST", SecretPath(options, false), &created);
    }
    if (written.ok()) {
      std::fprintf(stderr, "kuotad: webhook certificate for %s written to %s\n",
                   names.front().c_str(), what.c_str());
      return fresh;
    }
    // Another replica wrote first: use what it wrote.
    const StatusCode code = written.status().code();
    if (code != StatusCode::kConflict && code != StatusCode::kAlreadyExists) {
      return written.status().WithContext("writing " + what);
    }
  }
  return Status::Conflict(what + " kept changing while it was being written");
}

Result<int> InjectCaBundle(KubeClient& client, const std::vector<std::string>& crds,
                           const std::string& ca_pem) {
  const std::string bundle = auth::Base64Encode(ca_pem);
  int patched = 0;
  for (const std::string& name : crds) {
    const std::string path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name;
    Result<Json> crd = client.Request("GET", path, nullptr);
    if (!crd.ok()) {
      if (crd.status().code() == StatusCode::kNotFound) continue;
      return crd.status().WithContext("reading customresourcedefinition " + name);
    }
    if (server::StringField(*crd, {"spec", "conversion", "strategy"}) != "Webhook") continue;
    if (server::StringField(*crd, {"spec", "conversion", "webhook", "clientConfig", "caBundle"}) ==
        bundle) {
      continue;
    }
    Json patch = {
        {"spec", {{"conversion", {{"webhook", {{"clientConfig", {{"caBundle", bundle}}}}}}}}}};
    Result<Json> done = client.Request("PATCH", path, &patch, "application/merge-patch+json");
    if (!done.ok()) return done.status().WithContext("patching customresourcedefinition " + name);
    ++patched;
  }
  return patched;
}

}  // namespace kuota::kube
