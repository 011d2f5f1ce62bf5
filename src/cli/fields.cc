#include "cli/fields.h"

namespace kuota::cli {

using Json = nlohmann::json;

const Json* Field(const Json& object, std::initializer_list<const char*> path) {
  const Json* cur = &object;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Text(const Json& object, std::initializer_list<const char*> path,
                 const std::string& fallback) {
  const Json* v = Field(object, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

int64_t Int(const Json& object, std::initializer_list<const char*> path, int64_t fallback) {
  const Json* v = Field(object, path);
  return v != nullptr && v->is_number() ? v->get<int64_t>() : fallback;
}

const Json* Condition(const Json& object, const std::string& type) {
  const Json* conditions = Field(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const Json& c : *conditions) {
    if (Text(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

bool ConditionTrue(const Json& object, const std::string& type) {
  const Json* c = Condition(object, type);
  return c != nullptr && Text(*c, {"status"}) == "True";
}

}  // namespace kuota::cli
