// JsonTree: builds the codec's document tree (YamlDocument) straight from an
// nlohmann::json value, so objects that are already JSON (API bodies, stored
// and watched objects) are decoded without printing them and parsing the
// text again through yaml-cpp (and without its process-wide parser lock).
// Strings are quoted scalars; numbers, booleans are plain ones, as a JSON
// text read by the YAML parser gives them. Pure function; thread-safe.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "api/codec/yaml_tree.h"
#include "base/result.h"

namespace kuota::codec {

// Every node sits on line 1, as in the one-line text nlohmann's dump() makes.
struct JsonTree {
  YamlDocument doc;
  // The bytes of the JSON text this tree stands for (about: keys, scalars
  // and punctuation), which bounds the decoder's budget as the text would.
  size_t approx_bytes = 0;
};

// The tree points into itself: it is handed out where it cannot move.
// Invalid when `value` nests deeper than `max_depth`.
Result<std::unique_ptr<JsonTree>> JsonToTree(const nlohmann::json& value, int max_depth = 512);

}  // namespace kuota::codec
