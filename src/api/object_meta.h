// ObjectMeta and the small shared pieces of Kubernetes objects (owner
// references, conditions, resource lists) used by every Kueue kind.
// Plain structs; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/quantity.h"
#include "base/time.h"

namespace kuota::api {

using Labels = std::map<std::string, std::string>;
// Resource name -> amount, ordered so output is deterministic.
using ResourceList = std::map<std::string, Quantity>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;  // empty for cluster-scoped kinds
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  Labels labels;
  Labels annotations;
  std::vector<std::string> finalizers;
  std::vector<OwnerReference> owner_references;
};

struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;
  int64_t observed_generation = 0;
};

// Returns the condition of `type`, or nullptr.
const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);
bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type);

}  // namespace kuota::api
