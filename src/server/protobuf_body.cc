#include "server/protobuf_body.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// One field of a protobuf message as read from the wire.
struct Field {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;     // wire types 0, 1, 5
  std::string_view bytes;  // wire type 2
};

// Reads the fields of a protobuf message in order.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  // Reads the next field; false at the end or on malformed input (see ok()).
  bool Next(Field* f) {
    if (pos_ >= data_.size() || !ok_) return false;
    uint64_t key;
    if (!Varint(&key)) return Fail();
    f->number = static_cast<uint32_t>(key >> 3);
    f->wire_type = static_cast<uint32_t>(key & 7);
    switch (f->wire_type) {
      case 0:
        return Varint(&f->varint) || Fail();
      case 1:
        return Fixed(8, f) || Fail();
      case 5:
        return Fixed(4, f) || Fail();
      case 2: {
        uint64_t len;
        if (!Varint(&len) || len > data_.size() - pos_) return Fail();
        f->bytes = data_.substr(pos_, static_cast<size_t>(len));
        pos_ += static_cast<size_t>(len);
        return true;
      }
      default:
        return Fail();
    }
  }
  bool ok() const { return ok_; }

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }
  bool Varint(uint64_t* out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;
  }
  bool Fixed(size_t n, Field* f) {
    if (data_.size() - pos_ < n) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    pos_ += n;
    f->varint = v;
    return true;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

Status Malformed() { return Status::Invalid("the protobuf body is malformed"); }

// metav1.Time {seconds = 1, nanos = 2} as RFC 3339.
Result<std::string> DecodeTime(std::string_view bytes) {
  Reader r(bytes);
  Field f;
  int64_t seconds = 0;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == 0) seconds = static_cast<int64_t>(f.varint);
  }
  if (!r.ok()) return Malformed();
  return FormatRfc3339(Time::FromSeconds(seconds));
}

// map<string, string> entries {key = 1, value = 2}.
Status DecodeMapEntry(std::string_view bytes, Json& map) {
  Reader r(bytes);
  Field f;
  std::string key, value;
  while (r.Next(&f)) {
    if (f.wire_type != 2) continue;
    if (f.number == 1) key = std::string(f.bytes);
    if (f.number == 2) value = std::string(f.bytes);
  }
  if (!r.ok()) return Malformed();
  map[key] = value;
  return Status::Ok();
}

Result<Json> DecodeObjectMeta(std::string_view bytes) {
  Json meta = Json::object();
  Reader r(bytes);
  Field f;
  static const char* kStrings[] = {nullptr,    "name", "generateName",   "namespace",
                                   "selfLink", "uid",  "resourceVersion"};
  while (r.Next(&f)) {
    if (f.number >= 1 && f.number <= 6 && f.wire_type == 2) {
      meta[kStrings[f.number]] = std::string(f.bytes);
    } else if (f.number == 7 && f.wire_type == 0) {
      meta["generation"] = static_cast<int64_t>(f.varint);
    } else if ((f.number == 8 || f.number == 9) && f.wire_type == 2) {
      KUOTA_ASSIGN_OR_RETURN(meta[f.number == 8 ? "creationTimestamp" : "deletionTimestamp"],
                             DecodeTime(f.bytes));
    } else if ((f.number == 11 || f.number == 12) && f.wire_type == 2) {
      Json& map = meta[f.number == 11 ? "labels" : "annotations"];
      if (map.is_null()) map = Json::object();
      KUOTA_RETURN_IF_ERROR(DecodeMapEntry(f.bytes, map));
    } else if (f.number == 14 && f.wire_type == 2) {
      meta["finalizers"].push_back(std::string(f.bytes));
    }
  }
  if (!r.ok()) return Malformed();
  return meta;
}

// A message whose fields are all strings or repeated strings.
Result<Json> DecodeStrings(std::string_view bytes,
                           const std::vector<std::pair<uint32_t, const char*>>& strings,
                           const std::vector<std::pair<uint32_t, const char*>>& lists) {
  Json out = Json::object();
  Reader r(bytes);
  Field f;
  while (r.Next(&f)) {
    if (f.wire_type != 2) continue;
    for (const auto& [n, name] : strings) {
      if (n == f.number) out[name] = std::string(f.bytes);
    }
    for (const auto& [n, name] : lists) {
      if (n == f.number) out[name].push_back(std::string(f.bytes));
    }
  }
  if (!r.ok()) return Malformed();
  return out;
}

