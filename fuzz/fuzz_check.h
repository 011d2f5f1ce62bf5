// FUZZ_CHECK: the fuzz targets' assertion. Unlike assert() it stays on in
// every build type, and it names the failed property and the input's text
// before aborting, so libFuzzer (and the replay driver) report it as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kuota::fuzz {

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* what,
                                     std::string_view detail) {
  std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n%.*s\n", file, line, what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace kuota::fuzz

#define FUZZ_CHECK(cond, detail)                                                  \
  do {                                                                            \
    if (!(cond)) ::kuota::fuzz::CheckFailed(__FILE__, __LINE__, #cond, (detail)); \
  } while (false)
