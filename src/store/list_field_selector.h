// ListFieldSelector: the fieldSelector string of a Kubernetes list or watch
// request ("metadata.name=x,status.phase!=Running"), with = == != on any
// dotted JSON path and kube's backslash escapes (\, \= \\) in values.
// Immutable after Parse; safe to share between threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::store {

class ListFieldSelector {
 public:
  struct Term {
    std::vector<std::string> path;  // "status.phase" -> {"status", "phase"}
    bool equals = true;             // = and ==; false for !=
    std::string value;
  };

  // Parses `text`; an empty string selects everything. Invalid names the
  // term that could not be read.
  static Result<ListFieldSelector> Parse(std::string_view text);

  // A field's value is its string, number or boolean text; an absent or null
  // field reads as "" (so "status.phase=" selects objects with no phase).
  bool Matches(const nlohmann::json& object) const;

  bool empty() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

 private:
  std::vector<Term> terms_;
};

// The value at a dotted path as a field selector compares it ("" if absent).
std::string FieldValueText(const nlohmann::json& object, const std::vector<std::string>& path);

}  // namespace kuota::store
