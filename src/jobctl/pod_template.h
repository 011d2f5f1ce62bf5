// Pod template: builds the Pod a batch/v1 Job creates, the way Kubernetes' Job
// controller does: the template's labels, annotations and spec, the Job's
// labels (batch.kubernetes.io/controller-uid, job-name and their legacy
// spellings), a controller ownerReference, generateName "<job>-", and for an
// Indexed Job the completion index (annotation, label, JOB_COMPLETION_INDEX in
// every container, hostname "<job>-<index>"), and the Job's submitter
// annotations (jobctl/submitter.h) in place of any the template carries.
// Pure; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "jobctl/job_spec.h"

namespace kuota::jobctl {

// Longest generateName that leaves room for the 5 random characters.
inline constexpr size_t kMaxGenerateNameLength = 58;

// "<job>-" or, with an index, "<job>-<index>-"; the job part is shortened so
// the result fits kMaxGenerateNameLength with the index kept whole.
std::string PodGenerateName(std::string_view job_name, std::optional<int32_t> index);

// The Pod to create for `spec` (index: the completion index of an Indexed Job,
// nullopt otherwise). The result has no name: the store picks it from
// metadata.generateName.
nlohmann::json BuildPod(const JobSpec& spec, std::optional<int32_t> index);

}  // namespace kuota::jobctl
