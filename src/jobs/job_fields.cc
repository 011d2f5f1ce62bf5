#include "jobs/job_fields.h"

#include <algorithm>

#include "jobctl/pod_spec_schema.h"

namespace kuota::jobs {

using Json = nlohmann::json;

Status Required(const std::string& path) { return Status::Invalid(path + ": Required value"); }

Status InvalidValue(const std::string& path, const Json& value, const std::string& why) {
  return Status::Invalid(path + ": Invalid value: " + value.dump() + ": " + why);
}

Result<int64_t> IntField(const Json& obj, const char* key, const std::string& path,
                         int64_t fallback, int64_t min) {
  const std::string field = path.empty() ? std::string(key) : path + "." + key;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return InvalidValue(field, *it, "must be an integer");
  const int64_t v = it->get<int64_t>();
  if (v < min) {
    return InvalidValue(field, *it, "must be greater than or equal to " + std::to_string(min));
  }
  return v;
}

Result<std::string> StringField(const Json& obj, const char* key, const std::string& path,
                                const std::string& fallback) {
  const std::string field = path.empty() ? std::string(key) : path + "." + key;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_string()) return InvalidValue(field, *it, "must be a string");
  return it->get<std::string>();
}

Result<const Json*> ObjectField(const Json& obj, const char* key, const std::string& path) {
  const std::string field = path.empty() ? std::string(key) : path + "." + key;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return Required(field);
  if (!it->is_object()) return InvalidValue(field, *it, "must be an object");
  return &*it;
}

Status CheckBool(const Json& obj, const char* key, const std::string& path) {
  if (!obj.is_object()) return Status::Ok();
  auto it = obj.find(key);
  if (it != obj.end() && !it->is_null() && !it->is_boolean()) {
    return InvalidValue(path + "." + key, *it, "must be a boolean");
  }
  return Status::Ok();
}

Status CheckPodTemplate(const Json& tmpl, const std::string& path) {
  if (!tmpl.is_object()) return InvalidValue(path, tmpl, "must be an object");
  if (auto m = tmpl.find("metadata"); m != tmpl.end() && !m->is_null()) {
    KUOTA_RETURN_IF_ERROR(jobctl::ValidateObjectMetaSchema(*m, path + ".metadata"));
  }
  auto spec = tmpl.find("spec");
  if (spec == tmpl.end() || spec->is_null()) return Required(path + ".spec");
  KUOTA_RETURN_IF_ERROR(jobctl::ValidatePodSpecSchema(*spec, path + ".spec"));
  auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array() || containers->empty()) {
    return Required(path + ".spec.containers");
  }
  return Status::Ok();
}

std::string JobName(const Json& job) { return MetaStr(job, "name"); }

std::string MetaStr(const Json& obj, const char* field) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto v = m->find(field);
  return v != m->end() && v->is_string() ? v->get<std::string>() : "";
}

std::string MetaMapValue(const Json& obj, const char* map, const char* key) {
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto l = m->find(map);
  if (l == m->end() || !l->is_object()) return "";
  auto v = l->find(key);
  return v != l->end() && v->is_string() ? v->get<std::string>() : "";
}

const Json& EmptyObject() {
  static const Json kEmpty = Json::object();
  return kEmpty;
}

const Json& EmptyArray() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}

const Json& ObjAt(const Json& obj, const char* key) {
  if (!obj.is_object()) return EmptyObject();
  auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? *it : EmptyObject();
}

const Json& SpecOf(const Json& job) { return ObjAt(job, "spec"); }

const Json& ArrAt(const Json& obj, const char* key) {
  if (!obj.is_object()) return EmptyArray();
  auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : EmptyArray();
}

std::string StrAt(const Json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t IntAt(const Json& obj, const char* key, int64_t fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string Quoted(const std::string& s) { return Json(s).dump(); }

Status NotSupportedValue(const std::string& path, const std::string& value,
                         const std::vector<std::string>& supported) {
  std::string list;
  for (const auto& s : supported) list += (list.empty() ? "" : ", ") + Quoted(s);
  return Status::Invalid(path + ": Unsupported value: " + Quoted(value) +
                         ": supported values: " + list);
}

std::string CheckDns1123(const std::string& v) {
  if (v.size() > kMaxLabelLength) return "must be no more than 63 characters";
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = !v.empty() && alnum(v.front()) && alnum(v.back());
  for (char c : v) ok = ok && (alnum(c) || c == '-');
  if (ok) return "";
  return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
         "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
         "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
}

namespace {

bool IsAlnumAscii(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, at most 253.
std::string CheckDns1123Subdomain(const std::string& v) {
  if (v.size() > 253) return "must be no more than 253 characters";
  bool ok = !v.empty();
  size_t start = 0;
  while (ok) {
    const size_t dot = v.find('.', start);
    const std::string part = v.substr(start, dot == std::string::npos ? dot : dot - start);
    // Each part as a DNS-1123 label, without the label's length bound.
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    ok = !part.empty() && lower_alnum(part.front()) && lower_alnum(part.back());
    for (char c : part) ok = ok && (lower_alnum(c) || c == '-');
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (ok) return "";
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
         "'-' or '.', and must start and end with an alphanumeric character (e.g. "
         "'example.com', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

}  // namespace

std::string CheckQualifiedName(const std::string& value) {
  std::string name = value;
  if (const size_t slash = value.find('/'); slash != std::string::npos) {
    if (value.find('/', slash + 1) != std::string::npos) {
      return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and "
             "must start and end with an alphanumeric character, with an optional DNS "
             "subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    const std::string prefix = value.substr(0, slash);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (std::string why = CheckDns1123Subdomain(prefix); !why.empty()) {
      return "prefix part " + why;
    }
    name = value.substr(slash + 1);
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kMaxLabelLength) return "name part must be no more than 63 characters";
  bool ok = IsAlnumAscii(name.front()) && IsAlnumAscii(name.back());
  for (char c : name) ok = ok && (IsAlnumAscii(c) || c == '-' || c == '_' || c == '.');
  if (ok) return "";
  return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
         "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
         "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
}

void AppendEnv(Json& pod, const std::vector<std::pair<std::string, std::string>>& env) {
  if (env.empty() || !pod.contains("spec") || !pod["spec"].is_object()) return;
  for (const char* list : {"containers", "initContainers"}) {
    auto it = pod["spec"].find(list);
    if (it == pod["spec"].end() || !it->is_array()) continue;
    for (Json& c : *it) {
      if (!c.is_object()) continue;
      Json& e = c["env"];
      if (!e.is_array()) e = Json::array();
      for (const auto& [name, value] : env) e.push_back({{"name", name}, {"value", value}});
    }
  }
}

}  // namespace kuota::jobs
