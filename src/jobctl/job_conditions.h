// Job conditions: the condition types and reasons of a batch/v1 Job's
// status.conditions, and Kubernetes' rule for setting one (a condition's
// lastTransitionTime moves only when it is rewritten; a False condition is
// never added where none was). Pure helpers over JSON; thread-compatible.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/time.h"

namespace kuota::jobctl {

inline constexpr const char* kJobComplete = "Complete";
inline constexpr const char* kJobFailed = "Failed";
inline constexpr const char* kJobSuspended = "Suspended";
inline constexpr const char* kJobFailureTarget = "FailureTarget";
inline constexpr const char* kJobSuccessCriteriaMet = "SuccessCriteriaMet";

inline constexpr const char* kReasonBackoffLimitExceeded = "BackoffLimitExceeded";
inline constexpr const char* kMessageBackoffLimitExceeded =
    "Job has reached the specified backoff limit";
inline constexpr const char* kReasonDeadlineExceeded = "DeadlineExceeded";
inline constexpr const char* kMessageDeadlineExceeded =
    "Job was active longer than specified deadline";
inline constexpr const char* kReasonCompletionsReached = "CompletionsReached";
inline constexpr const char* kMessageCompletionsReached =
    "Reached expected number of succeeded pods";
inline constexpr const char* kReasonJobSuspended = "JobSuspended";
inline constexpr const char* kMessageJobSuspended = "Job suspended";
inline constexpr const char* kReasonJobResumed = "JobResumed";
inline constexpr const char* kMessageJobResumed = "Job resumed";

// The condition of `type` in `conditions` (a JSON array), or nullptr.
const nlohmann::json* FindCondition(const nlohmann::json& conditions, std::string_view type);

// True when `conditions` holds `type` with status "True".
bool IsConditionTrue(const nlohmann::json& conditions, std::string_view type);

// Kubernetes' ensureJobConditionStatus: rewrites the condition of `type` when
// its status, reason or message differ (both times become `now`), appends it
// when missing unless `status` is false. Returns whether `conditions` changed.
// `conditions` is made an array when it is not one.
bool EnsureCondition(nlohmann::json& conditions, std::string_view type, bool status,
                     std::string_view reason, std::string_view message, Time now);

}  // namespace kuota::jobctl
