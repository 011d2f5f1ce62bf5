// ResourceGroup: the quota table shared by ClusterQueue and Cohort specs:
// covered resources, and per flavor the nominal quota, borrowing and lending
// limits of each resource. Plain structs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/quantity.h"

namespace kuota::api {

struct ResourceQuota {
  std::string name;
  Quantity nominal_quota;
  std::optional<Quantity> borrowing_limit;
  std::optional<Quantity> lending_limit;
};

struct FlavorQuotas {
  std::string name;  // a ResourceFlavor name
  std::vector<ResourceQuota> resources;
};

struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;
};

struct FairSharing {
  // Weight as a ratio; Kueue's default is 1. Zero means "never borrow ahead".
  double weight = 1.0;
  bool weight_set = false;
};

}  // namespace kuota::api
