// Process usage: CPU seconds and peak memory of this process, read from
// getrusage, for the benchmark's cost figures. Thread-safe.
#pragma once

#include <cstdint>

namespace kuota::perf {

// User + system CPU seconds this process has used so far.
double SelfCpuSeconds();
// Peak resident set size of this process, in KiB.
int64_t SelfMaxRssKib();

}  // namespace kuota::perf
