// The per-kind steps of kueue_conversion.h: each moves one kind's fields from
// v1beta1 to v1beta2 (Up) or back (Down) in place. apiVersion is set by the
// caller. Pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace kuota::conversion {

using Json = nlohmann::json;

Status ClusterQueueUp(Json& object);
Status ClusterQueueDown(Json& object);
Status LocalQueueUp(Json& object);
Status LocalQueueDown(Json& object);
Status WorkloadUp(Json& object);
Status WorkloadDown(Json& object);
Status AdmissionCheckUp(Json& object);
Status AdmissionCheckDown(Json& object);
Status MultiKueueClusterUp(Json& object);
Status MultiKueueClusterDown(Json& object);
Status MultiKueueConfigUp(Json& object);
Status MultiKueueConfigDown(Json& object);
Status ConfigurationUp(Json& object);
Status ConfigurationDown(Json& object);

// One pod set assignment's topologyAssignment at `path`, v1beta1's domain
// list to v1beta2's slices (Up) and back (Down), in place
// (topology_assignment_conversion.cc). Invalid, naming the field, when it
// cannot be converted.
Status TopologyAssignmentUp(Json& assignment, const std::string& path);
Status TopologyAssignmentDown(Json& assignment, const std::string& path);

// Moves object[from] to object[to] (dropping an existing object[to] only when
// object[from] is present). No-op when `object` is not a JSON object.
void RenameField(Json& object, const char* from, const char* to);
// The member `key` of `object` when both exist and it is an object, else nullptr.
Json* ObjectMember(Json& object, const char* key);

}  // namespace kuota::conversion
