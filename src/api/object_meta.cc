#include "api/object_meta.h"

namespace kuota::api {

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type) {
  const Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status == "True";
}

}  // namespace kuota::api
