// JobSpec: the validated view of a batch/v1 Job that the Job controller reads
// (parallelism, completions, completion mode, backoffLimit, deadlines, TTL,
// suspend, restart policy, pod template), with Kubernetes' defaults applied.
// ParseJobSpec / ValidateJob check what the Kubernetes API server would check
// for these fields and name the field path on failure. Pure functions over
// JSON; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/status.h"

namespace kuota::jobctl {

using Json = nlohmann::json;

enum class RestartPolicy { kNever, kOnFailure };

// Largest completions / parallelism Kubernetes accepts for an Indexed Job.
inline constexpr int32_t kMaxIndexedJobCompletions = 100000;
// The managedBy value of Jobs that the built-in Job controller syncs.
inline constexpr const char* kJobControllerName = "kubernetes.io/job-controller";

struct JobSpec {
  std::string name;
  std::string ns;  // metadata.namespace ("default" when unset)
  std::string uid;
  int32_t parallelism = 1;             // spec.parallelism, default 1
  std::optional<int32_t> completions;  // spec.completions; nullopt = work queue
  bool indexed = false;                // spec.completionMode == Indexed
  int32_t backoff_limit = 6;           // spec.backoffLimit, default 6
  std::optional<int64_t> active_deadline_seconds;
  std::optional<int64_t> ttl_seconds_after_finished;
  bool suspend = false;
  // True when spec.managedBy names a controller other than the built-in one
  // (e.g. MultiKueue): the Job controller then leaves the Job alone.
  bool managed_elsewhere = false;
  bool deleting = false;  // metadata.deletionTimestamp is set
  RestartPolicy restart_policy = RestartPolicy::kNever;
  Json pod_template;  // spec.template as written (an object with an object "spec")
  // The Job's submitter annotations (jobctl/submitter.h), name -> value, as
  // SubmitterAnnotations reads them; its pods carry exactly these.
  Json submitter = Json::object();
};

// Reads and validates `job`. Fails with Invalid and a message such as
// `spec.parallelism: Invalid value: "two": must be an integer`.
Result<JobSpec> ParseJobSpec(const Json& job);

// The same checks as ParseJobSpec, for callers that only want a verdict
// (e.g. an admission hook rejecting a bad Job before it is stored).
Status ValidateJob(const Json& job);

}  // namespace kuota::jobctl
