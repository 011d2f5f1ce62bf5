// The label, annotation and environment names Kubernetes' Job controller puts
// on the pods it creates (batch.kubernetes.io/...), shared by the pod builder
// and the pod reader. Constants only.
#pragma once

namespace kuota::jobctl {

inline constexpr const char* kControllerUidLabel = "batch.kubernetes.io/controller-uid";
inline constexpr const char* kJobNameLabel = "batch.kubernetes.io/job-name";
// The legacy spellings Kubernetes still sets beside the prefixed ones.
inline constexpr const char* kLegacyControllerUidLabel = "controller-uid";
inline constexpr const char* kLegacyJobNameLabel = "job-name";
// Indexed Jobs: the pod's completion index, as annotation and as label.
inline constexpr const char* kCompletionIndexKey = "batch.kubernetes.io/job-completion-index";
inline constexpr const char* kCompletionIndexEnv = "JOB_COMPLETION_INDEX";

}  // namespace kuota::jobctl
