// Fuzz target: store::ListLabelSelector, the labelSelector query parameter of
// every list and watch ("a=b,c in (x,y),!d,n>3"), kube-apiserver's grammar.
// Input: the selector on the first line, then optionally a JSON object of
// labels to match. Asserts beyond "no crash": a parsed selector written back
// in the grammar's string form parses again to the same requirements, and
// both match the labels alike; an empty selector matches anything.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "selector_round_trip.h"
#include "store/list_label_selector.h"

namespace {

using kuota::store::ListLabelSelector;
using Op = ListLabelSelector::Op;

std::string Join(const std::vector<std::string>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + values[i];
  return out;
}

std::string ToText(const ListLabelSelector& sel) {
  std::string out;
  for (const auto& r : sel.requirements()) {
    if (!out.empty()) out += ",";
    switch (r.op) {
      case Op::kEquals:
        out += r.key + "=" + r.values.at(0);
        break;
      case Op::kNotEquals:
        out += r.key + "!=" + r.values.at(0);
        break;
      case Op::kIn:
        out += r.key + " in (" + Join(r.values) + ")";
        break;
      case Op::kNotIn:
        out += r.key + " notin (" + Join(r.values) + ")";
        break;
      case Op::kExists:
        out += r.key;
        break;
      case Op::kDoesNotExist:
        out += "!" + r.key;
        break;
      case Op::kGreaterThan:
        out += r.key + ">" + r.values.at(0);
        break;
      case Op::kLessThan:
        out += r.key + "<" + r.values.at(0);
        break;
    }
  }
  return out;
}

bool Same(const ListLabelSelector& a, const ListLabelSelector& b) {
  if (a.requirements().size() != b.requirements().size()) return false;
  for (size_t i = 0; i < a.requirements().size(); ++i) {
    const auto& x = a.requirements()[i];
    const auto& y = b.requirements()[i];
    if (x.key != y.key || x.op != y.op || x.values != y.values) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)kuota::fuzz::CheckSelectorRoundTrip<ListLabelSelector>(kuota::fuzz::AsText(data, size),
                                                               ToText, Same);
  return 0;
}
