#include "engine/assignment.h"

#include <algorithm>
#include <string_view>

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

FrIdSet Assignment::NeedPreemption() const {
  FrIdSet out;
  for (const auto& ps : pod_sets) {
    for (const auto& [res, ra] : ps.flavors) {
      if (ra.mode != FitMode::kFit && ra.mode != FitMode::kNoFit) out.insert(ra.fr);
    }
  }
  return out;
}

std::string Assignment::Message(size_t extra) const {
  // Each pod set's reasons sorted and deduplicated by pointer, without
  // copying the strings; the message is sized once before it is written.
  constexpr std::string_view kHead = "couldn't assign flavors to pod set ";
  // Per thread, kept for their capacity (every pending head formats one).
  thread_local std::vector<const std::string*> sorted;
  thread_local std::vector<size_t> ends;  // where each pod set's reasons end in `sorted`
  sorted.clear();
  ends.clear();
  size_t size = 0;
  for (const auto& ps : pod_sets) {
    if (ps.reasons.empty()) continue;
    const size_t begin = sorted.size();
    for (const auto& r : ps.reasons) sorted.push_back(&r);
    auto first = sorted.begin() + static_cast<std::ptrdiff_t>(begin);
    std::sort(first, sorted.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    sorted.erase(std::unique(first, sorted.end(),
                             [](const std::string* a, const std::string* b) { return *a == *b; }),
                 sorted.end());
    ends.push_back(sorted.size());
    size += (size ? 2 : 0) + kHead.size() + ps.name.size() + 2;
    for (auto it = first; it != sorted.end(); ++it) {
      size += (it == first ? 0 : 2) + (*it)->size();
    }
  }
  std::string out;
  if (size > 0) out.reserve(size + extra);
  size_t at = 0;
  size_t e = 0;
  for (const auto& ps : pod_sets) {
    if (ps.reasons.empty()) continue;
    if (!out.empty()) out += "; ";
    out += kHead;
    out += ps.name;
    out += ": ";
    for (size_t i = at; i < ends[e]; ++i) {
      if (i != at) out += ", ";
      out += *sorted[i];
    }
    at = ends[e++];
  }
  return out;
}

}  // namespace kuota::engine
