#include "server/json_limits.h"

#include <vector>

namespace kuota::server {

using Json = nlohmann::json;

std::optional<std::string> CheckJsonTextDepth(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return "the JSON nests deeper than the limit of " + std::to_string(max_depth) +
                 " levels (at byte " + std::to_string(i) + ")";
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

int JsonDepth(const Json& value, int cap) {
  struct Frame {
    const Json* v;
    int depth;  // depth of the container holding v
  };
  std::vector<Frame> stack{{&value, 0}};
  int max = 0;
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    if (!f.v->is_structured()) continue;
    const int d = f.depth + 1;
    if (d > max) max = d;
    if (max > cap) return max;
    for (const Json& child : *f.v) stack.push_back({&child, d});
  }
  return max;
}

size_t JsonSizeBound(const Json& value, size_t cap) {
  std::vector<const Json*> stack{&value};
  size_t total = 0;
  while (!stack.empty() && total <= cap) {
    const Json* v = stack.back();
    stack.pop_back();
    switch (v->type()) {
      case Json::value_t::object:
        total += 2;
        for (auto it = v->begin(); it != v->end(); ++it) {
          total += it.key().size() + 4;  // "key": and a comma
          stack.push_back(&it.value());
        }
        break;
      case Json::value_t::array:
        total += 2;
        for (const Json& child : *v) {
          total += 1;
          stack.push_back(&child);
        }
        break;
      case Json::value_t::string:
        // Escapes may double a character; \u00XX sextuples control ones.
        total += v->get_ref<const std::string&>().size() + 2;
        break;
      case Json::value_t::binary:
        total += v->get_binary().size() * 2;
        break;
      default:
        total += 24;  // numbers, booleans, null
        break;
    }
  }
  return total;
}

}  // namespace kuota::server
