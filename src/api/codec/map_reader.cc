#include "api/codec/map_reader.h"

#include <algorithm>
#include <limits>

#include "api/codec/scalars.h"
#include "api/validation/field_errors.h"

namespace kuota::codec {

std::string ChildPath(std::string_view path, std::string_view key) {
  return validation::Child(path, key);
}
std::string IndexPath(std::string_view path, size_t i) { return validation::Index(path, i); }
std::string KeyPath(std::string_view path, std::string_view key) {
  return validation::Key(path, key);
}

namespace {

Status ExpectScalar(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                    std::string_view want) {
  if (node.is_scalar()) return Status::Ok();
  return ctx.Fail(node, path, "expected " + std::string(want) + ", got " + node.Describe());
}

// Reads map keys, rejecting non-string and duplicate ones. `object` selects
// the wording: fields of an object, or keys of a map-valued field.
Status CheckKeys(DecodeContext& ctx, const YamlNode& node, const std::string& path, bool object) {
  std::vector<std::string_view> keys;
  keys.reserve(node.size());
  for (size_t i = 0; i < node.size(); ++i) {
    const YamlNode& k = node.key(i);
    if (!k.is_scalar()) {
      return ctx.Fail(k, path, "map keys must be strings, got " + k.Describe());
    }
    keys.push_back(k.scalar);
  }
  std::vector<std::string_view> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup == sorted.end()) return Status::Ok();
  // Report the second occurrence in document order, where the reader looks.
  bool seen = false;
  for (size_t i = 0; i < node.size(); ++i) {
    const YamlNode& k = node.key(i);
    if (k.scalar != *dup) continue;
    if (seen) {
      return object ? ctx.Fail(k, ChildPath(path, k.scalar), "duplicate field")
                    : ctx.Fail(k, KeyPath(path, k.scalar), "duplicate key");
    }
    seen = true;
  }
  return Status::Ok();
}

// Walks a map with free-form keys (labels, resource lists): checks it is a
// map with valid keys, then calls visit(key, value, item_path) per entry.
template <typename F>
Status ForEachEntry(DecodeContext& ctx, const YamlNode& map, const std::string& path, F&& visit) {
  if (!map.is_map()) return ctx.Fail(map, path, "expected a map, got " + map.Describe());
  KUOTA_RETURN_IF_ERROR(CheckKeys(ctx, map, path, /*object=*/false));
  for (size_t i = 0; i < map.size(); ++i) {
    const YamlNode& value = map.value(i);
    std::string item_path = KeyPath(path, map.key(i).scalar);
    KUOTA_RETURN_IF_ERROR(ctx.Visit(value, item_path));
    KUOTA_RETURN_IF_ERROR(visit(map.key(i).scalar, value, item_path));
  }
  return Status::Ok();
}

}  // namespace

Status ReadString(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                  std::string& out) {
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx, node, path, "a string"));
  out = node.scalar;
  return Status::Ok();
}

Status ReadBool(DecodeContext& ctx, const YamlNode& node, const std::string& path, bool& out) {
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx, node, path, "a boolean"));
  std::optional<bool> b;
  if (node.plain || node.tag == YamlNode::Tag::kBool) b = ParseYamlBool(node.scalar);
  if (!b.has_value()) {
    return ctx.FailWithValue(node, path,
                             "expected a boolean (true or false), got " + node.Describe());
  }
  out = *b;
  return Status::Ok();
}

Status ReadInt(DecodeContext& ctx, const YamlNode& node, const std::string& path, int64_t min,
               int64_t max, int64_t& out) {
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx, node, path, "an integer"));
  if (!node.plain && node.tag != YamlNode::Tag::kInt) {
    return ctx.FailWithValue(node, path, "expected an integer, got a string");
  }
  int64_t v = 0;
  switch (ParseDecimalInt(node.scalar, v)) {
    case IntParse::kOk:
      break;
    case IntParse::kNotInteger:
      return ctx.FailWithValue(node, path, "expected a decimal integer, got " + node.Describe());
    case IntParse::kOutOfRange:
      return ctx.FailWithValue(node, path, "integer out of range");
  }
  if (v < min || v > max) {
    std::string type = max == std::numeric_limits<int32_t>::max() ? "int32" : "int64";
    return ctx.FailWithValue(node, path, "integer out of range for " + type);
  }
  out = v;
  return Status::Ok();
}

