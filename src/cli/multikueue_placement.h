// MultiKueuePlacement: where a Workload dispatched by MultiKueue runs, or
// which workers it waits on, and why — read from its status (clusterName,
// nominatedClusterNames, its MultiKueue check's entry in admissionChecks) as
// Kueue's MultiKueue controller writes it (control/multikueue_controller.h),
// for `kuota describe workload` and `kuota why`. Pure functions but
// FetchMultiKueueChecks, which reads kuotad; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/api_client.h"

namespace kuota::cli {

// The AdmissionChecks of controllerName kueue.x-k8s.io/multikueue, by name,
// each with its workers (its MultiKueueConfig's clusters in order; empty
// when the config could not be read).
using MultiKueueChecks = std::map<std::string, std::vector<std::string>>;

struct MultiKueuePlacement {
  std::string check{};                   // the MultiKueue check's name; "" when unknown
  std::string state{};                   // its state: Pending, Ready, Retry, Rejected
  std::string message{};                 // its message
  std::string cluster{};                 // status.clusterName: the worker that admitted it
  std::vector<std::string> nominated{};  // status.nominatedClusterNames
  std::vector<std::string> workers{};    // the check's MultiKueueConfig's clusters, when known
};

// The MultiKueue side of `workload`; nullopt when it has none (no check in
// `checks`, no clusterName, no nominatedClusterNames). With `checks` empty
// (the AdmissionChecks could not be read) the check is the one whose message
// says where it was admitted, else the only check of a dispatched workload.
std::optional<MultiKueuePlacement> FindMultiKueuePlacement(const nlohmann::json& workload,
                                                           const MultiKueueChecks& checks);

// What `kuota describe workload` prints under "MultiKueue:", as label and
// value: "Runs on" (the worker and why that one), "Dispatched to" (the
// workers it waits on), "Check" (name, state, message), and for a check in
// Retry or Rejected what happens next.
std::vector<std::pair<std::string, std::string>> MultiKueueLines(const MultiKueuePlacement& p);

// `kuota why`'s reason for a workload whose quota is reserved and whose
// MultiKueue check is not yet Ready ("waiting for a worker cluster to admit
// it: dispatched to w1, w2 ..."); "" when the check is Ready.
std::string MultiKueueWaitReason(const MultiKueuePlacement& p);

// Reads the MultiKueue AdmissionChecks and their MultiKueueConfigs. Errors as
// ApiClient::Get's, for the AdmissionChecks only (an unreadable config
// leaves its workers empty).
Result<MultiKueueChecks> FetchMultiKueueChecks(const ApiClient& client);

}  // namespace kuota::cli
