#include "jobctl/job_spec.h"

#include <limits>
#include <string_view>

#include "jobctl/invalid_value.h"
#include "jobctl/pod_spec_schema.h"
#include "jobctl/submitter.h"

namespace kuota::jobctl {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// An optional integer field of `obj` in [min, max]; nullopt when absent or null.
Result<std::optional<int64_t>> ReadInt(const Json& obj, const char* key, std::string_view path,
                                       int64_t min, int64_t max) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<int64_t>();
  int64_t v = 0;
  if (it->is_number_unsigned()) {
    uint64_t u = it->get<uint64_t>();
    if (u > static_cast<uint64_t>(max)) {
      return InvalidValue(path, *it, "must be less than or equal to " + std::to_string(max));
    }
    v = static_cast<int64_t>(u);
  } else if (it->is_number_integer()) {
    v = it->get<int64_t>();
  } else {
    return InvalidValue(path, *it, "must be an integer");
  }
  if (v < min) {
    return InvalidValue(path, *it, "must be greater than or equal to " + std::to_string(min));
  }
  if (v > max) {
    return InvalidValue(path, *it, "must be less than or equal to " + std::to_string(max));
  }
  return std::optional<int64_t>(v);
}

Result<std::string> ReadString(const Json& obj, const char* key, std::string_view path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) return InvalidValue(path, *it, "must be a string");
  return it->get<std::string>();
}

Status CheckContainers(const Json& pod_spec, const char* key, bool required) {
  const std::string path = std::string("spec.template.spec.") + key;
  auto it = pod_spec.find(key);
  if (it == pod_spec.end() || it->is_null()) {
    if (required) return Status::Invalid(path + ": Required value");
    return Status::Ok();
  }
  if (!it->is_array()) return InvalidValue(path, *it, "must be a list of containers");
  if (required && it->empty()) return Status::Invalid(path + ": Required value");
  // Each container's fields (name required, env a list, ...) are checked by
  // ValidatePodSpecSchema, which ParseJobSpec runs next.
  return Status::Ok();
}

}  // namespace

