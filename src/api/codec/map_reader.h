// MapReader: strict, typed reading of one YAML mapping into a plain struct, as
// Kubernetes' strict decoder reads JSON into Go structs: each accessor checks
// a field's type and marks it known; Finish() reports unknown fields. Absent
// and null fields are unset; duplicate keys are errors. Not thread-safe.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/codec/decode_context.h"
#include "api/codec/yaml_tree.h"
#include "api/object_meta.h"
#include "api/quantity.h"
#include "base/result.h"
#include "base/time.h"

namespace kuota::codec {

std::string ChildPath(std::string_view path, std::string_view key);  // "a.b"
std::string IndexPath(std::string_view path, size_t i);              // "a[0]"
std::string KeyPath(std::string_view path, std::string_view key);    // "a[key]"

// Scalar readers for one node at `path`. The node must not be null (callers
// skip nulls). Errors name the path and the offending value.
Status ReadString(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                  std::string& out);
Status ReadBool(DecodeContext& ctx, const YamlNode& node, const std::string& path, bool& out);
Status ReadInt(DecodeContext& ctx, const YamlNode& node, const std::string& path, int64_t min,
               int64_t max, int64_t& out);
Status ReadQuantity(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                    api::Quantity& out);

template <typename E>
struct EnumName {
  std::string_view name;
  E value;
};
// A table of them (E is not deduced from it).
template <typename E>
using EnumNames = std::span<const EnumName<std::type_identity_t<E>>>;

class MapReader {
 public:
  // `node` must be a map (a null node reads as an empty one); otherwise, or
  // with duplicate or non-string keys, status() is the error.
  MapReader(DecodeContext& ctx, const YamlNode& node, std::string path);

  const Status& status() const { return status_; }
  DecodeContext& ctx() const { return ctx_; }
  const std::string& path() const { return path_; }
  const YamlNode& node() const { return node_; }
  std::string PathOf(std::string_view key) const { return ChildPath(path_, key); }

  // The value of `key` (marking it known) after charging the visit, or
  // nullptr when absent or null, or when status() is an error.
  const YamlNode* Get(std::string_view key);
  // Whether `key` is present with a non-null value; does not mark it known.
  bool Has(std::string_view key) const;

  Status String(std::string_view key, std::string& out);
  Status Bool(std::string_view key, bool& out);
  Status OptBool(std::string_view key, std::optional<bool>& out);
  Status Int32(std::string_view key, int32_t& out);
  Status OptInt32(std::string_view key, std::optional<int32_t>& out);
  Status OptInt64(std::string_view key, std::optional<int64_t>& out);
  Status Int64(std::string_view key, int64_t& out);
  Status Quantity(std::string_view key, api::Quantity& out);
  Status OptQuantity(std::string_view key, std::optional<api::Quantity>& out);
  // An RFC 3339 timestamp.
  Status Time(std::string_view key, std::optional<kuota::Time>& out);
  // A Go duration string such as "5m" or "1h30m".
  Status Duration(std::string_view key, kuota::Duration& out);
  Status OptDuration(std::string_view key, std::optional<kuota::Duration>& out);
  Status StringList(std::string_view key, std::vector<std::string>& out);
  // map[string]string, e.g. labels. Null values read as "".
  Status StringMap(std::string_view key, api::Labels& out);
  // map[resource name]quantity, e.g. resources.requests.
  Status ResourceList(std::string_view key, api::ResourceList& out);

  // One of `names` (a list, or a shared table such as policy_names.h's).
  template <typename E>
  Status Enum(std::string_view key, E& out, EnumNames<E> names);
  template <typename E>
  Status Enum(std::string_view key, E& out, std::initializer_list<EnumName<E>> names) {
    return Enum(key, out, EnumNames<E>(names.begin(), names.size()));
  }
  template <typename E>
  Status EnumList(std::string_view key, std::vector<E>& out,
                  std::initializer_list<EnumName<E>> names);

  // A nested object, decoded by `decode(MapReader&, T&)`, then checked for
  // unknown fields.
  template <typename T, typename F>
  Status Object(std::string_view key, T& out, F&& decode);
  // As Object, but sets `out` only when the key is present (`{}` included).
  template <typename T, typename F>
  Status OptObject(std::string_view key, std::optional<T>& out, F&& decode);
  // A list of objects; each element starts as T{} (its defaults).
  template <typename T, typename F>
  Status ObjectList(std::string_view key, std::vector<T>& out, F&& decode);

