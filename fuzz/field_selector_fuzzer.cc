// Fuzz target: store::ListFieldSelector, the fieldSelector query parameter of
// every list and watch ("metadata.name=x,status.phase!=Running", with \, \=
// and \\ escapes in values). Input: the selector on the first line, then
// optionally a JSON object to match. Asserts beyond "no crash": a parsed
// selector written back (values escaped) parses again to the same terms, and
// both match the object alike; a term "path=<the object's value>" matches.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "selector_round_trip.h"
#include "store/list_field_selector.h"

namespace {

using kuota::store::ListFieldSelector;

std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

std::string PathText(const std::vector<std::string>& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) out += (i ? "." : "") + path[i];
  return out;
}

std::string ToText(const ListFieldSelector& sel) {
  std::string out;
  for (const auto& t : sel.terms()) {
    if (!out.empty()) out += ",";
    out += PathText(t.path) + (t.equals ? "=" : "!=") + Escape(t.value);
  }
  return out;
}

bool Same(const ListFieldSelector& a, const ListFieldSelector& b) {
  if (a.terms().size() != b.terms().size()) return false;
  for (size_t i = 0; i < a.terms().size(); ++i) {
    const auto& x = a.terms()[i];
    const auto& y = b.terms()[i];
    if (x.path != y.path || x.equals != y.equals || x.value != y.value) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = kuota::fuzz::CheckSelectorRoundTrip<ListFieldSelector>(
      kuota::fuzz::AsText(data, size), ToText, Same);
  if (!parsed) return 0;
  const nlohmann::json& object = parsed->object;
  // Each term's path, asked for the object's own value there, matches.
  for (const auto& t : parsed->selector.terms()) {
    const std::string value = kuota::store::FieldValueText(object, t.path);
    auto own = ListFieldSelector::Parse(PathText(t.path) + "=" + Escape(value));
    FUZZ_CHECK(own.ok(), PathText(t.path) + "=" + Escape(value));
    FUZZ_CHECK(own.value().Matches(object), PathText(t.path) + "=" + Escape(value));
  }
  return 0;
}