// A message whose fields at `parts`' numbers are messages, each decoded by
// its part (a list when `repeated`); other fields are skipped.
struct Part {
  uint32_t number;
  const char* name;
  bool repeated;
  Result<Json> (*decode)(std::string_view);
};

Result<Json> DecodeMessage(std::string_view raw, std::initializer_list<Part> parts) {
  Json out = Json::object();
  Reader r(raw);
  Field f;
  while (r.Next(&f)) {
    if (f.wire_type != 2) continue;
    for (const Part& part : parts) {
      if (part.number != f.number) continue;
      KUOTA_ASSIGN_OR_RETURN(Json value, part.decode(f.bytes));
      if (part.repeated) {
        out[part.name].push_back(std::move(value));
      } else {
        out[part.name] = std::move(value);
      }
    }
  }
  if (!r.ok()) return Malformed();
  return out;
}

constexpr Part kMetadata{1, "metadata", false, DecodeObjectMeta};

// v1 Namespace.
Result<Json> DecodeNamespaceSpec(std::string_view b) {
  return DecodeStrings(b, {}, {{1, "finalizers"}});
}
Result<Json> DecodeNamespaceStatus(std::string_view b) {
  return DecodeStrings(b, {{1, "phase"}}, {});
}
Result<Json> DecodeNamespace(std::string_view raw) {
  return DecodeMessage(raw, {kMetadata,
                             {2, "spec", false, DecodeNamespaceSpec},
                             {3, "status", false, DecodeNamespaceStatus}});
}

// scheduling.k8s.io/v1 PriorityClass: scalars beside the metadata.
Result<Json> DecodePriorityClass(std::string_view raw) {
  Json pc = Json::object();
  Reader r(raw);
  Field f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == 2) {
      KUOTA_ASSIGN_OR_RETURN(pc["metadata"], DecodeObjectMeta(f.bytes));
    } else if (f.number == 2 && f.wire_type == 0) {
      pc["value"] = static_cast<int32_t>(static_cast<uint32_t>(f.varint));
    } else if (f.number == 3 && f.wire_type == 0) {
      pc["globalDefault"] = f.varint != 0;
    } else if (f.number == 4 && f.wire_type == 2) {
      pc["description"] = std::string(f.bytes);
    } else if (f.number == 5 && f.wire_type == 2) {
      pc["preemptionPolicy"] = std::string(f.bytes);
    }
  }
  if (!r.ok()) return Malformed();
  return pc;
}

// rbac.authorization.k8s.io/v1 PolicyRule, Subject, RoleRef, and the kinds.
Result<Json> DecodePolicyRule(std::string_view b) {
  return DecodeStrings(b, {},
                       {{1, "verbs"},
                        {2, "apiGroups"},
                        {3, "resources"},
                        {4, "resourceNames"},
                        {5, "nonResourceURLs"}});
}
Result<Json> DecodeSubject(std::string_view b) {
  return DecodeStrings(b, {{1, "kind"}, {2, "apiGroup"}, {3, "name"}, {4, "namespace"}}, {});
}
Result<Json> DecodeRoleRef(std::string_view b) {
  return DecodeStrings(b, {{1, "apiGroup"}, {2, "kind"}, {3, "name"}}, {});
}
Result<Json> DecodeRole(std::string_view raw) {
  return DecodeMessage(raw, {kMetadata, {2, "rules", true, DecodePolicyRule}});
}
Result<Json> DecodeRoleBinding(std::string_view raw) {
  return DecodeMessage(
      raw, {kMetadata, {2, "subjects", true, DecodeSubject}, {3, "roleRef", false, DecodeRoleRef}});
}

