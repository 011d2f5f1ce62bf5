#include "server/crd_webhook_conversion.h"
#include "auth/ca_store.h"

#include <openssl/x509.h>

#include <memory>
#include <random>

#include <httplib.h>

#include "auth/base64.h"
#include "server/json_fields.h"
#include "server/service_endpoint.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

constexpr const char* kCrdKey = "customresourcedefinitions.apiextensions.k8s.io";

std::string NewUid() {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    out += hex[gen() % 16];
  }
  return out;
}

// Where a webhook clientConfig points: the host to verify and send as SNI,
// where to connect, and the path.
struct Endpoint {
  std::string host;
  std::string connect_to;  // empty: host itself
  int port = 443;
  int connect_port = 0;  // 0: port (else the Service's endpoint port)
  std::string path = "/";
  std::string Url() const { return "https://" + host + ":" + std::to_string(port) + path; }
};

Result<Endpoint> EndpointOf(const Json& client_config, const std::string& service_address) {
  Endpoint e;
  const std::string url = StringField(client_config, {"url"});
  if (!url.empty()) {
    const std::string scheme = "https://";
    if (url.rfind(scheme, 0) != 0) return Status::Invalid("clientConfig.url must be https://");
    std::string rest = url.substr(scheme.size());
    size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    e.path = slash == std::string::npos ? "/" : rest.substr(slash);
    size_t colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']') == std::string::npos) {
      try {
        e.port = std::stoi(authority.substr(colon + 1));
      } catch (const std::exception&) {
        return Status::Invalid("clientConfig.url: bad port in " + url);
      }
      authority = authority.substr(0, colon);
    }
    e.host = authority;
    return e;
  }
  auto service = client_config.find("service");
  if (service == client_config.end() || !service->is_object()) {
    return Status::Invalid("clientConfig: one of url or service is required");
  }
  const std::string name = StringField(*service, {"name"});
  const std::string ns = StringField(*service, {"namespace"});
  if (name.empty() || ns.empty()) {
    return Status::Invalid("clientConfig.service: name and namespace are required");
  }
  e.host = name + "." + ns + ".svc";
  e.connect_to = service_address;
  if (auto port = service->find("port"); port != service->end() && port->is_number_integer()) {
    e.port = port->get<int>();
  }
  if (std::string path = StringField(*service, {"path"}); !path.empty()) e.path = path;
  return e;
}

}  // namespace

CrdWebhookConversion::CrdWebhookConversion(store::ObjectStore& store, CrdWebhookOptions options)
    : store_(store), options_(std::move(options)) {}

