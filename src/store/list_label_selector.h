// ListLabelSelector: the labelSelector string of a Kubernetes list or watch
// request ("a=b,c!=d,e in (x,y),f notin (z),g,!h,n>3"), parsed with
// kube-apiserver's grammar and matched against an object's metadata.labels.
// Immutable after Parse; safe to share between threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kuota::store {

class ListLabelSelector {
 public:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist, kGreaterThan, kLessThan };
  struct Requirement {
    std::string key;
    Op op = Op::kExists;
    std::vector<std::string> values;  // one for = != > <; one or more for in/notin
  };

  // Parses `text`; an empty string selects everything. Invalid names a
  // position and the problem, e.g. `invalid label selector "a in b": expected
  // '(' after 'in', found "b"`.
  static Result<ListLabelSelector> Parse(std::string_view text);

  // `labels` is metadata.labels (an object of strings; null when absent).
  // != and notin match objects without the label, as in Kubernetes.
  bool Matches(const nlohmann::json& labels) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace kuota::store
