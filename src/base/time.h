// Time: a point in time as milliseconds since the Unix epoch, with RFC 3339
// parsing and formatting as Kubernetes writes timestamps. Plain value type.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota {

struct Time {
  int64_t unix_ms = 0;

  static Time FromMillis(int64_t ms) { return Time{ms}; }
  static Time FromSeconds(int64_t s) { return Time{s * 1000}; }
  auto operator<=>(const Time&) const = default;
};

struct Duration {
  int64_t ms = 0;
  auto operator<=>(const Duration&) const = default;
};

inline Time operator+(Time t, Duration d) { return Time{t.unix_ms + d.ms}; }
inline Duration operator-(Time a, Time b) { return Duration{a.unix_ms - b.unix_ms}; }

// Parses "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z" and numeric
// offsets ("+09:00"). Fails with a message naming the bad text.
Result<Time> ParseRfc3339(std::string_view text);

// Formats as "2026-01-01T00:00:00Z" (milliseconds shown only when non-zero).
std::string FormatRfc3339(Time t);

// Parses a Go-style duration such as "5m", "1h30m", "10s", "250ms".
Result<Duration> ParseDuration(std::string_view text);

// Formats a short human age like kubectl does: "5s", "3m", "2h", "4d".
std::string FormatAge(Duration d);

}  // namespace kuota
