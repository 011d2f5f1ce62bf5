// The pure part of Kueue's ProvisioningRequest admission check (controllerName
// kueue.x-k8s.io/provisioning-request): a ProvisioningRequestConfig read with
// its defaults, the names Kueue gives a workload's requests
// (<workload>-<check>-<attempt>) and pod templates (ppt-<request>-<podset>),
// which pod sets need capacity (managedResources), the retry backoff, and the
// admission check state a request's conditions lead to (Kueue's
// syncCheckStates). JSON in, JSON out; stateless functions, thread-safe.
// provisioning_controller.h does the reads and writes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/time.h"

namespace kuota::control {

inline constexpr const char* kProvisioningRequestControllerName =
    "kueue.x-k8s.io/provisioning-request";
// The annotations the cluster autoscaler matches pods to their request by.
inline constexpr const char* kConsumeProvisioningRequestAnnotation =
    "autoscaling.x-k8s.io/consume-provisioning-request";
inline constexpr const char* kProvisioningClassAnnotation =
    "autoscaling.x-k8s.io/provisioning-class-name";
// Messages Kueue's provisioning controller writes on its checks.
inline constexpr const char* kCheckInactiveMessage = "the check is not active";
inline constexpr const char* kNoRequestNeededMessage = "the provisioning request is not needed";
// Workload annotations whose suffix becomes a request parameter.
inline constexpr const char* kProvReqAnnotationPrefix = "provreq.kueue.x-k8s.io/";

// A ProvisioningRequestConfig's spec, defaults applied.
struct ProvisioningConfig {
  std::string class_name;
  std::map<std::string, std::string> parameters;
  std::vector<std::string> managed_resources;  // empty: every resource
  int32_t backoff_limit_count = 3;
  int32_t backoff_base_seconds = 60;
  int32_t backoff_max_seconds = 1800;
  // podSetUpdates.nodeSelector: key <- status.provisioningClassDetails[detail].
  std::vector<std::pair<std::string, std::string>> node_selector_from_details;
  std::string pod_set_merge_policy;  // "", IdenticalPodTemplates, IdenticalWorkload...
};

// Reads a stored ProvisioningRequestConfig (v1beta2 JSON). Invalid when it
// has no provisioningClassName.
Result<ProvisioningConfig> ReadProvisioningConfig(const nlohmann::json& config);

// Kueue's name limit: names past 247 bytes are cut and end in "-" and the
// first 5 hex digits of the full name's SHA-1.
std::string LimitProvisioningObjectName(const std::string& full);
// "<workload>-<check>-<attempt>", limited.
std::string ProvisioningRequestName(const std::string& workload, const std::string& check,
                                    int32_t attempt);
// "ppt-<request>-<podset>", limited.
std::string ProvisioningPodTemplateName(const std::string& request, const std::string& pod_set);
// The attempt a request's name carries for (workload, check); nullopt when
// the name is not one of theirs.
std::optional<int32_t> ProvisioningAttempt(const std::string& request_name,
                                           const std::string& workload, const std::string& check);

// Kueue's admission check backoff: base * 2^(n-1) seconds, at most max (no
// cap when max is 0), n = retryCount + 1.
int32_t ProvisioningBackoffSeconds(int32_t base, int32_t max, int32_t retry_count);

// A Workload's pod sets (spec.podSets) that ask for capacity: count > 0 and,
// when `managed` is not empty, some container or init container requesting
// or limiting one of `managed`. Names in spec order.
std::vector<std::string> ProvisioningPodSets(const nlohmann::json& workload,
                                             const std::vector<std::string>& managed);

// The pod sets of a request to make, from a Workload with an admission:
// (pod set name, count), merged by the config's podSetMergePolicy. Empty
// when no pod set asks for capacity (the check is Ready without a request).
struct ProvisioningPodSet {
  std::string name;
  int32_t count = 0;
  nlohmann::json template_;  // the pod set's template
};
std::vector<ProvisioningPodSet> ProvisioningRequestPodSets(const nlohmann::json& workload,
                                                           const ProvisioningConfig& config);

// Whether the request `pr` was made from `config` (same class, every
// parameter of the config present with the same value).
bool ProvisioningRequestMatchesConfig(const nlohmann::json& pr, const ProvisioningConfig& config);

// The condition of `type` of a request when its status is "True"; nullptr otherwise.
const nlohmann::json* TrueProvisioningCondition(const nlohmann::json& pr, const char* type);

// What a workload's state tells the check's sync.
struct ProvisioningWorkloadFacts {
  std::string name;
  bool admitted = false;  // Admitted condition True
  bool active = true;     // spec.active
  bool finished = false;  // Finished condition True
};

// Kueue's syncCheckStates for one check whose config is active and whose
// pod sets need capacity, given its active or last request `pr`: moves
// `check` (a status.admissionChecks entry: name, state, message,
// podSetUpdates, retryCount, requeueAfterSeconds) to the state the
// request's conditions say (Failed: Retry with a backoff, Rejected past
// backoffLimitCount; CapacityRevoked: Rejected; BookingExpired before
// admission: like Failed; Provisioned: Ready with podSetUpdates; Accepted:
// Pending with the Provisioned message; none: Pending). `now` becomes
// lastTransitionTime when the state changes. True when `check` changed.
bool SyncProvisioningCheck(nlohmann::json& check, const nlohmann::json& pr,
                           const ProvisioningConfig& config, const nlohmann::json& workload,
                           const ProvisioningWorkloadFacts& facts, Time now);

// Sets `check`'s state (and lastTransitionTime when it changes) and message;
// true when either changed.
bool SetProvisioningCheck(nlohmann::json& check, const std::string& state,
                          const std::string& message, Time now);

}  // namespace kuota::control
