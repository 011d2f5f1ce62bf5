#include "server/json_fields.h"

#include <vector>

namespace kuota::server {

using Json = nlohmann::json;

const Json* FindField(const Json& object, std::initializer_list<const char*> path) {
  const Json* cur = &object;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

const Json& FieldValue(const Json& object, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* v = FindField(object, path);
  return v != nullptr ? *v : kNull;
}

std::string StringField(const Json& object, std::initializer_list<const char*> path,
                        const std::string& fallback) {
  const Json* v = FindField(object, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

int64_t IntField(const Json& object, std::initializer_list<const char*> path, int64_t fallback) {
  const Json* v = FindField(object, path);
  if (v == nullptr || !v->is_number()) return fallback;
  if (v->is_number_float()) return static_cast<int64_t>(v->get<double>());
  return v->get<int64_t>();
}

const Json* FindCondition(const Json& object, std::initializer_list<const char*> path,
                          const std::string& type) {
  const Json* list = FindField(object, path);
  if (list == nullptr || !list->is_array()) return nullptr;
  for (const Json& c : *list) {
    if (StringField(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

bool ConditionIsTrue(const Json& object, const std::string& type) {
  const Json* c = FindCondition(object, {"status", "conditions"}, type);
  return c != nullptr && StringField(*c, {"status"}) == "True";
}

void PruneNullMembers(nlohmann::json& object) {
  std::vector<nlohmann::json*> stack{&object};
  while (!stack.empty()) {
    nlohmann::json* v = stack.back();
    stack.pop_back();
    if (v->is_object()) {
      for (auto it = v->begin(); it != v->end();) {
        if (it->is_null()) {
          it = v->erase(it);
        } else {
          if (it->is_structured()) stack.push_back(&*it);
          ++it;
        }
      }
    } else if (v->is_array()) {
      for (auto& item : *v) {
        if (item.is_structured()) stack.push_back(&item);
      }
    }
  }
}

}  // namespace kuota::server
