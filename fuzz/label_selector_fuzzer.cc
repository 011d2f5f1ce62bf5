// Fuzz target: api::LabelSelector (a ClusterQueue's namespaceSelector) as the
// codec decodes it from YAML/JSON (matchLabels, matchExpressions), Kueue's
// validation of it, and LabelSelector::Matches. Input: the selector document.
// Asserts beyond "no crash": a selector that passes validation, written as a
// labelSelector string, is accepted by store::ListLabelSelector (the list
// API's parser), and both match the same label sets alike (the selector's
// own labels, each requirement's first value, and those with a key removed).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/decoders.h"
#include "api/codec/map_reader.h"
#include "api/codec/yaml_tree.h"
#include "api/label_selector.h"
#include "api/validation/validators.h"
#include "fuzz_check.h"
#include "store/list_label_selector.h"

namespace {

using namespace kuota;

std::string ToListSelector(const api::LabelSelector& sel) {
  std::string out;
  auto add = [&](const std::string& term) { out += (out.empty() ? "" : ",") + term; };
  for (const auto& [k, v] : sel.match_labels) add(k + "=" + v);
  for (const auto& req : sel.match_expressions) {
    // Joined by position, not by emptiness: an empty value stays a value
    // ("in (,dev)" is {"", "dev"}, as kube-apiserver parses it).
    std::string values;
    for (size_t i = 0; i < req.values.size(); ++i) values += (i == 0 ? "" : ",") + req.values[i];
    if (req.op == "In") add(req.key + " in (" + values + ")");
    if (req.op == "NotIn") add(req.key + " notin (" + values + ")");
    if (req.op == "Exists") add(req.key);
    if (req.op == "DoesNotExist") add("!" + req.key);
  }
  return out;
}

// Keys the list grammar reads as its keywords, as kube-apiserver's does.
bool HasKeywordKey(const api::LabelSelector& sel) {
  auto keyword = [](const std::string& k) { return k == "in" || k == "notin"; };
  for (const auto& [k, v] : sel.match_labels) {
    if (keyword(k)) return true;
  }
  for (const auto& req : sel.match_expressions) {
    if (keyword(req.key)) return true;
  }
  return false;
}

nlohmann::json ToJson(const api::Labels& labels) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  codec::YamlStream stream(text);
  auto doc = stream.Next();
  if (!doc.ok() || doc.value() == nullptr) return 0;
  codec::DecodeBudget budget{100'000, 4 * size + 4096};
  codec::DecodeContext ctx(budget);
  api::LabelSelector sel;
  if (!codec::ReadObject(ctx, *doc.value()->root, "spec.namespaceSelector", sel,
                         codec::DecodeLabelSelector)
           .ok()) {
    return 0;
  }
  validation::FieldErrors errs;
  validation::ValidateLabelSelector(sel, "spec.namespaceSelector", errs);

  // Label sets to match: none, the selector's own, plus each requirement's
  // first value, and each of those without one of its keys.
  std::vector<api::Labels> sets(1);
  sets.push_back(sel.match_labels);
  api::Labels all = sel.match_labels;
  for (const auto& req : sel.match_expressions) {
    all[req.key] = req.values.empty() ? "" : req.values[0];
  }
  sets.push_back(all);
  for (auto it = all.begin(); it != all.end() && sets.size() < 40; ++it) {
    api::Labels without = all;
    without.erase(it->first);
    sets.push_back(without);
  }
  bool matches_any = false;
  for (const api::Labels& labels : sets) matches_any = sel.Matches(labels) || matches_any;
  if (sel.match_labels.empty() && sel.match_expressions.empty()) {
    FUZZ_CHECK(sel.Matches({}), text);
  }
  if (!errs.empty()) return 0;
  // Valid and without expressions: it matches its own labels.
  if (sel.match_expressions.empty()) FUZZ_CHECK(sel.Matches(sel.match_labels), text);

  const std::string list_text = ToListSelector(sel);
  auto list = store::ListLabelSelector::Parse(list_text);
  if (!list.ok() && HasKeywordKey(sel)) return 0;
  FUZZ_CHECK(list.ok(), list_text + ": " + list.status().message());
  for (const api::Labels& labels : sets) {
    FUZZ_CHECK(sel.Matches(labels) == list.value().Matches(ToJson(labels)),
               list_text + " on " + ToJson(labels).dump());
  }
  (void)matches_any;
  return 0;
}
