#include "api/label_selector.h"

#include <algorithm>

namespace kuota::api {

bool LabelSelector::Matches(const Labels& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& req : match_expressions) {
    auto it = labels.find(req.key);
    bool has = it != labels.end();
    bool in = has && std::find(req.values.begin(), req.values.end(), it->second) != req.values.end();
    if (req.op == "In") {
      if (!in) return false;
    } else if (req.op == "NotIn") {
      if (in) return false;
    } else if (req.op == "Exists") {
      if (!has) return false;
    } else if (req.op == "DoesNotExist") {
      if (has) return false;
    } else {
      return false;  // validation rejects unknown operators; never match them
    }
  }
  return true;
}

}  // namespace kuota::api
