// Object: any one of the kinds Kuota reads, as a tagged union, with the
// apiVersion/kind it was written as. Plain value type.
#pragma once

#include <string>
#include <variant>

#include "api/admission_check.h"
#include "api/cluster_queue.h"
#include "api/cohort.h"
#include "api/configuration.h"
#include "api/local_queue.h"
#include "api/namespace.h"
#include "api/node.h"
#include "api/priority_class.h"
#include "api/resource_flavor.h"
#include "api/topology.h"
#include "api/workload.h"

namespace kuota::api {

using ObjectValue = std::variant<ResourceFlavor, ClusterQueue, Cohort, LocalQueue,
                                 WorkloadPriorityClass, PriorityClass, AdmissionCheck, Namespace,
                                 Workload, Configuration, Topology, Node, Pod>;

struct Object {
  std::string api_version;
  std::string kind;
  ObjectValue value;
};

inline constexpr const char* kKueueGroup = "kueue.x-k8s.io";
inline constexpr const char* kKueueV1beta1 = "kueue.x-k8s.io/v1beta1";
// The version Kuota stores Kueue's kinds in and writes them as (Kueue v0.20's).
inline constexpr const char* kKueueV1beta2 = "kueue.x-k8s.io/v1beta2";

}  // namespace kuota::api
