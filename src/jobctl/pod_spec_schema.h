// Pod and Job schema: the types Kubernetes' OpenAPI schema gives the fields
// of a PodSpec (containers, env, resources, tolerations, ...), of Pod and Job
// status and of ObjectMeta, checked on the JSON a client sent before it is
// stored, so that no reader of a stored Pod or Job ever meets a number where a
// string belongs. Fields the schema does not know are left alone (no Kuota
// code reads them). Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::jobctl {

// Checks `pod_spec` (a PodSpec at `path`, e.g. "spec.template.spec") against
// the schema: types of every known field, required container and env names,
// quantities that parse. Fails with Invalid and a message that names the
// field, e.g. `spec.template.spec.containers[0].env[0].name: Invalid value: 1:
// must be a string`.
Status ValidatePodSpecSchema(const nlohmann::json& pod_spec, const std::string& path);

// Checks an ObjectMeta at `path` (e.g. "spec.template.metadata"): labels and
// annotations are maps of strings, finalizers a list of strings,
// ownerReferences a list of references with string fields.
Status ValidateObjectMetaSchema(const nlohmann::json& meta, const std::string& path);

// Checks a Pod's status (phase, conditions, container states, exit codes).
Status ValidatePodStatusSchema(const nlohmann::json& status, const std::string& path);

// Checks a Job's status (counts, conditions, indexes, uncounted pods).
Status ValidateJobStatusSchema(const nlohmann::json& status, const std::string& path);

}  // namespace kuota::jobctl
