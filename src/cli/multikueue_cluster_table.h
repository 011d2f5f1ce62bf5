// MultiKueueClusterTable: what `kuota get multikueueclusters` prints, built
// on the client from the MultiKueueClusters and the manager's Workloads: each
// worker's reachability (its Active condition, Kueue's MultiKueue controller
// writes it) and how many unfinished Workloads run there (status.clusterName).
// Pure functions; thread-safe.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/time.h"

namespace kuota::cli {

// A meta.k8s.io/v1 Table (for FormatTable) with the columns Name, Connected
// (the Active condition's status), Reason (its reason when not active),
// Workloads, Age, and Message (priority 1: -o wide). `clusters` is an array
// of MultiKueueCluster objects; `workloads` an array of this manager's
// Workloads, or nullopt when they could not be listed: the count prints "?".
nlohmann::json MultiKueueClusterTable(const nlohmann::json& clusters,
                                      const std::optional<nlohmann::json>& workloads, Time now);

}  // namespace kuota::cli