Status ReadQuantity(DecodeContext& ctx, const YamlNode& node, const std::string& path,
                    api::Quantity& out) {
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx, node, path, "a quantity"));
  Result<api::Quantity> q = api::Quantity::Parse(node.scalar);
  // The parser's message already shows the value: `invalid quantity "10x": ...`.
  if (!q.ok()) return ctx.Fail(node, path, q.status().message());
  out = *q;
  return Status::Ok();
}

MapReader::MapReader(DecodeContext& ctx, const YamlNode& node, std::string path)
    : ctx_(ctx), node_(node), path_(std::move(path)) {
  if (node.is_null()) return;
  if (!node.is_map()) {
    status_ = ctx.Fail(node, path_, "expected an object, got " + node.Describe());
    return;
  }
  status_ = CheckKeys(ctx, node, path_, /*object=*/true);
  if (!status_.ok()) return;
  entries_.reserve(node.size());
  for (size_t i = 0; i < node.size(); ++i) {
    entries_.push_back(Entry{node.key(i).scalar, &node.value(i)});
  }
}

MapReader::Entry* MapReader::Find(std::string_view key) {
  for (Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

const MapReader::Entry* MapReader::Find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

const YamlNode* MapReader::Get(std::string_view key) {
  if (!status_.ok()) return nullptr;
  Entry* e = Find(key);
  if (e == nullptr) return nullptr;
  e->known = true;
  if (e->value->is_null()) return nullptr;
  Status st = ctx_.Visit(*e->value, PathOf(key));
  if (!st.ok()) {
    status_ = std::move(st);  // over budget: every later read reports it
    return nullptr;
  }
  return e->value;
}

bool MapReader::Has(std::string_view key) const {
  const Entry* e = Find(key);
  return e != nullptr && !e->value->is_null();
}

Status MapReader::String(std::string_view key, std::string& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadString(ctx_, *v, PathOf(key), out);
}

Status MapReader::Bool(std::string_view key, bool& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadBool(ctx_, *v, PathOf(key), out);
}

Status MapReader::OptBool(std::string_view key, std::optional<bool>& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  bool b = false;
  KUOTA_RETURN_IF_ERROR(ReadBool(ctx_, *v, PathOf(key), b));
  out = b;
  return Status::Ok();
}

Status MapReader::Int32(std::string_view key, int32_t& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  int64_t i = 0;
  KUOTA_RETURN_IF_ERROR(ReadInt(ctx_, *v, PathOf(key), std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max(), i));
  out = static_cast<int32_t>(i);
  return Status::Ok();
}

Status MapReader::OptInt32(std::string_view key, std::optional<int32_t>& out) {
  if (!Has(key)) {
    Get(key);  // mark a null value as known
    return status_;
  }
  int32_t i = 0;
  KUOTA_RETURN_IF_ERROR(Int32(key, i));
  out = i;
  return Status::Ok();
}

Status MapReader::Int64(std::string_view key, int64_t& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadInt(ctx_, *v, PathOf(key), std::numeric_limits<int64_t>::min(),
                 std::numeric_limits<int64_t>::max(), out);
}

Status MapReader::OptInt64(std::string_view key, std::optional<int64_t>& out) {
  if (!Has(key)) {
    Get(key);
    return status_;
  }
  int64_t i = 0;
  KUOTA_RETURN_IF_ERROR(Int64(key, i));
  out = i;
  return Status::Ok();
}

Status MapReader::Quantity(std::string_view key, api::Quantity& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  return ReadQuantity(ctx_, *v, PathOf(key), out);
}

Status MapReader::OptQuantity(std::string_view key, std::optional<api::Quantity>& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  api::Quantity q;
  KUOTA_RETURN_IF_ERROR(ReadQuantity(ctx_, *v, PathOf(key), q));
  out = q;
  return Status::Ok();
}

Status MapReader::Time(std::string_view key, std::optional<kuota::Time>& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  std::string path = PathOf(key);
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx_, *v, path, "a timestamp"));
  Result<kuota::Time> t = ParseRfc3339(v->scalar);
  if (!t.ok()) return ctx_.Fail(*v, path, t.status().message());
  out = *t;
  return Status::Ok();
}

