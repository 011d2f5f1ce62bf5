// Topology (kueue.x-k8s.io/v1beta1 and v1beta2): the levels of a data centre
// (block, rack, host), each named by the node label that carries it, highest
// first. A ResourceFlavor's spec.topologyName refers to one. Plain struct.
#pragma once

#include <string>
#include <vector>

#include "api/object_meta.h"

namespace kuota::api {

struct Topology {
  ObjectMeta metadata;
  std::vector<std::string> levels;  // spec.levels[].nodeLabel, highest first
};

inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

}  // namespace kuota::api
