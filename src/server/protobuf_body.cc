#include "server/protobuf_body.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "auth/base64.h"
#include "base/time.h"
#include "server/json_limits.h"
#include "server/protobuf_schema.h"

namespace kuota::server {
namespace {

using Json = nlohmann::json;

// Messages nest at most this deep (the tables' deepest path is far shorter);
// bounds the recursion whatever the input.
constexpr int kMaxMessageDepth = 64;

// One field of a protobuf message as read from the wire.
struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t varint = 0;     // wire types 0, 1, 5
  std::string_view bytes;  // wire type 2
};

// Reads the fields of a protobuf message in order.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  // Reads the next field; false at the end or on malformed input (see ok()).
  bool Next(WireField* f) {
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
  // Reads one varint of a packed list; false at the end or when malformed.
  bool NextVarint(uint64_t* out) {
    if (pos_ >= data_.size() || !ok_) return false;
    return Varint(out) || Fail();
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
  bool Fixed(size_t n, WireField* f) {
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

Status MalformedAt(const std::string& path) {
  return Status::Invalid("the protobuf body is malformed" +
                         (path.empty() ? std::string() : " at " + path));
}

// The wire type a value of `type` travels with (packed lists aside).
uint32_t WireTypeOf(ProtoType type) {
  switch (type) {
    case ProtoType::kBool:
    case ProtoType::kInt32:
    case ProtoType::kInt64:
      return 0;
    case ProtoType::kDouble:
      return 1;
    default:
      return 2;
  }
}

bool IsVarintType(ProtoType type) { return WireTypeOf(type) == 0; }

Json VarintValue(ProtoType type, uint64_t v) {
  switch (type) {
    case ProtoType::kBool:
      return v != 0;
    case ProtoType::kInt32:
      // int32 travels sign-extended to 64 bits.
      return static_cast<int32_t>(static_cast<uint32_t>(v));
    default:
      return static_cast<int64_t>(v);
  }
}

// meta/v1 Time and MicroTime {seconds = 1, nanos = 2}; null when zero (as
// Go writes a zero Time).
Result<Json> DecodeTimestamp(std::string_view bytes, bool micro, const std::string& path) {
  WireReader r(bytes);
  WireField f;
  int64_t seconds = 0, nanos = 0;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == 0) seconds = static_cast<int64_t>(f.varint);
    if (f.number == 2 && f.wire_type == 0) {
      nanos = static_cast<int32_t>(static_cast<uint32_t>(f.varint));
    }
  }
  if (!r.ok()) return MalformedAt(path);
  if (seconds == 0 && nanos == 0) return Json();
  // Far enough from the ends of int64 milliseconds for Time's arithmetic.
  constexpr int64_t kMaxSeconds = int64_t{1} << 40;
  if (seconds > kMaxSeconds || seconds < -kMaxSeconds || nanos < 0 || nanos > 999'999'999) {
    return Status::Invalid(path + ": the timestamp is out of range");
  }
  std::string text = FormatRfc3339(Time::FromSeconds(seconds));
  if (micro && !text.empty() && text.back() == 'Z') {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(nanos / 1000));
    text.insert(text.size() - 1, frac);
  }
  return Json(std::move(text));
}

class MessageDecoder {
 public:
  explicit MessageDecoder(const ProtoSchema& schema) : schema_(schema) {}

  // The JSON object of `bytes` read as `message`; `path` names it in errors.
  Result<Json> Message(std::string_view bytes, const ProtoMessage& message, const std::string& path,
                       int depth) {
    if (depth > kMaxMessageDepth) {
      return Status::Invalid(path + ": the protobuf body nests deeper than " +
                             std::to_string(kMaxMessageDepth) + " messages");
    }
    Json out = Json::object();
    WireReader r(bytes);
    WireField f;
    const std::span<const ProtoField> fields = schema_.FieldsOf(message);
    while (r.Next(&f)) {
      const ProtoField* field = nullptr;
      for (const ProtoField& candidate : fields) {
        if (candidate.number == f.number) {
          field = &candidate;
          break;
        }
      }
      if (field == nullptr) continue;  // a field this table does not know
      const bool inline_fields = (field->flags & kProtoInline) != 0;
      const std::string field_path =
          inline_fields ? path : (path.empty() ? "" : path + ".") + field->json_name;
      switch (field->label) {
        case ProtoLabel::kMap:
          KUOTA_RETURN_IF_ERROR(MapEntry(f, *field, field_path, depth, out[field->json_name]));
          break;
        case ProtoLabel::kRepeated:
          KUOTA_RETURN_IF_ERROR(Repeated(f, *field, field_path, depth, out[field->json_name]));
          break;
        case ProtoLabel::kSingle: {
          KUOTA_ASSIGN_OR_RETURN(Json value, Value(f, *field, field_path, depth));
          if (inline_fields) {
            if (value.is_object()) {
              for (auto& [k, v] : value.items()) out[k] = std::move(v);
            }
          } else if (value.is_null() || (!(field->flags & kProtoKeepZero) && IsZero(value))) {
            out.erase(field->json_name);  // as JSON leaves it out
          } else {
            out[field->json_name] = std::move(value);
          }
          break;
        }
      }
    }
    if (!r.ok()) return MalformedAt(path);
    return out;
  }