// authorization.k8s.io/v1 and authentication.k8s.io/v1 self reviews.
Result<Json> DecodeResourceAttributes(std::string_view b) {
  return DecodeStrings(b,
                       {{1, "namespace"},
                        {2, "verb"},
                        {3, "group"},
                        {4, "version"},
                        {5, "resource"},
                        {6, "subresource"},
                        {7, "name"}},
                       {});
}
Result<Json> DecodeNonResourceAttributes(std::string_view b) {
  return DecodeStrings(b, {{1, "path"}, {2, "verb"}}, {});
}
Result<Json> DecodeAccessReviewSpec(std::string_view b) {
  return DecodeMessage(b, {{1, "resourceAttributes", false, DecodeResourceAttributes},
                           {2, "nonResourceAttributes", false, DecodeNonResourceAttributes}});
}
Result<Json> DecodeAccessReview(std::string_view raw) {
  return DecodeMessage(raw, {kMetadata, {2, "spec", false, DecodeAccessReviewSpec}});
}
Result<Json> DecodeRulesReviewSpec(std::string_view b) {
  return DecodeStrings(b, {{1, "namespace"}}, {});
}
Result<Json> DecodeRulesReview(std::string_view raw) {
  return DecodeMessage(raw, {kMetadata, {2, "spec", false, DecodeRulesReviewSpec}});
}
Result<Json> DecodeSelfReview(std::string_view raw) { return DecodeMessage(raw, {kMetadata}); }

// Every kind a protobuf body may hold, by API group and kind.
struct KindDecoder {
  std::string_view group;
  std::string_view kind;
  Result<Json> (*decode)(std::string_view);
};
constexpr KindDecoder kKinds[] = {
    {"", "Namespace", DecodeNamespace},
    {"scheduling.k8s.io", "PriorityClass", DecodePriorityClass},
    {"rbac.authorization.k8s.io", "Role", DecodeRole},
    {"rbac.authorization.k8s.io", "ClusterRole", DecodeRole},
    {"rbac.authorization.k8s.io", "RoleBinding", DecodeRoleBinding},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", DecodeRoleBinding},
    {"authorization.k8s.io", "SelfSubjectAccessReview", DecodeAccessReview},
    {"authorization.k8s.io", "SelfSubjectRulesReview", DecodeRulesReview},
    {"authentication.k8s.io", "SelfSubjectReview", DecodeSelfReview},
};

const KindDecoder* FindKind(std::string_view group, std::string_view kind) {
  for (const KindDecoder& k : kKinds) {
    if (k.group == group && k.kind == kind) return &k;
  }
  return nullptr;
}

std::string_view GroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

bool DecodesProtobuf(const ResourceInfo& resource) {
  return FindKind(resource.group, resource.kind) != nullptr;
}

Result<Json> DecodeProtobufObject(std::string_view body, const ResourceInfo& resource) {
  if (!DecodesProtobuf(resource)) {
    return Status::Unsupported("protobuf bodies are not accepted for " + resource.StoreKey());
  }
  return DecodeProtobufKind(body, resource.ApiVersion(), resource.kind);
}

Result<Json> DecodeProtobufKind(std::string_view body, std::string_view want_api_version,
                                std::string_view want_kind) {
  const KindDecoder* decoder = FindKind(GroupOf(want_api_version), want_kind);
  if (decoder == nullptr) {
    return Status::Unsupported("protobuf bodies are not accepted for " +
                               std::string(want_api_version) + " " + std::string(want_kind));
  }
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) {
    return Status::Invalid("the protobuf body lacks the k8s envelope prefix");
  }
  Reader envelope(body.substr(4));
  Field f;
  std::string api_version, kind;
  std::string_view raw;
  while (envelope.Next(&f)) {
    if (f.wire_type != 2) continue;
    if (f.number == 1) {
      KUOTA_ASSIGN_OR_RETURN(Json type_meta,
                             DecodeStrings(f.bytes, {{1, "apiVersion"}, {2, "kind"}}, {}));
      api_version = type_meta.value("apiVersion", "");
      kind = type_meta.value("kind", "");
    } else if (f.number == 2) {
      raw = f.bytes;
    }
  }
  if (!envelope.ok()) return Malformed();
  if ((!api_version.empty() && api_version != want_api_version) ||
      (!kind.empty() && kind != want_kind)) {
    return Status::Invalid("the protobuf body holds " + api_version + " " + kind + ", not " +
                           std::string(want_api_version) + " " + std::string(want_kind));
  }
  Result<Json> object = decoder->decode(raw);
  if (!object.ok()) return object.status();
  Json out = std::move(object).value();
  out["apiVersion"] = std::string(want_api_version);
  out["kind"] = std::string(want_kind);
  // Strings must be valid UTF-8 before they reach JSON output.
  try {
    (void)out.dump();
  } catch (const Json::exception&) {
    return Status::Invalid("the protobuf body holds a string that is not valid UTF-8");
  }
  return out;
}

}  // namespace kuota::server