Result<JobSpec> ParseJobSpec(const Json& job) {
  if (!job.is_object()) return Status::Invalid("job: must be a JSON object");
  JobSpec out;

  auto meta_it = job.find("metadata");
  if (meta_it == job.end() || !meta_it->is_object()) {
    return Status::Invalid("metadata: Required value");
  }
  const Json& meta = *meta_it;
  KUOTA_ASSIGN_OR_RETURN(out.name, ReadString(meta, "name", "metadata.name"));
  if (out.name.empty()) return Status::Invalid("metadata.name: Required value");
  KUOTA_ASSIGN_OR_RETURN(out.uid, ReadString(meta, "uid", "metadata.uid"));
  if (out.uid.empty()) return Status::Invalid("metadata.uid: Required value");
  KUOTA_ASSIGN_OR_RETURN(out.ns, ReadString(meta, "namespace", "metadata.namespace"));
  if (out.ns.empty()) out.ns = "default";
  auto del = meta.find("deletionTimestamp");
  out.deleting = del != meta.end() && !del->is_null();

  auto spec_it = job.find("spec");
  if (spec_it == job.end() || !spec_it->is_object()) return Status::Invalid("spec: Required value");
  const Json& spec = *spec_it;

  std::string mode;
  KUOTA_ASSIGN_OR_RETURN(mode, ReadString(spec, "completionMode", "spec.completionMode"));
  if (mode.empty() || mode == "NonIndexed") {
    out.indexed = false;
  } else if (mode == "Indexed") {
    out.indexed = true;
  } else {
    return Status::Invalid(
        "spec.completionMode: Unsupported value: " + QuoteValue(spec["completionMode"]) +
        ": supported values: \"NonIndexed\", \"Indexed\"");
  }
  const int64_t count_max = out.indexed ? kMaxIndexedJobCompletions : kInt32Max;

  std::optional<int64_t> v;
  KUOTA_ASSIGN_OR_RETURN(v, ReadInt(spec, "parallelism", "spec.parallelism", 0, count_max));
  out.parallelism = static_cast<int32_t>(v.value_or(1));
  KUOTA_ASSIGN_OR_RETURN(v, ReadInt(spec, "completions", "spec.completions", 0, count_max));
  if (v) out.completions = static_cast<int32_t>(*v);
  if (out.indexed && !out.completions) {
    return Status::Invalid("spec.completions: Required value: when completion mode is Indexed");
  }
  KUOTA_ASSIGN_OR_RETURN(v, ReadInt(spec, "backoffLimit", "spec.backoffLimit", 0, kInt32Max));
  out.backoff_limit = static_cast<int32_t>(v.value_or(6));
  KUOTA_ASSIGN_OR_RETURN(out.active_deadline_seconds,
                         ReadInt(spec, "activeDeadlineSeconds", "spec.activeDeadlineSeconds", 1,
                                 std::numeric_limits<int64_t>::max() / 1000));
  KUOTA_ASSIGN_OR_RETURN(
      out.ttl_seconds_after_finished,
      ReadInt(spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished", 0, kInt32Max));

  auto suspend = spec.find("suspend");
  if (suspend != spec.end() && !suspend->is_null()) {
    if (!suspend->is_boolean()) return InvalidValue("spec.suspend", *suspend, "must be a boolean");
    out.suspend = suspend->get<bool>();
  }
  std::string managed_by;
  KUOTA_ASSIGN_OR_RETURN(managed_by, ReadString(spec, "managedBy", "spec.managedBy"));
  out.managed_elsewhere = !managed_by.empty() && managed_by != kJobControllerName;

  auto tmpl = spec.find("template");
  if (tmpl == spec.end() || tmpl->is_null())
    return Status::Invalid("spec.template: Required value");
  if (!tmpl->is_object()) return InvalidValue("spec.template", *tmpl, "must be an object");
  auto tmeta = tmpl->find("metadata");
  if (tmeta != tmpl->end() && !tmeta->is_null()) {
    if (!tmeta->is_object()) {
      return InvalidValue("spec.template.metadata", *tmeta, "must be an object");
    }
    KUOTA_RETURN_IF_ERROR(ValidateObjectMetaSchema(*tmeta, "spec.template.metadata"));
    for (const char* f : {"labels", "annotations"}) {
      auto m = tmeta->find(f);
      if (m == tmeta->end() || m->is_null()) continue;
      const std::string path = std::string("spec.template.metadata.") + f;
      if (!m->is_object()) return InvalidValue(path, *m, "must be a map of strings");
      for (const auto& [k, val] : m->items()) {
        if (!val.is_string()) return InvalidValue(path + "[" + k + "]", val, "must be a string");
      }
    }
  }
  auto pod_spec = tmpl->find("spec");
  if (pod_spec == tmpl->end() || pod_spec->is_null()) {
    return Status::Invalid("spec.template.spec: Required value");
  }
  if (!pod_spec->is_object())
    return InvalidValue("spec.template.spec", *pod_spec, "must be an object");
  KUOTA_RETURN_IF_ERROR(CheckContainers(*pod_spec, "containers", true));
  KUOTA_RETURN_IF_ERROR(CheckContainers(*pod_spec, "initContainers", false));
  KUOTA_RETURN_IF_ERROR(ValidatePodSpecSchema(*pod_spec, "spec.template.spec"));
  auto rp = pod_spec->find("restartPolicy");
  if (rp == pod_spec->end() || rp->is_null()) {
    return Status::Invalid(
        "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"");
  }
  if (*rp == "Never") {
    out.restart_policy = RestartPolicy::kNever;
  } else if (*rp == "OnFailure") {
    out.restart_policy = RestartPolicy::kOnFailure;
  } else {
    return Status::Invalid("spec.template.spec.restartPolicy: Unsupported value: " +
                           QuoteValue(*rp) + ": supported values: \"OnFailure\", \"Never\"");
  }
  out.pod_template = *tmpl;
  out.submitter = SubmitterAnnotations(job);
  return out;
}

Status ValidateJob(const Json& job) {
  Result<JobSpec> spec = ParseJobSpec(job);
  return spec.ok() ? Status::Ok() : spec.status();
}

}  // namespace kuota::jobctl
