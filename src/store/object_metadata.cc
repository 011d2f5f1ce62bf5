#include "store/object_metadata.h"

#include <charconv>
#include <cstdio>

namespace kuota::store {

using Json = nlohmann::json;

Result<ObjectMetaFields> ReadMetaFields(const Json& object) {
  if (!object.is_object()) return Status::Invalid("object: must be a JSON object");
  ObjectMetaFields out;
  auto meta = object.find("metadata");
  if (meta == object.end()) return out;
  if (!meta->is_object()) return Status::Invalid("metadata: must be an object");
  auto read = [&](const char* key, std::string* field) -> Status {
    auto it = meta->find(key);
    if (it == meta->end() || it->is_null()) return Status::Ok();
    if (!it->is_string()) return Status::Invalid(std::string("metadata.") + key + ": must be a string");
    *field = it->get<std::string>();
    return Status::Ok();
  };
  KUOTA_RETURN_IF_ERROR(read("namespace", &out.ns));
  KUOTA_RETURN_IF_ERROR(read("name", &out.name));
  KUOTA_RETURN_IF_ERROR(read("generateName", &out.generate_name));
  KUOTA_RETURN_IF_ERROR(read("resourceVersion", &out.resource_version));
  KUOTA_RETURN_IF_ERROR(read("uid", &out.uid));
  auto fin = meta->find("finalizers");
  if (fin != meta->end() && !fin->is_null()) {
    if (!fin->is_array()) return Status::Invalid("metadata.finalizers: must be a list of strings");
    for (size_t i = 0; i < fin->size(); ++i) {
      if (!(*fin)[i].is_string()) {
        return Status::Invalid("metadata.finalizers[" + std::to_string(i) + "]: must be a string");
      }
    }
  }
  return out;
}

void DropNullMetaFields(Json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  for (const char* key : {"namespace", "name", "generateName", "resourceVersion", "uid",
                          "finalizers"}) {
    auto it = meta->find(key);
    if (it != meta->end() && it->is_null()) meta->erase(it);
  }
}

std::string NewUid(std::mt19937_64& rng) {
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;                      // version 4
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);  // variant 10xx
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0xffff), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string GenerateNameSuffix(std::mt19937_64& rng) {
  static constexpr std::string_view kChars = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> pick(0, kChars.size() - 1);
  std::string out;
  for (int i = 0; i < 5; ++i) out += kChars[pick(rng)];
  return out;
}

std::string MetadataTimestamp(Time t) {
  int64_t ms = t.unix_ms;
  int64_t secs = ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
  return FormatRfc3339(Time::FromSeconds(secs));
}

bool GenerationChanges(const Json& stored, const Json& next) {
  auto field = [](const Json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? Json() : *it;
  };
  if (stored.contains("spec") || next.contains("spec")) {
    return field(stored, "spec") != field(next, "spec");
  }
  auto rest = [](const Json& obj) {
    Json out = Json::object();
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      const std::string& k = it.key();
      if (k != "metadata" && k != "status" && k != "apiVersion" && k != "kind") out[k] = *it;
    }
    return out;
  };
  return rest(stored) != rest(next);
}

std::vector<std::string> Finalizers(const Json& object) {
  std::vector<std::string> out;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  auto fin = meta->find("finalizers");
  if (fin == meta->end() || !fin->is_array()) return out;
  for (const Json& f : *fin) {
    if (f.is_string()) out.push_back(f.get<std::string>());
  }
  return out;
}

Result<std::string> DumpObject(const Json& object) {
  try {
    return object.dump();
  } catch (const Json::exception& e) {
    return Status::Invalid(std::string("object: cannot be stored: ") + e.what());
  }
}

Result<int64_t> ParseResourceVersion(std::string_view text, std::string_view field) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < 0) {
    return Status::Invalid(std::string(field) + ": Invalid value: \"" + std::string(text) +
                           "\": must be a resourceVersion returned by the server");
  }
  return v;
}

namespace {
std::string Quoted(std::string_view resource, std::string_view name) {
  return std::string(resource) + " \"" + std::string(name) + "\"";
}
}  // namespace

Status AlreadyExistsError(std::string_view resource, std::string_view name) {
  return Status::AlreadyExists(Quoted(resource, name) + " already exists");
}

Status NotFoundError(std::string_view resource, std::string_view name) {
  return Status::NotFound(Quoted(resource, name) + " not found");
}

Status ModifiedConflictError(std::string_view resource, std::string_view name) {
  return Status::Conflict("Operation cannot be fulfilled on " + Quoted(resource, name) +
                          ": the object has been modified; please apply your changes to the "
                          "latest version and try again");
}

Status PreconditionConflictError(std::string_view resource, std::string_view name,
                                 std::string_view what, std::string_view wanted,
                                 std::string_view actual) {
  return Status::Conflict("Operation cannot be fulfilled on " + Quoted(resource, name) +
                          ": Precondition failed: " + std::string(what) + " in precondition: " +
                          std::string(wanted) + ", " + std::string(what) +
                          " in object meta: " + std::string(actual));
}

}  // namespace kuota::store
