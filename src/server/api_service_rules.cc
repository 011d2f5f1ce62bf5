#include "server/api_service_rules.h"

#include <regex>
#include <string>
#include <vector>

#include "server/json_fields.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// k8s.io/apimachinery's IsDNS1123Subdomain and IsDNS1035Label messages.
std::string DnsSubdomainProblem(const std::string& s) {
  static const std::regex kSubdomain(
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  if (s.size() > 253) return "must be no more than 253 characters";
  if (!std::regex_match(s, kSubdomain)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return "";
}

std::string DnsLabelProblem(const std::string& s) {
  static const std::regex kLabel("[a-z]([-a-z0-9]*[a-z0-9])?");
  if (s.size() > 63) return "must be no more than 63 characters";
  if (!std::regex_match(s, kLabel)) {
    return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
           "with an alphabetic character, and end with an alphanumeric character (e.g. "
           "'my-name',  or 'abc-123', regex used for validation is "
           "'[a-z]([-a-z0-9]*[a-z0-9])?')";
  }
  return "";
}

// An integer field's value, 0 when absent; `bad` when present and not an integer.
int64_t IntField(const Json& o, const char* key, bool* bad) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) {
    *bad = true;
    return 0;
  }
  return it->get<int64_t>();
}

std::string Quote(const std::string& s) { return Json(s).dump(); }

Status ValidateApiService(Json& object) {
  std::vector<std::string> errs;
  if (!object.contains("spec") || !object["spec"].is_object()) object["spec"] = Json::object();
  Json& spec = object["spec"];
  const std::string group = StringField(spec, {"group"});
  const std::string version = StringField(spec, {"version"});
  const std::string name = StringField(object, {"metadata", "name"});
  const std::string required = version + "." + group;
  if (name != required) {
    errs.push_back("metadata.name: Invalid value: " + Quote(name) +
                   ": must be `spec.version+\".\"+spec.group`: " + Quote(required));
  }
  if (group.empty() && version != "v1") {
    errs.push_back(
        "spec.group: Required value: only v1 may have an empty group and it better be legacy "
        "kube");
  }
  if (!group.empty()) {
    if (std::string why = DnsSubdomainProblem(group); !why.empty()) {
      errs.push_back("spec.group: Invalid value: " + Quote(group) + ": " + why);
    }
  }
  if (std::string why = DnsLabelProblem(version); !why.empty()) {
    errs.push_back("spec.version: Invalid value: " + Quote(version) + ": " + why);
  }
  bool bad = false;
  int64_t group_priority = IntField(spec, "groupPriorityMinimum", &bad);
  if (bad || group_priority <= 0 || group_priority > 20000) {
    errs.push_back("spec.groupPriorityMinimum: Invalid value: " + std::to_string(group_priority) +
                   ": must be positive and less than 20000");
  }
  bad = false;
  int64_t version_priority = IntField(spec, "versionPriority", &bad);
  if (bad || version_priority <= 0 || version_priority > 1000) {
    errs.push_back("spec.versionPriority: Invalid value: " + std::to_string(version_priority) +
                   ": must be positive and less than 1000");
  }
  const std::string ca_bundle = StringField(spec, {"caBundle"});
  const bool insecure = spec.value("insecureSkipTLSVerify", false) == true;
  auto service = spec.find("service");
  if (service == spec.end() || service->is_null()) {
    if (!ca_bundle.empty()) {
      errs.push_back("spec.caBundle: Invalid value: \"" + std::to_string(ca_bundle.size()) +
                     " bytes\": local APIServices may not have a caBundle");
    }
    if (insecure) {
      errs.push_back(
          "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have "
          "insecureSkipTLSVerify");
    }
  } else if (!service->is_object()) {
    errs.push_back("spec.service: Invalid value: must be an object");
  } else {
    if (StringField(*service, {"namespace"}).empty()) {
      errs.push_back("spec.service.namespace: Required value");
    }
    if (StringField(*service, {"name"}).empty())
      errs.push_back("spec.service.name: Required value");
    bool bad_port = false;
    int64_t port = IntField(*service, "port", &bad_port);
    if (port == 0 && !bad_port) {
      (*service)["port"] = 443;  // the v1 API's default
    } else if (bad_port || port < 1 || port > 65535) {
      errs.push_back("spec.service.port: Invalid value: " + std::to_string(port) +
                     ": must be between 1 and 65535, inclusive");
    }
    if (insecure && !ca_bundle.empty()) {
      errs.push_back(
          "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is "
          "present");
    }
  }
  if (errs.empty()) return Status::Ok();
  std::string message = "[";
  for (size_t i = 0; i < errs.size(); ++i) message += (i ? ", " : "") + errs[i];
  return Status::Invalid(errs.size() == 1 ? errs[0] : message + "]");
}

Status ValidateService(const Json& object) {
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return Status::Ok();
  auto ports = spec->find("ports");
  if (ports == spec->end() || ports->is_null()) return Status::Ok();
  if (!ports->is_array()) return Status::Invalid("spec.ports: Invalid value: must be a list");
  for (size_t i = 0; i < ports->size(); ++i) {
    const Json& p = (*ports)[i];
    const std::string path = "spec.ports[" + std::to_string(i) + "]";
    bool bad = false;
    int64_t port = p.is_object() ? IntField(p, "port", &bad) : 0;
    if (port == 0 && !bad) return Status::Invalid(path + ".port: Required value");
    if (bad || port < 1 || port > 65535) {
      return Status::Invalid(path + ".port: Invalid value: " + std::to_string(port) +
                             ": must be between 1 and 65535, inclusive");
    }
    if (ports->size() > 1 && StringField(p, {"name"}).empty()) {
      return Status::Invalid(path + ".name: Required value");
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsApiServiceRulesKind(const ResourceInfo& resource) {
  return (resource.group == "apiregistration.k8s.io" && resource.plural == "apiservices") ||
         (resource.group.empty() && resource.plural == "services");
}

Status PrepareApiService(const ResourceInfo& resource, const nlohmann::json* /*old_object*/,
                         nlohmann::json& object) {
  if (!IsApiServiceRulesKind(resource)) return Status::Ok();
  if (resource.plural == "services") return ValidateService(object);
  return ValidateApiService(object);
}

}  // namespace kuota::server
