#include "engine/assignment.h"

#include <algorithm>

namespace kuota::engine {

Mode CoarseMode(FitMode m) {
  switch (m) {
    case FitMode::kNoFit:
      return Mode::kNoFit;
    case FitMode::kFit:
      return Mode::kFit;
    default:
      return Mode::kPreempt;
  }
}

const char* ModeName(Mode m) {
  switch (m) {
    case Mode::kNoFit:
      return "NoFit";
    case Mode::kPreempt:
      return "Preempt";
    case Mode::kFit:
      return "Fit";
  }
  return "?";
}

std::set<FrId> Assignment::NeedPreemption() const {
  std::set<FrId> out;
  for (const auto& ps : pod_sets) {
    for (const auto& [res, ra] : ps.flavors) {
      if (ra.mode != FitMode::kFit && ra.mode != FitMode::kNoFit) out.insert(ra.fr);
    }
  }
  return out;
}

std::string Assignment::Message() const {
  std::string out;
  for (const auto& ps : pod_sets) {
    if (ps.reasons.empty()) continue;
    // Sorted and deduplicated by pointer, without copying the strings.
    std::vector<const std::string*> reasons;
    reasons.reserve(ps.reasons.size());
    for (const auto& r : ps.reasons) reasons.push_back(&r);
    std::sort(reasons.begin(), reasons.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    reasons.erase(std::unique(reasons.begin(), reasons.end(),
                              [](const std::string* a, const std::string* b) { return *a == *b; }),
                  reasons.end());
    if (!out.empty()) out += "; ";
    out += "couldn't assign flavors to pod set ";
    out += ps.name;
    out += ": ";
    for (size_t i = 0; i < reasons.size(); ++i) {
      if (i) out += ", ";
      out += *reasons[i];
    }
  }
  return out;
}

}  // namespace kuota::engine