  // Marks `key` as required: unless it is present and not null, Finish()
  // reports `path.key: Required value` (after any unknown field).
  Status Require(std::string_view key);
  // The same for each of `keys`, in order.
  Status Require(std::initializer_list<std::string_view> keys);
  // Real fields that are accepted and deliberately not decoded.
  void Ignore(std::initializer_list<std::string_view> keys);
  // A field of another API version that this one lacks (e.g. v1beta1's
  // spec.cohort in a v1beta2 ClusterQueue): when present, even null, fails
  // with `path.key: unknown field: <hint>` at the key's line.
  Status Removed(std::string_view key, std::string_view hint);
  // The first key (in document order) that no accessor, Require or Ignore
  // named: `path.key: unknown field`; then the first missing required key.
  Status Finish();

 private:
  struct Entry {
    std::string_view key;
    const YamlNode* value;
    bool known = false;
  };
  Entry* Find(std::string_view key);
  const Entry* Find(std::string_view key) const;
  Status EnumError(const YamlNode& node, const std::string& path,
                   const std::vector<std::string_view>& names);
  // The value `node` (at `path`) names in `names`, else EnumError.
  template <typename E>
  Status ReadEnum(const YamlNode& node, const std::string& path, EnumNames<E> names, E& out);

  DecodeContext& ctx_;
  const YamlNode& node_;
  std::string path_;
  std::vector<Entry> entries_;
  std::string missing_;  // the first required key found missing
  Status status_;
};

// Decodes `node` (a map) at `path` into `out` with `decode(MapReader&, T&)`,
// then reports unknown fields. Bounded by DecodeContext::kMaxDepth.
template <typename T, typename F>
Status ReadObject(DecodeContext& ctx, const YamlNode& node, const std::string& path, T& out,
                  F&& decode) {
  KUOTA_RETURN_IF_ERROR(ctx.Enter(node, path));
  MapReader r(ctx, node, path);
  Status st = r.status();
  if (st.ok()) st = decode(r, out);
  if (st.ok()) st = r.Finish();
  ctx.Leave();
  return st;
}

// Calls visit(item, item_path, index) for each element of a list at `path`.
// Null elements are errors: Kuota's lists hold objects or strings.
template <typename F>
Status ForEachItem(DecodeContext& ctx, const YamlNode& node, const std::string& path, F&& visit) {
  if (!node.is_sequence()) {
    return ctx.Fail(node, path, "expected a list, got " + node.Describe());
  }
  for (size_t i = 0; i < node.size(); ++i) {
    const YamlNode& item = node.item(i);
    std::string item_path = IndexPath(path, i);
    KUOTA_RETURN_IF_ERROR(ctx.Visit(item, item_path));
    if (item.is_null()) return ctx.Fail(item, item_path, "null is not allowed in this list");
    KUOTA_RETURN_IF_ERROR(visit(item, item_path, i));
  }
  return Status::Ok();
}

template <typename E>
Status MapReader::ReadEnum(const YamlNode& node, const std::string& path, EnumNames<E> names,
                           E& out) {
  std::string s;
  KUOTA_RETURN_IF_ERROR(ReadString(ctx_, node, path, s));
  std::vector<std::string_view> all;
  for (const auto& n : names) {
    if (n.name == s) {
      out = n.value;
      return Status::Ok();
    }
    all.push_back(n.name);
  }
  return EnumError(node, path, all);
}

template <typename E>
Status MapReader::Enum(std::string_view key, E& out, EnumNames<E> names) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadEnum(*v, PathOf(key), names, out);
}

template <typename E>
Status MapReader::EnumList(std::string_view key, std::vector<E>& out,
                           std::initializer_list<EnumName<E>> names) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  const EnumNames<E> table(names.begin(), names.size());
  std::vector<E> result;
  KUOTA_RETURN_IF_ERROR(ForEachItem(ctx_, *v, PathOf(key),
                                    [&](const YamlNode& item, const std::string& path, size_t) {
                                      E value{};
                                      KUOTA_RETURN_IF_ERROR(ReadEnum(item, path, table, value));
                                      result.push_back(value);
                                      return Status::Ok();
                                    }));
  out = std::move(result);
  return Status::Ok();
}

template <typename T, typename F>
Status MapReader::Object(std::string_view key, T& out, F&& decode) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadObject(ctx_, *v, PathOf(key), out, decode);
}

template <typename T, typename F>
Status MapReader::OptObject(std::string_view key, std::optional<T>& out, F&& decode) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  T value{};
  KUOTA_RETURN_IF_ERROR(ReadObject(ctx_, *v, PathOf(key), value, decode));
  out = std::move(value);
  return Status::Ok();
}

template <typename T, typename F>
Status MapReader::ObjectList(std::string_view key, std::vector<T>& out, F&& decode) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  std::vector<T> result;
  KUOTA_RETURN_IF_ERROR(ForEachItem(ctx_, *v, PathOf(key),
                                    [&](const YamlNode& item, const std::string& path, size_t) {
                                      T& elem = result.emplace_back();
                                      return ReadObject(ctx_, item, path, elem, decode);
                                    }));
  out = std::move(result);
  return Status::Ok();
}

}  // namespace kuota::codec
