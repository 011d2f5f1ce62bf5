// The check both selector fuzz targets make (label and field selectors of
// list/watch): input is the selector on the first line, then optionally a
// JSON value to match. A selector that parses, written back as text, must
// parse again to the same selector, both must match the value alike, and an
// empty selector matches anything. Header-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"

namespace kuota::fuzz {

template <typename Selector>
struct ParsedSelector {
  Selector selector;
  nlohmann::json object;  // what follows the first line; {} when nothing
};

// `to_text(s)` writes a selector in the grammar; `same(a, b)` compares two.
// Returns the parsed selector and object for further checks; nullopt when
// the first line does not parse (a clean error is fine).
template <typename Selector, typename ToText, typename Same>
std::optional<ParsedSelector<Selector>> CheckSelectorRoundTrip(std::string_view in, ToText to_text,
                                                               Same same) {
  const size_t nl = in.find('\n');
  const std::string_view text = in.substr(0, nl);
  auto parsed = Selector::Parse(text);
  if (!parsed.ok()) return std::nullopt;
  const Selector& sel = parsed.value();
  const std::string again_text = to_text(sel);
  auto again = Selector::Parse(again_text);
  FUZZ_CHECK(again.ok(), std::string(text) + " -> " + again_text + ": " + again.status().message());
  FUZZ_CHECK(same(sel, again.value()), std::string(text) + " -> " + again_text);

  nlohmann::json object = nlohmann::json::object();
  if (nl != std::string_view::npos) {
    object = nlohmann::json::parse(in.substr(nl + 1), nullptr, /*allow_exceptions=*/false);
  }
  const bool match = sel.Matches(object);
  FUZZ_CHECK(match == again.value().Matches(object), again_text);
  if (sel.empty()) FUZZ_CHECK(match, text);
  return ParsedSelector<Selector>{sel, std::move(object)};
}

}  // namespace kuota::fuzz