 private:
  static bool IsZero(const Json& v) {
    return (v.is_string() && v.get_ref<const std::string&>().empty()) ||
           (v.is_boolean() && !v.get<bool>()) || (v.is_number_integer() && v.get<int64_t>() == 0) ||
           (v.is_number_float() && v.get<double>() == 0);
  }

  // One value of `field` (an element of a list, or a map's value).
  Result<Json> Value(const WireField& f, const ProtoField& field, const std::string& path,
                     int depth) {
    if (f.wire_type != WireTypeOf(field.type)) {
      return Status::Invalid("the protobuf body is malformed at " + path + ": wire type " +
                             std::to_string(f.wire_type) + " for field " +
                             std::to_string(f.number));
    }
    return Payload(field, f.varint, f.bytes, path, depth);
  }

  Result<Json> Payload(const ProtoField& field, uint64_t varint, std::string_view bytes,
                       const std::string& path, int depth) {
    switch (field.type) {
      case ProtoType::kString:
        return Json(std::string(bytes));
      case ProtoType::kBytes:
        return Json(auth::Base64Encode(bytes));
      case ProtoType::kBool:
      case ProtoType::kInt32:
      case ProtoType::kInt64:
        return VarintValue(field.type, varint);
      case ProtoType::kDouble: {
        double d;
        static_assert(sizeof d == sizeof varint);
        std::memcpy(&d, &varint, sizeof d);
        if (d != d || d - d != 0) return Status::Invalid(path + ": not a finite number");
        return Json(d);
      }
      case ProtoType::kMessage:
        if (field.message < 0 || static_cast<size_t>(field.message) >= schema_.messages.size()) {
          return Status::Internal("protobuf schema: bad message index at " + path);
        }
        return Message(bytes, schema_.messages[static_cast<size_t>(field.message)], path,
                       depth + 1);
      case ProtoType::kTime:
      case ProtoType::kMicroTime:
        return DecodeTimestamp(bytes, field.type == ProtoType::kMicroTime, path);
      case ProtoType::kQuantity:
        return OneString(bytes, path);
      case ProtoType::kIntOrString:
        return IntOrString(bytes, path);
      case ProtoType::kRawJson:
        return RawJson(bytes, path);
      case ProtoType::kStringList:
        return StringList(bytes, path);
    }
    return Status::Internal("protobuf schema: unknown type at " + path);
  }

  Status Repeated(const WireField& f, const ProtoField& field, const std::string& path, int depth,
                  Json& list) {
    if (!list.is_array()) list = Json::array();
    if (f.wire_type == 2 && IsVarintType(field.type)) {
      // A packed list of numbers.
      WireReader r(f.bytes);
      uint64_t v;
      while (r.NextVarint(&v)) list.push_back(VarintValue(field.type, v));
      if (!r.ok()) return MalformedAt(path);
      return Status::Ok();
    }
    KUOTA_ASSIGN_OR_RETURN(Json value,
                           Value(f, field, path + "[" + std::to_string(list.size()) + "]", depth));
    list.push_back(std::move(value));
    return Status::Ok();
  }

  // A map entry {key = 1, value = 2}; keys are strings.
  Status MapEntry(const WireField& f, const ProtoField& field, const std::string& path, int depth,
                  Json& map) {
    if (f.wire_type != 2) return MalformedAt(path);
    if (!map.is_object()) map = Json::object();
    WireReader r(f.bytes);
    WireField e;
    std::string key;
    std::optional<WireField> value;
    while (r.Next(&e)) {
      if (e.number == 1 && e.wire_type == 2) key = std::string(e.bytes);
      if (e.number == 2) value = e;
    }
    if (!r.ok()) return MalformedAt(path);
    const std::string entry_path = path + "[" + key + "]";
    Json decoded;
    if (value) {
      KUOTA_ASSIGN_OR_RETURN(decoded, Value(*value, field, entry_path, depth));
    } else {
      KUOTA_ASSIGN_OR_RETURN(decoded, Payload(field, 0, std::string_view(), entry_path, depth));
    }
    map[key] = std::move(decoded);
    return Status::Ok();
  }

