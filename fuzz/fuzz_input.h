// Helpers that cut one fuzz input into the parts a target needs, and the
// object a patch target patches when its input carries none. Header-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace kuota::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// Splits at the first line that is exactly "--": {before, after}. Without
// one: {"", whole input}.
inline std::pair<std::string_view, std::string_view> SplitAtDashes(std::string_view in) {
  if (in.substr(0, 3) == "--\n") return {std::string_view(), in.substr(3)};
  size_t at = in.find("\n--\n");
  if (at == std::string_view::npos) return {std::string_view(), in};
  return {in.substr(0, at), in.substr(at + 4)};
}

// `text` as a JSON object, or a small Pod when it is not one.
inline nlohmann::json ObjectOrPod(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) return j;
  return nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"default","labels":{"a":"b"},"finalizers":["f"]},
    "spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"X","value":"1"}],
      "ports":[{"containerPort":80,"protocol":"TCP"}],
      "resources":{"requests":{"cpu":"1"}}}],
      "tolerations":[{"key":"k","operator":"Exists"}]}})");
}

}  // namespace kuota::fuzz
