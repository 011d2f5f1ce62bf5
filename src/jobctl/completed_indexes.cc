#include "jobctl/completed_indexes.h"

#include <string>

namespace kuota::jobctl {
namespace {

// A non-negative decimal of at most 9 digits (below int32 max), or -1.
int64_t ParseIndex(std::string_view s) {
  if (s.empty() || s.size() > 9) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::string FormatCompletedIndexes(const IndexSet& indexes) {
  std::string out;
  auto it = indexes.begin();
  while (it != indexes.end()) {
    const int32_t first = *it;
    int32_t last = first;
    ++it;
    while (it != indexes.end() && *it == last + 1) {
      last = *it;
      ++it;
    }
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last != first) out += '-' + std::to_string(last);
  }
  return out;
}

Result<IndexSet> ParseCompletedIndexes(std::string_view text, int32_t completions) {
  IndexSet out;
  if (text.empty()) return out;
  int64_t prev_last = -1;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = text.substr(pos, comma - pos);
    auto bad = [&]() {
      return Status::Invalid("status.completedIndexes: invalid interval \"" + std::string(part) +
                             "\" in \"" + std::string(text.substr(0, 64)) +
                             "\": want ascending \"a\" or \"a-b\" items joined by commas");
    };
    size_t dash = part.find('-');
    int64_t first = ParseIndex(part.substr(0, dash));
    int64_t last = dash == std::string_view::npos ? first : ParseIndex(part.substr(dash + 1));
    if (first < 0 || last < first) return bad();
    if (first <= prev_last) return bad();
    prev_last = last;
    for (int64_t i = first; i <= last && i < completions; ++i) out.insert(static_cast<int32_t>(i));
    pos = comma + 1;
  }
  return out;
}

}  // namespace kuota::jobctl
