// Spark pod templates: the two pod templates of a sparkoperator.k8s.io
// SparkApplication's driver and executors (spec.driver, spec.executor),
// built two ways. KueuePodSetTemplate is the Workload pod set's template as
// Kueue's sparkapplication integration builds it (the operator's spec
// fields only: cores from coreRequest, memory converted from Java's units,
// volumes, sidecars, nodeSelector, tolerations, the template's metadata).
// LocalPodTemplate is the pod Spark on Kubernetes makes on this machine:
// the user's pod template with the image, those resources, the env and
// placement of the spec, and, for a container without a command, what runs
// it here (spark-submit in local mode for the driver, a placeholder holding
// the executor's slot). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "jobs/job_kind.h"

namespace kuota::jobs::spark {

inline constexpr const char* kDriverRole = "driver";
inline constexpr const char* kExecutorRole = "executor";
// The containers Spark names (and Kueue's pod sets carry).
inline constexpr const char* kDriverContainer = "spark-kubernetes-driver";
inline constexpr const char* kExecutorContainer = "spark-kubernetes-executor";

// A Java memory size ("512m", "2g", "1024k") in Kubernetes units ("512Mi",
// "2Gi", "1024Ki"), as the operator converts it; other text unchanged.
std::string K8sMemory(const std::string& java);

// A Java memory size in MiB, as Spark writes SPARK_EXECUTOR_MEMORY ("1g" ->
// 1024); nullopt when it does not parse.
std::optional<int64_t> JavaMemoryMiB(const std::string& java);

// Kueue's pod set template for `role` (kDriverRole or kExecutorRole) of a
// validated application: Invalid naming the field ("spec.driver.memory")
// when a quantity does not parse.
Result<Json> KueuePodSetTemplate(const Json& app, const std::string& role);

// The pod Spark makes for `role` here, before the per-pod labels and env
// (SparkApplicationKind::CustomizePod).
Json LocalPodTemplate(const Json& app, const std::string& role);

// The Spark container of a pod spec for `role`: the one Spark names, else
// the first; nullptr when there is none.
Json* SparkContainer(Json& pod_spec, const std::string& role);

}  // namespace kuota::jobs::spark
