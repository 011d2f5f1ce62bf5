// Cohort (kueue.x-k8s.io/v1beta1, and the older v1alpha1 form): a node of the
// cohort tree that ClusterQueues borrow through; it may hold quota of its own
// and have a parent. Cohorts named by a ClusterQueue but never declared exist
// implicitly with no quota. Plain struct.
#pragma once

#include <string>
#include <vector>

#include "api/object_meta.h"
#include "api/resource_group.h"

namespace kuota::api {

struct Cohort {
  ObjectMeta metadata;
  std::string parent_name;  // v1beta1 spec.parentName; v1alpha1 spec.parent
  std::vector<ResourceGroup> resource_groups;
  FairSharing fair_sharing;
};

}  // namespace kuota::api
