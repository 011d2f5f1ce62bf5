#include "server/submitter_stamp.h"

#include <string>

#include "jobctl/submitter.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

const char* const kStamps[] = {jobctl::kSubmitterUidAnnotation, jobctl::kSubmittedByAnnotation};

Json* Annotations(Json& object, bool create) {
  if (!object.is_object()) return nullptr;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  auto it = meta->find("annotations");
  if (it == meta->end() || !it->is_object()) {
    if (!create) return nullptr;
    (*meta)["annotations"] = Json::object();
    return &(*meta)["annotations"];
  }
  return &*it;
}

}  // namespace

void StampSubmitter(const auth::UserInfo& user, Json& object) {
  if (Json* a = Annotations(object, false)) {
    for (const char* k : kStamps) a->erase(k);
    if (a->empty()) object["metadata"].erase("annotations");
  }
  if (user.uid < 0) return;
  Json* a = Annotations(object, true);
  if (a == nullptr) return;
  (*a)[jobctl::kSubmitterUidAnnotation] = std::to_string(user.uid);
  (*a)[jobctl::kSubmittedByAnnotation] = user.name;
}

void KeepSubmitter(const Json& current, Json& object) {
  Json stored = Json::object();
  if (const Json* a = Annotations(const_cast<Json&>(current), false)) {
    for (const char* k : kStamps) {
      auto it = a->find(k);
      if (it != a->end()) stored[k] = *it;
    }
  }
  if (Json* a = Annotations(object, false)) {
    for (const char* k : kStamps) a->erase(k);
    if (a->empty() && stored.empty()) object["metadata"].erase("annotations");
  }
  if (stored.empty()) return;
  Json* a = Annotations(object, true);
  if (a == nullptr) return;
  for (auto& [k, v] : stored.items()) (*a)[k] = v;
}

}  // namespace kuota::server
