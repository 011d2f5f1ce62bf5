#include "jobs/job_fields.h"

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

std::string JobName(const Json& job) {
  auto m = job.find("metadata");
  if (m == job.end() || !m->is_object()) return "";
  auto n = m->find("name");
  return n != m->end() && n->is_string() ? n->get<std::string>() : "";
}

}  // namespace kuota::jobs
