// LocalQueue (kueue.x-k8s.io/v1beta1): a namespaced entry point that sends
// workloads to one ClusterQueue. Plain struct.
#pragma once

#include <string>

#include "api/cluster_queue.h"
#include "api/object_meta.h"

namespace kuota::api {

struct LocalQueue {
  ObjectMeta metadata;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::kNone;
};

}  // namespace kuota::api
