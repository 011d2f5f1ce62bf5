// LabelSelector (metav1.LabelSelector) and its matching, as used by a
// ClusterQueue's namespaceSelector. Plain struct; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "api/object_meta.h"

namespace kuota::api {

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  // An empty selector matches everything.
  bool Matches(const Labels& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};

}  // namespace kuota::api
