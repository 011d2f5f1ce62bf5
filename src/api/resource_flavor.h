// ResourceFlavor (kueue.x-k8s.io/v1beta1): a kind of capacity (A100 nodes, spot
// nodes) described by node labels, taints and tolerations. Plain struct.
#pragma once

#include <string>
#include <vector>

#include "api/object_meta.h"
#include "api/pod_spec.h"

namespace kuota::api {

struct ResourceFlavor {
  ObjectMeta metadata;
  Labels node_labels;
  std::vector<Taint> node_taints;
  std::vector<Toleration> tolerations;
  std::string topology_name;
};

}  // namespace kuota::api
