// Node (v1) and Pod (v1), as far as topology-aware scheduling reads them: a
// node's labels, taints, schedulability, readiness and allocatable; a pod
// that runs outside Kueue's quota (nodeName, requests, phase) and so uses
// part of its node. Plain structs.
#pragma once

#include <string>
#include <vector>

#include "api/object_meta.h"
#include "api/pod_spec.h"

namespace kuota::api {

struct Node {
  ObjectMeta metadata;
  std::vector<Taint> taints;        // spec.taints
  bool unschedulable = false;       // spec.unschedulable
  ResourceList allocatable;         // status.allocatable (cpu, memory, pods, ...)
  bool ready = true;                // false when a Ready condition says False
};

// A pod bound to a node and using its capacity, not counted in any quota.
struct Pod {
  ObjectMeta metadata;
  std::string node_name;  // spec.nodeName
  PodSpec spec;           // requests are read from its containers
  std::string phase;      // Pending, Running, Succeeded, Failed (terminal: no usage)
};

}  // namespace kuota::api
