#include "server/webhook_client.h"
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

// Where a clientConfig points: the host to verify and send as SNI, where to
// connect, and the path.
struct AdmissionEndpoint {
  std::string host;
  std::string connect_to;  // empty: host itself
  int port = 443;
  int connect_port = 0;  // nonzero: where to connect instead of port
  std::string path = "/";
  std::string Url() const { return "https://" + host + ":" + std::to_string(port) + path; }
};

Result<AdmissionEndpoint> AdmissionEndpointOf(const Json& client_config,
                                              const WebhookCallOptions& options) {
  AdmissionEndpoint e;
  const std::string url = StringField(client_config, {"url"});
  if (!url.empty()) {
    const std::string scheme = "https://";
    if (url.rfind(scheme, 0) != 0) return Status::Internal("clientConfig.url must be https://");
    std::string rest = url.substr(scheme.size());
    size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    e.path = slash == std::string::npos ? "/" : rest.substr(slash);
    size_t colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']') == std::string::npos) {
      try {
        e.port = std::stoi(authority.substr(colon + 1));
      } catch (const std::exception&) {
        return Status::Internal("clientConfig.url: bad port in " + url);
      }
      authority = authority.substr(0, colon);
    }
    e.host = authority;
    return e;
  }
  const Json* service = FindField(client_config, {"service"});
  if (service == nullptr || !service->is_object()) {
    return Status::Internal("clientConfig: one of url or service is required");
  }
  const std::string name = StringField(*service, {"name"});
  const std::string ns = StringField(*service, {"namespace"});
  if (name.empty() || ns.empty()) {
    return Status::Internal("clientConfig.service: name and namespace are required");
  }
  e.host = name + "." + ns + ".svc";
  e.connect_to = options.service_address;
  e.connect_port = options.service_endpoint_port;
  if (const Json* port = FindField(*service, {"port"});
      port != nullptr && port->is_number_integer()) {
    e.port = port->get<int>();
  }
  if (std::string path = StringField(*service, {"path"}); !path.empty()) e.path = path;
  return e;
}

}  // namespace

Result<Json> PostWebhookReview(const Json& client_config, const WebhookCallOptions& options,
                               const Json& review) {
  KUOTA_ASSIGN_OR_RETURN(AdmissionEndpoint endpoint, AdmissionEndpointOf(client_config, options));
  const std::string timeout = std::to_string(options.timeout_seconds) + "s";
  const std::string path = endpoint.path +
                           (endpoint.path.find('?') == std::string::npos ? "?" : "&") +
                           "timeout=" + timeout;
  const std::string post =
      "Post \"https://" + endpoint.host + ":" + std::to_string(endpoint.port) + path + "\": ";

  const int connect_port = endpoint.connect_port > 0 ? endpoint.connect_port : endpoint.port;
  httplib::SSLClient client(endpoint.host, connect_port);
  if (!endpoint.connect_to.empty()) {
    client.set_hostname_addr_map({{endpoint.host, endpoint.connect_to}});
  }
  if (std::string bundle = StringField(client_config, {"caBundle"}); !bundle.empty()) {
    std::optional<std::string> ca = auth::Base64Decode(bundle);
    if (!ca) return Status::Internal("clientConfig.caBundle is not base64");
    X509_STORE* store = auth::CaStoreFromPem(*ca).release();
    if (store == nullptr) return Status::Internal("clientConfig.caBundle holds no PEM certificate");
    client.set_ca_cert_store(store);  // the client's SSL_CTX owns it now
  }
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(options.timeout_seconds, 0);
  client.set_read_timeout(options.timeout_seconds, 0);
  client.set_write_timeout(options.timeout_seconds, 0);

  httplib::Result res = client.Post(path.c_str(), review.dump(), "application/json");
  if (!res) {
    std::string why = httplib::to_string(res.error());
    const std::string addr = (endpoint.connect_to.empty() ? endpoint.host : endpoint.connect_to) +
                             ":" + std::to_string(connect_port);
    if (res.error() == httplib::Error::Connection) {
      why = "dial tcp " + addr + ": connect: connection refused";
    } else if (res.error() == httplib::Error::SSLServerVerification) {
      why =
          "tls: failed to verify certificate: x509: certificate signed by unknown authority "
          "or not valid for " +
          endpoint.host;
    } else if (res.error() == httplib::Error::Read || res.error() == httplib::Error::Write ||
               res.error() == httplib::Error::ConnectionTimeout) {
      why = "context deadline exceeded";
    }
    return Status::Internal(post + why);
  }
  if (res->status != 200) {
    return Status::Internal(post + "the webhook answered HTTP " + std::to_string(res->status));
  }
  return Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
}

Status RouteServiceThroughEndpoints(store::ObjectStore& store, const Json& client_config,
                                    WebhookCallOptions* options) {
  const Json* service = FindField(client_config, {"service"});
  if (service == nullptr || !service->is_object()) return Status::Ok();
  const Json* port = FindField(*service, {"port"});
  Result<ServiceEndpoint> endpoint = ResolveServiceEndpoint(
      store, StringField(*service, {"namespace"}), StringField(*service, {"name"}),
      port != nullptr && port->is_number_integer() ? port->get<int>() : 443);
  if (endpoint.ok()) {
    options->service_address = endpoint->ip;
    options->service_endpoint_port = endpoint->port;
    return Status::Ok();
  }
  // A Service not stored at all is reached at the configured address.
  if (endpoint.status().message().rfind("service \"", 0) == 0) return Status::Ok();
  return endpoint.status();
}

std::string NewReviewUid() {
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

}  // namespace kuota::server
