#include "jobctl/submitter.h"

namespace kuota::jobctl {
namespace {

using Json = nlohmann::json;

constexpr const char* kBothAnnotations[] = {kSubmitterUidAnnotation, kSubmittedByAnnotation};

// metadata.annotations of `object`, or null when it has none (or they are
// not an object).
const Json* Annotations(const Json& object) {
  if (!object.is_object()) return nullptr;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  auto ann = meta->find("annotations");
  if (ann == meta->end() || !ann->is_object()) return nullptr;
  return &*ann;
}

// metadata.annotations of `object`, created (or replaced, when not an
// object) as needed.
Json& MutableAnnotations(Json& object) {
  Json& meta = object["metadata"];
  if (!meta.is_object()) meta = Json::object();
  Json& ann = meta["annotations"];
  if (!ann.is_object()) ann = Json::object();
  return ann;
}

Status InvalidUid(const std::string& shown) {
  return Status::Invalid(std::string("metadata.annotations[") + kSubmitterUidAnnotation +
                         "]: Invalid value: " + shown + ": must be a decimal user id (0 to " +
                         std::to_string(kMaxSubmitterUid) + ")");
}

}  // namespace

Result<uint32_t> ParseSubmitterUid(std::string_view text) {
  const std::string shown = Json(std::string(text)).dump();
  if (text.empty() || text.size() > 10 || (text.size() > 1 && text[0] == '0')) {
    return InvalidUid(shown);
  }
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return InvalidUid(shown);
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > kMaxSubmitterUid) return InvalidUid(shown);
  return static_cast<uint32_t>(v);
}

Result<std::optional<uint32_t>> SubmitterUid(const Json& object) {
  const Json* ann = Annotations(object);
  if (ann == nullptr) return std::optional<uint32_t>();
  auto it = ann->find(kSubmitterUidAnnotation);
  if (it == ann->end() || it->is_null()) return std::optional<uint32_t>();
  if (!it->is_string()) return InvalidUid(it->dump());
  KUOTA_ASSIGN_OR_RETURN(uint32_t uid, ParseSubmitterUid(it->get<std::string>()));
  return std::optional<uint32_t>(uid);
}

std::string SubmittedBy(const Json& object) {
  const Json* ann = Annotations(object);
  if (ann == nullptr) return "";
  auto it = ann->find(kSubmittedByAnnotation);
  return it != ann->end() && it->is_string() ? it->get<std::string>() : "";
}

Json SubmitterAnnotations(const Json& object) {
  Json out = Json::object();
  const Json* ann = Annotations(object);
  if (ann == nullptr) return out;
  for (const char* key : kBothAnnotations) {
    auto it = ann->find(key);
    if (it != ann->end() && it->is_string()) out[key] = *it;
  }
  return out;
}

void SetSubmitterAnnotations(Json& object, uint32_t uid, std::string_view user_name) {
  Json& ann = MutableAnnotations(object);
  ann[kSubmitterUidAnnotation] = std::to_string(uid);
  ann[kSubmittedByAnnotation] = std::string(user_name);
}

void CopySubmitterAnnotations(const Json& from, Json& to) {
  const Json wanted = SubmitterAnnotations(from);
  for (const char* key : kBothAnnotations) {
    auto it = wanted.find(key);
    if (it != wanted.end()) {
      MutableAnnotations(to)[key] = *it;
    } else if (const Json* ann = Annotations(to); ann != nullptr && ann->contains(key)) {
      MutableAnnotations(to).erase(key);
    }
  }
}

}  // namespace kuota::jobctl
