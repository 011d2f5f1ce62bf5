// Namespace (v1): only its name and labels matter to Kuota, for a
// ClusterQueue's namespaceSelector. Plain struct.
#pragma once

#include "api/object_meta.h"

namespace kuota::api {

struct Namespace {
  ObjectMeta metadata;
};

}  // namespace kuota::api
