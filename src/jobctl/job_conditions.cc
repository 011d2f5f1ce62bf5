#include "jobctl/job_conditions.h"

#include <string>

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

Json NewCondition(std::string_view type, bool status, std::string_view reason,
                  std::string_view message, Time now) {
  const std::string t = FormatRfc3339(now);
  Json c = {{"type", std::string(type)},
            {"status", status ? "True" : "False"},
            {"lastProbeTime", t},
            {"lastTransitionTime", t}};
  if (!reason.empty()) c["reason"] = std::string(reason);
  if (!message.empty()) c["message"] = std::string(message);
  return c;
}

}  // namespace

const Json* FindCondition(const Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return nullptr;
  for (const Json& c : conditions) {
    if (!c.is_object()) continue;
    auto t = c.find("type");
    if (t != c.end() && t->is_string() && t->get<std::string>() == type) return &c;
  }
  return nullptr;
}

bool IsConditionTrue(const Json& conditions, std::string_view type) {
  const Json* c = FindCondition(conditions, type);
  return c != nullptr && c->value("status", Json()) == "True";
}

bool EnsureCondition(Json& conditions, std::string_view type, bool status, std::string_view reason,
                     std::string_view message, Time now) {
  if (!conditions.is_array()) conditions = Json::array();
  for (Json& c : conditions) {
    if (!c.is_object() || c.value("type", Json()) != std::string(type)) continue;
    const bool same = c.value("status", Json()) == (status ? "True" : "False") &&
                      c.value("reason", Json("")) == std::string(reason) &&
                      c.value("message", Json("")) == std::string(message);
    if (same) return false;
    c = NewCondition(type, status, reason, message, now);
    return true;
  }
  if (!status) return false;
  conditions.push_back(NewCondition(type, status, reason, message, now));
  return true;
}

}  // namespace kuota::jobctl
