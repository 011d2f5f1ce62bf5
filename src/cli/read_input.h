// ReadInput: reads a file named on the command line ("-" for stdin) with a
// size limit, returning a clear error for missing, unreadable or oversized
// files. Safe to call from any thread.
#pragma once

#include <string>

#include "base/result.h"

namespace kuota::cli {

// Files over `max_bytes` are refused.
Result<std::string> ReadInput(const std::string& path, size_t max_bytes = 64u << 20);

}  // namespace kuota::cli
