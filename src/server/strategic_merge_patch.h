// StrategicMergePatch: Kubernetes' strategic merge patch for the built-in
// kinds, as kubectl sends it on `apply`: lists with a merge key (containers by
// name, env by name, ...) merge element-wise, others are replaced; $patch,
// $retainKeys, $setElementOrder and $deleteFromPrimitiveList follow
// k8s.io/apimachinery/pkg/util/strategicpatch. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::server {

// How a list field merges: its merge key ("" for lists that are replaced),
// or a merged list of scalars (metadata.finalizers).
struct ListPatchStrategy {
  std::string merge_key;
  bool merge_scalars = false;
  bool merges() const { return !merge_key.empty() || merge_scalars; }
};

// The strategy of list field `field` inside the object at `parent_path` (the
// map keys from the root, list positions left out), for Pod, Job, Node,
// Namespace and Event: the patchStrategy/patchMergeKey tags of their Go types.
ListPatchStrategy LookupListPatchStrategy(const std::vector<std::string>& parent_path,
                                          const std::string& field);

// Applies `patch` to `original` (both JSON objects). Invalid when the patch is
// malformed: not an object, an unknown $patch directive, a list element
// without its merge key, a $setElementOrder that is not a list.
Result<nlohmann::json> StrategicMergePatch(const nlohmann::json& original,
                                           const nlohmann::json& patch);

}  // namespace kuota::server
