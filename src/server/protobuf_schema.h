// ProtobufSchema: the protobuf form of the built-in kinds kuotad decodes from
// protobuf bodies (server/protobuf_body) — for each message its fields'
// numbers, JSON names and types — as a table generated from Kubernetes' own
// definitions by scripts/gen_protobuf_schema.py (protobuf_schema_data.cc).
// Immutable; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace kuota::server {

// How a field's value is read and written as JSON.
enum class ProtoType : uint8_t {
  kString,
  kBytes,  // base64 in JSON
  kBool,
  kInt32,
  kInt64,
  kDouble,
  kMessage,      // ProtoField::message
  kTime,         // meta/v1 Time {seconds, nanos}: RFC 3339
  kMicroTime,    // meta/v1 MicroTime: RFC 3339 with microseconds
  kQuantity,     // resource.Quantity {string}
  kIntOrString,  // intstr.IntOrString {type, intVal, strVal}
  kRawJson,      // runtime.RawExtension, meta/v1 FieldsV1 {raw JSON bytes}
  kStringList,   // a Go []string type with a message of its own {repeated items}
};

enum class ProtoLabel : uint8_t { kSingle, kRepeated, kMap /* string keys */ };

// ProtoField::flags.
inline constexpr uint8_t kProtoKeepZero = 1;  // a zero value is sent (pointer, no omitempty)
inline constexpr uint8_t kProtoInline = 2;    // its fields are the parent's (json:",inline")

struct ProtoField {
  uint32_t number;
  const char* json_name;  // "" when inlined
  ProtoType type;         // a map's value type
  ProtoLabel label;
  int16_t message;  // index in ProtoSchema::messages for kMessage; -1 otherwise
  uint8_t flags;
};

struct ProtoMessage {
  const char* name;  // "k8s.io.api.core.v1.Pod"
  uint16_t first_field;
  uint16_t field_count;
};

// A kind whose objects are this message.
struct ProtoKind {
  const char* group;  // "" for core, "meta.k8s.io" for DeleteOptions
  const char* kind;
  uint16_t message;
};

struct ProtoSchema {
  std::span<const ProtoField> fields;
  std::span<const ProtoMessage> messages;
  std::span<const ProtoKind> kinds;

  std::span<const ProtoField> FieldsOf(const ProtoMessage& m) const {
    return fields.subspan(m.first_field, m.field_count);
  }
  // The message of `kind` in `group`; nullptr when it is not in the table.
  const ProtoMessage* FindKind(std::string_view group, std::string_view kind) const {
    for (const ProtoKind& k : kinds) {
      if (group == k.group && kind == k.kind) return &messages[k.message];
    }
    return nullptr;
  }
};

// The table (protobuf_schema_data.cc).
const ProtoSchema& KubernetesProtoSchema();

}  // namespace kuota::server
