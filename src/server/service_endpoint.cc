#include "server/service_endpoint.h"

#include "server/json_fields.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

int64_t EndpointPortNumber(const Json& o, const char* field) {
  auto it = o.find(field);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

Result<ServiceEndpoint> ResolveServiceEndpoint(store::ObjectStore& store, const std::string& ns,
                                               const std::string& name, int port) {
  Result<Json> svc = store.Get("services", ns, name);
  if (!svc.ok()) {
    if (svc.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("service \"" + name + "\" not found");
    }
    return svc.status();
  }
  const std::string type = StringField(*svc, {"spec", "type"});
  if (type == "ExternalName") {
    return Status::Invalid("unsupported service type \"" + type + "\"");
  }
  const Json* ports = FindField(*svc, {"spec", "ports"});
  const Json* svc_port = nullptr;
  if (ports != nullptr && ports->is_array()) {
    for (const Json& p : *ports) {
      if (p.is_object() && EndpointPortNumber(p, "port") == port) svc_port = &p;
    }
  }
  if (svc_port == nullptr) {
    return Status::NotFound("no service port " + std::to_string(port) + " found for service \"" +
                            name + "\"");
  }
  const std::string port_name = StringField(*svc_port, {"name"});
  Result<Json> eps = store.Get("endpoints", ns, name);
  const Json* subsets = eps.ok() ? FindField(*eps, {"subsets"}) : nullptr;
  if (subsets != nullptr && subsets->is_array()) {
    for (const Json& ss : *subsets) {
      const Json* addresses = FindField(ss, {"addresses"});
      const Json* ss_ports = FindField(ss, {"ports"});
      if (addresses == nullptr || !addresses->is_array() || addresses->empty() ||
          ss_ports == nullptr || !ss_ports->is_array()) {
        continue;
      }
      for (const Json& p : *ss_ports) {
        if (!p.is_object() || StringField(p, {"name"}) != port_name) continue;
        ServiceEndpoint e;
        e.ip = StringField((*addresses)[0], {"ip"});
        e.port = static_cast<int>(EndpointPortNumber(p, "port"));
        if (!e.ip.empty() && e.port > 0) return e;
      }
    }
  }
  return Status::Unavailable("no endpoints available for service \"" + name + "\"");
}

}  // namespace kuota::server