  // resource.Quantity {string = 1}.
  static Result<Json> OneString(std::string_view bytes, const std::string& path) {
    WireReader r(bytes);
    WireField f;
    std::string s;
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == 2) s = std::string(f.bytes);
    }
    if (!r.ok()) return MalformedAt(path);
    return Json(std::move(s));
  }

  // intstr.IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}.
  static Result<Json> IntOrString(std::string_view bytes, const std::string& path) {
    WireReader r(bytes);
    WireField f;
    int64_t type = 0;
    int32_t int_val = 0;
    std::string str_val;
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == 0) type = static_cast<int64_t>(f.varint);
      if (f.number == 2 && f.wire_type == 0) int_val = static_cast<int32_t>(f.varint);
      if (f.number == 3 && f.wire_type == 2) str_val = std::string(f.bytes);
    }
    if (!r.ok()) return MalformedAt(path);
    return type == 1 ? Json(std::move(str_val)) : Json(int_val);
  }

  // runtime.RawExtension and meta/v1 FieldsV1 {raw = 1}: JSON text.
  static Result<Json> RawJson(std::string_view bytes, const std::string& path) {
    WireReader r(bytes);
    WireField f;
    std::string_view raw;
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == 2) raw = f.bytes;
    }
    if (!r.ok()) return MalformedAt(path);
    if (raw.empty()) return Json();
    if (std::optional<std::string> deep = CheckJsonTextDepth(raw)) {
      return Status::Invalid(path + ": " + *deep);
    }
    Json parsed = Json::parse(raw, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Status::Invalid(path + ": the raw object is not JSON");
    return parsed;
  }

  // A Go []string type's message {repeated items = 1}.
  static Result<Json> StringList(std::string_view bytes, const std::string& path) {
    WireReader r(bytes);
    WireField f;
    Json items = Json::array();
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == 2) items.push_back(std::string(f.bytes));
    }
    if (!r.ok()) return MalformedAt(path);
    return items;
  }

  const ProtoSchema& schema_;
};

std::string_view GroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

// Decodes the envelope of `body` and its object as `kind` of the table's
// `group`; the envelope must name `want_api_version` unless it is empty.
Result<Json> DecodeEnvelope(std::string_view body, std::string_view group, std::string_view kind,
                            std::string_view want_api_version) {
  const ProtoSchema& schema = KubernetesProtoSchema();
  const ProtoMessage* message = schema.FindKind(group, kind);
  if (message == nullptr) {
    return Status::Unsupported("protobuf bodies are not accepted for " +
                               std::string(want_api_version.empty() ? group : want_api_version) +
                               " " + std::string(kind));
  }
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) {
    return Status::Invalid("the protobuf body lacks the k8s envelope prefix");
  }
  WireReader envelope(body.substr(4));
  WireField f;
  std::string api_version, got_kind;
  std::string_view raw;
  while (envelope.Next(&f)) {
    if (f.wire_type != 2) continue;
    if (f.number == 1) {  // TypeMeta {apiVersion = 1, kind = 2}
      WireReader type_meta(f.bytes);
      WireField t;
      while (type_meta.Next(&t)) {
        if (t.wire_type != 2) continue;
        if (t.number == 1) api_version = std::string(t.bytes);
        if (t.number == 2) got_kind = std::string(t.bytes);
      }
      if (!type_meta.ok()) return MalformedAt("");
    } else if (f.number == 2) {
      raw = f.bytes;
    }
  }
  if (!envelope.ok()) return MalformedAt("");
  if ((!want_api_version.empty() && !api_version.empty() && api_version != want_api_version) ||
      (!got_kind.empty() && got_kind != kind)) {
    return Status::Invalid("the protobuf body holds " + api_version + " " + got_kind + ", not " +
                           std::string(want_api_version) + " " + std::string(kind));
  }
  MessageDecoder decoder(schema);
  KUOTA_ASSIGN_OR_RETURN(Json out, decoder.Message(raw, *message, "", 0));
  // Strings must be valid UTF-8 before they reach JSON output.
  try {
    (void)out.dump();
  } catch (const Json::exception&) {
    return Status::Invalid("the protobuf body holds a string that is not valid UTF-8");
  }
  return out;
}

}  // namespace

bool DecodesProtobuf(const ResourceInfo& resource) {
  return KubernetesProtoSchema().FindKind(resource.group, resource.kind) != nullptr;
}

Result<Json> DecodeProtobufObject(std::string_view body, const ResourceInfo& resource) {
  if (!DecodesProtobuf(resource)) {
    return Status::Unsupported("protobuf bodies are not accepted for " + resource.StoreKey());
  }
  return DecodeProtobufKind(body, resource.ApiVersion(), resource.kind);
}

Result<Json> DecodeProtobufKind(std::string_view body, std::string_view want_api_version,
                                std::string_view want_kind) {
  KUOTA_ASSIGN_OR_RETURN(
      Json out, DecodeEnvelope(body, GroupOf(want_api_version), want_kind, want_api_version));
  out["apiVersion"] = std::string(want_api_version);
  out["kind"] = std::string(want_kind);
  return out;
}

Result<Json> DecodeProtobufDeleteOptions(std::string_view body) {
  KUOTA_ASSIGN_OR_RETURN(Json out, DecodeEnvelope(body, "meta.k8s.io", "DeleteOptions", ""));
  out["kind"] = "DeleteOptions";
  return out;
}

}  // namespace kuota::server
