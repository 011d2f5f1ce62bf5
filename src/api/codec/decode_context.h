// DecodeContext: state shared while one document is decoded: error wording
// (`path: message (value "v")`) and line, the line of each decoded field path
// (so validation errors name a line too), nesting depth, and the work budget
// that stops alias-expanded input ("billion laughs"). Not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/codec/yaml_tree.h"
#include "base/status.h"

namespace kuota::codec {

// How much work decoding a document may still do: node visits and scalar
// bytes copied out. Without aliases no node is visited twice, so a budget of
// a few times the document's size only ever stops alias expansion.
struct DecodeBudget {
  size_t nodes_left = 0;
  size_t bytes_left = 0;
};

class DecodeContext {
 public:
  // Objects nested deeper than this are refused. Kueue's deepest field
  // (a pod template's node selector requirement values) is 14 levels down.
  static constexpr int kMaxDepth = 64;

  // `budget` may be shared by several contexts (the items of one List) and
  // must outlive this context.
  explicit DecodeContext(DecodeBudget& budget) : budget_(budget) {}

  // An Invalid status "path: message", remembering node's line.
  Status Fail(const YamlNode& node, std::string_view path, std::string_view message);
  // As Fail, then " (value "v")" when the node is a scalar.
  Status FailWithValue(const YamlNode& node, std::string_view path, std::string_view message);

  // Charges one visit of `node` (and its scalar bytes) against the budget and
  // records the line of `path`. TooLarge once the budget is spent.
  Status Visit(const YamlNode& node, std::string_view path);

  // Tracks object nesting; Enter fails past kMaxDepth. Pair with Leave.
  Status Enter(const YamlNode& node, std::string_view path);
  void Leave() { --depth_; }

  // Line of the error last built by Fail/FailWithValue (0 if none).
  int error_line() const { return error_line_; }
  // Line of the node decoded at `path`, or of its nearest decoded ancestor
  // path ("spec.x[0].y" falls back to "spec.x[0]", then "spec.x", "spec");
  // 0 when none was recorded.
  int LineOf(std::string_view path) const;

 private:
  DecodeBudget& budget_;
  int depth_ = 0;
  int error_line_ = 0;
  std::unordered_map<std::string, int> lines_;
};

}  // namespace kuota::codec
