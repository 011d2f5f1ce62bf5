// CompletedIndexes: the set of finished completion indexes of an Indexed Job,
// and its compressed text form in status.completedIndexes ("0-2,5,7-9"), as
// Kubernetes writes and reads it. Plain value helpers; thread-compatible.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::jobctl {

using IndexSet = std::set<int32_t>;

// Formats ascending runs of consecutive indexes as "a-b", single ones as "a",
// joined by commas: {0,1,2,5} -> "0-2,5". Empty set -> "".
std::string FormatCompletedIndexes(const IndexSet& indexes);

// Parses the text form strictly, keeping only indexes below `completions`
// (Kubernetes drops indexes that a shrunk Job no longer has). Fails with
// Invalid naming the bad part ("status.completedIndexes: ...").
Result<IndexSet> ParseCompletedIndexes(std::string_view text, int32_t completions);

}  // namespace kuota::jobctl