Status MapReader::Duration(std::string_view key, kuota::Duration& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  std::string path = PathOf(key);
  KUOTA_RETURN_IF_ERROR(ExpectScalar(ctx_, *v, path, "a duration"));
  Result<kuota::Duration> d = ParseDuration(v->scalar);
  if (!d.ok()) return ctx_.Fail(*v, path, d.status().message());
  out = *d;
  return Status::Ok();
}

Status MapReader::OptDuration(std::string_view key, std::optional<kuota::Duration>& out) {
  if (!Has(key)) {
    Get(key);
    return status_;
  }
  kuota::Duration d;
  KUOTA_RETURN_IF_ERROR(Duration(key, d));
  out = d;
  return Status::Ok();
}

Status MapReader::StringList(std::string_view key, std::vector<std::string>& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  std::vector<std::string> result;
  KUOTA_RETURN_IF_ERROR(ForEachItem(ctx_, *v, PathOf(key),
                                    [&](const YamlNode& item, const std::string& path, size_t) {
                                      return ReadString(ctx_, item, path, result.emplace_back());
                                    }));
  out = std::move(result);
  return Status::Ok();
}

Status MapReader::StringMap(std::string_view key, api::Labels& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  api::Labels result;
  KUOTA_RETURN_IF_ERROR(
      ForEachEntry(ctx_, *v, PathOf(key),
                   [&](const std::string& k, const YamlNode& value, const std::string& item_path) {
                     std::string s;
                     if (!value.is_null())
                       KUOTA_RETURN_IF_ERROR(ReadString(ctx_, value, item_path, s));
                     result.emplace(k, std::move(s));
                     return Status::Ok();
                   }));
  out = std::move(result);
  return Status::Ok();
}

Status MapReader::ResourceList(std::string_view key, api::ResourceList& out) {
  const YamlNode* v = Get(key);
  KUOTA_RETURN_IF_ERROR(status_);
  if (v == nullptr) return Status::Ok();
  api::ResourceList result;
  KUOTA_RETURN_IF_ERROR(
      ForEachEntry(ctx_, *v, PathOf(key),
                   [&](const std::string& k, const YamlNode& value, const std::string& item_path) {
                     if (value.is_null())
                       return ctx_.Fail(value, item_path, "expected a quantity, got null");
                     api::Quantity q;
                     KUOTA_RETURN_IF_ERROR(ReadQuantity(ctx_, value, item_path, q));
                     result.emplace(k, q);
                     return Status::Ok();
                   }));
  out = std::move(result);
  return Status::Ok();
}

Status MapReader::Require(std::string_view key) {
  KUOTA_RETURN_IF_ERROR(status_);
  Entry* e = Find(key);
  if (e != nullptr && !e->value->is_null()) return Status::Ok();
  // Reported by Finish(), after unknown fields: a misspelt key is both
  // unknown and missing, and "unknown field" is the more helpful message.
  if (missing_.empty()) missing_ = std::string(key);
  return Status::Ok();
}

Status MapReader::Require(std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) KUOTA_RETURN_IF_ERROR(Require(key));
  return Status::Ok();
}

void MapReader::Ignore(std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (Entry* e = Find(k)) e->known = true;
  }
}

Status MapReader::Removed(std::string_view key, std::string_view hint) {
  KUOTA_RETURN_IF_ERROR(status_);
  const Entry* e = Find(key);
  if (e == nullptr) return Status::Ok();
  size_t i = static_cast<size_t>(e - entries_.data());
  return ctx_.Fail(node_.key(i), PathOf(key), "unknown field: " + std::string(hint));
}

Status MapReader::Finish() {
  KUOTA_RETURN_IF_ERROR(status_);
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].known) {
      return ctx_.Fail(node_.key(i), PathOf(entries_[i].key), "unknown field");
    }
  }
  if (!missing_.empty()) {
    const Entry* e = Find(missing_);
    return ctx_.Fail(e != nullptr ? *e->value : node_, PathOf(missing_), "Required value");
  }
  return Status::Ok();
}

Status MapReader::EnumError(const YamlNode& node, const std::string& path,
                            const std::vector<std::string_view>& names) {
  std::string m = "unsupported value; supported values: ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) m += ", ";
    m += validation::QuoteValue(names[i]);
  }
  return ctx_.FailWithValue(node, path, m);
}

}  // namespace kuota::codec
