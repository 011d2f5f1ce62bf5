// LocalQueue (kueue.x-k8s.io/v1beta1): a namespaced entry point that sends
// workloads to one ClusterQueue. Plain struct.
#pragma once

#include <optional>
#include <string>

#include "base/time.h"

#include "api/cluster_queue.h"
#include "api/object_meta.h"

namespace kuota::api {

// status.fairSharing.admissionFairSharingStatus: the LocalQueue's decayed
// usage history and when it was last folded in.
struct AdmissionFairSharingStatus {
  ResourceList consumed_resources;
  std::optional<Time> last_update;
};

struct LocalQueue {
  ObjectMeta metadata;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::kNone;
  std::optional<Quantity> fair_sharing_weight;  // spec.fairSharing.weight; absent: 1
  std::optional<AdmissionFairSharingStatus> admission_fair_sharing;  // from status
};

}  // namespace kuota::api
