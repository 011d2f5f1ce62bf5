#include "engine/minimum_runtime.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace kuota::engine {
namespace {

std::string Path(const char* annotation) {
  return std::string("metadata.annotations[") + annotation + "]";
}

}  // namespace

Result<MinimumRuntime> ReadMinimumRuntime(const api::ObjectMeta& meta, bool override_allowed) {
  MinimumRuntime out;
  if (auto it = meta.annotations.find(kMinimumRuntimeAnnotation); it != meta.annotations.end()) {
    Result<Duration> d = ParseDuration(it->second);
    if (!d.ok() || d->ms < 0) {
      return Status::Invalid(Path(kMinimumRuntimeAnnotation) + ": Invalid value: \"" + it->second +
                             "\": must be a non-negative duration such as \"10m\" or \"1h30m\"");
    }
    out.ms = d->ms;
  }
  if (auto it = meta.annotations.find(kMinimumRuntimeOverrideAnnotation);
      it != meta.annotations.end()) {
    if (!override_allowed) {
      return Status::Invalid(Path(kMinimumRuntimeOverrideAnnotation) +
                             ": Forbidden: only a ClusterQueue may set it");
    }
    const std::string& v = it->second;
    char* end = nullptr;
    errno = 0;
    const long long p = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || end == nullptr || *end != '\0' || errno == ERANGE || p < INT32_MIN ||
        p > INT32_MAX) {
      return Status::Invalid(Path(kMinimumRuntimeOverrideAnnotation) + ": Invalid value: \"" + v +
                             "\": must be a priority (a 32-bit integer)");
    }
    out.override_priority = p;
  }
  return out;
}

std::string FormatMinimumRuntime(int64_t ms) {
  if (ms <= 0) return "0s";
  int64_t s = (ms + 999) / 1000;  // a part of a second counts as one
  const int64_t h = s / 3600, m = (s % 3600) / 60;
  s %= 60;
  std::string out;
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0) out += std::to_string(m) + "m";
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

}  // namespace kuota::engine