std::optional<Status> CrdWebhookConversion::Convert(const ResourceInfo& r,
                                                    std::vector<Json>& objects,
                                                    const std::string& to_version) const {
  Result<Json> crd = store_.Get(kCrdKey, "", r.plural + "." + r.group);
  if (!crd.ok()) return std::nullopt;
  if (StringField(*crd, {"spec", "conversion", "strategy"}) != "Webhook") return std::nullopt;
  const std::string desired = r.group + "/" + to_version;
  std::vector<size_t> sent;  // indexes of the objects not yet in `desired`
  Json review_objects = Json::array();
  std::string from = desired;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (StringField(objects[i], {"apiVersion"}) == desired) continue;
    from = StringField(objects[i], {"apiVersion"});
    sent.push_back(i);
    review_objects.push_back(objects[i]);
  }
  if (sent.empty()) return Status::Ok();
  const std::string prefix = "conversion webhook for " + from + ", Kind=" + r.kind + " failed: ";
  auto fail = [&](const std::string& why) {
    return std::optional<Status>(Status::Internal(prefix + why));
  };
  const Json& webhook = (*crd)["spec"]["conversion"]["webhook"];
  Json client_config =
      webhook.is_object() && webhook.contains("clientConfig") ? webhook["clientConfig"] : Json();
  if (!client_config.is_object()) return fail("spec.conversion.webhook.clientConfig is missing");
  Result<Endpoint> endpoint = EndpointOf(client_config, options_.service_address);
  if (!endpoint.ok()) return fail(endpoint.status().message());
  const std::string post = "Post \"" + endpoint->Url() + "\": ";
  if (const Json* service = FindField(client_config, {"service"});
      service != nullptr && service->is_object()) {
    // Endpoint routing, as for admission webhooks: through the Service and
    // its Endpoints stored here; a Service not stored at all is reached at
    // the configured address.
    Result<ServiceEndpoint> routed =
        ResolveServiceEndpoint(store_, StringField(*service, {"namespace"}),
                               StringField(*service, {"name"}), endpoint->port);
    if (routed.ok()) {
      endpoint->connect_to = routed->ip;
      endpoint->connect_port = routed->port;
    } else if (routed.status().message().rfind("service \"", 0) != 0) {
      return fail(post + routed.status().message());
    }
  }

  httplib::SSLClient client(endpoint->host,
                            endpoint->connect_port != 0 ? endpoint->connect_port : endpoint->port);
  if (!endpoint->connect_to.empty()) {
    client.set_hostname_addr_map({{endpoint->host, endpoint->connect_to}});
  }
  std::optional<std::string> ca;
  if (std::string bundle = StringField(client_config, {"caBundle"}); !bundle.empty()) {
    ca = auth::Base64Decode(bundle);
    if (!ca) return fail("clientConfig.caBundle is not base64");
  }
  if (ca) {
    X509_STORE* store = auth::CaStoreFromPem(*ca).release();
    if (store == nullptr) return fail("clientConfig.caBundle holds no PEM certificate");
    client.set_ca_cert_store(store);  // the client's SSL_CTX owns it now
  }
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(options_.timeout_seconds, 0);
  client.set_read_timeout(options_.timeout_seconds, 0);
  client.set_write_timeout(options_.timeout_seconds, 0);

  const std::string uid = NewUid();
  Json review = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "ConversionReview"},
      {"request", {{"uid", uid}, {"desiredAPIVersion", desired}, {"objects", review_objects}}}};
  httplib::Result res = client.Post(endpoint->path.c_str(), review.dump(), "application/json");
  if (!res) {
    std::string why = httplib::to_string(res.error());
    const std::string addr =
        (endpoint->connect_to.empty() ? endpoint->host : endpoint->connect_to) + ":" +
        std::to_string(endpoint->connect_port != 0 ? endpoint->connect_port : endpoint->port);
    if (res.error() == httplib::Error::Connection) {
      why = "dial tcp " + addr + ": connect: connection refused";
    } else if (res.error() == httplib::Error::SSLServerVerification) {
      why =
          "tls: failed to verify certificate: x509: certificate signed by unknown authority "
          "or not valid for " +
          endpoint->host;
    }
    return fail(post + why);
  }
  if (res->status != 200) {
    return fail(post + "the webhook answered HTTP " + std::to_string(res->status));
  }
  Json answer = Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.contains("response") || !answer["response"].is_object()) {
    return fail("the webhook's answer is not a ConversionReview with a response");
  }
  const Json& response = answer["response"];
  if (StringField(response, {"uid"}) != uid) {
    return fail("expected response uid " + uid + ", got " + StringField(response, {"uid"}));
  }
  if (StringField(response, {"result", "status"}) != "Success") {
    return fail(StringField(response, {"result", "message"}));
  }
  const Json& converted =
      response.contains("convertedObjects") ? response["convertedObjects"] : Json();
  if (!converted.is_array() || converted.size() != sent.size()) {
    return fail("expected " + std::to_string(sent.size()) + " converted objects, got " +
                (converted.is_array() ? std::to_string(converted.size()) : "none"));
  }
  for (size_t j = 0; j < sent.size(); ++j) {
    const Json& out = converted[j];
    const Json& in = objects[sent[j]];
    if (StringField(out, {"apiVersion"}) != desired || StringField(out, {"kind"}) != r.kind) {
      return fail("converted object " + std::to_string(j) + " is " +
                  StringField(out, {"apiVersion"}) + ", Kind=" + StringField(out, {"kind"}) +
                  ", expected " + desired + ", Kind=" + r.kind);
    }
    for (const char* field : {"name", "namespace", "uid"}) {
      if (StringField(out, {"metadata", field}) != StringField(in, {"metadata", field})) {
        return fail(std::string("converted object ") + std::to_string(j) + ": metadata." + field +
                    " changed");
      }
    }
  }
  for (size_t j = 0; j < sent.size(); ++j) objects[sent[j]] = converted[j];
  return Status::Ok();
}

}  // namespace kuota::server
