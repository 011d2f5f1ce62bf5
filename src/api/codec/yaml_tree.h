// YamlTree: an in-memory tree of one YAML (or JSON) document built from
// yaml-cpp parser events: every mapping entry in order (duplicates kept for
// the reader), plain-vs-quoted scalars and 1-based positions. Building never
// recurses and no yaml-cpp exception escapes. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace YAML {
class Parser;
}

namespace kuota::codec {

// One node, kept small: a 10 MiB document holds about a million of them.
struct YamlNode {
  enum class Type : uint8_t { kNull, kScalar, kSequence, kMap };
  // An explicit core-schema tag (`!!str`, `!!int`, ...); kOther for any other.
  enum class Tag : uint8_t { kNone, kStr, kInt, kBool, kFloat, kOther };

  int32_t line = 0;    // 1-based
  int32_t column = 0;  // 1-based
  Type type = Type::kNull;
  // True for an untagged scalar written without quotes or block style; only
  // such scalars are numbers or booleans ("1", "true"), as in YAML and JSON.
  bool plain = false;
  Tag tag = Tag::kNone;
  std::string scalar;
  // kSequence: the items. kMap: keys and values alternating, in document
  // order, duplicates included.
  std::vector<const YamlNode*> children;

  // Items of a sequence, or entries of a map.
  size_t size() const { return type == Type::kMap ? children.size() / 2 : children.size(); }
  const YamlNode& item(size_t i) const { return *children[i]; }
  const YamlNode& key(size_t i) const { return *children[2 * i]; }
  const YamlNode& value(size_t i) const { return *children[2 * i + 1]; }

  bool is_null() const { return type == Type::kNull; }
  bool is_scalar() const { return type == Type::kScalar; }
  bool is_sequence() const { return type == Type::kSequence; }
  bool is_map() const { return type == Type::kMap; }
  // "a map", "a list", "a string", "a number", "a boolean", "null": for messages.
  std::string Describe() const;
};

// One document. Owns its nodes; aliases point at the anchored node, so a
// node may be reachable more than once (never through itself).
struct YamlDocument {
  const YamlNode* root = nullptr;  // a kNull node for an empty document
  int line = 1;                    // 1-based line of the document's content
  std::deque<YamlNode> nodes;
  size_t node_count() const { return nodes.size(); }
};

// Reads a multi-document stream one document at a time. The text must stay
// alive while the stream is in use.
class YamlStream {
 public:
  explicit YamlStream(std::string_view text);
  ~YamlStream();
  YamlStream(const YamlStream&) = delete;
  YamlStream& operator=(const YamlStream&) = delete;

  // The next document; nullptr at the end of the stream. A syntax error is an
  // Invalid status naming its 1-based line and column, after which the stream
  // is finished.
  Result<std::unique_ptr<YamlDocument>> Next();

 private:
  std::istringstream in_;
  std::unique_ptr<YAML::Parser> parser_;
  bool done_ = false;
  // Every document takes at least one byte of the text; more than that many
  // means the parser stopped advancing (yaml-cpp does on some malformed flow
  // collections) and the stream ends with an error instead of looping.
  size_t max_documents_ = 0;
  size_t documents_ = 0;
};

}  // namespace kuota::codec
