#include "base/time.h"

#include <chrono>
#include <cstdio>

#include "base/clock.h"

namespace kuota {
namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp + (mp < 10 ? 3 : -9);
  y += m <= 2;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Floor division and remainder, so times before 1970 format correctly.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

Result<Time> ParseRfc3339(std::string_view s) {
  auto bad = [&]() {
    return Status::Invalid("invalid timestamp \"" + std::string(s.substr(0, 64)) +
                           "\": want RFC 3339 such as 2026-01-01T00:00:00Z");
  };
  int Y, M, D, h, mi, se;
  if (s.size() < 20 || !Digits(s, 0, 4, Y) || s[4] != '-' || !Digits(s, 5, 2, M) || s[7] != '-' ||
      !Digits(s, 8, 2, D) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !Digits(s, 11, 2, h) || s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' ||
      !Digits(s, 17, 2, se)) {
    return bad();
  }
  // Go's time.Parse (and so Kubernetes) rejects day 31 of a 30-day month,
  // February 29 outside leap years, and leap second 60.
  if (M < 1 || M > 12 || D < 1 || D > DaysInMonth(Y, M) || h > 23 || mi > 59 || se > 59) {
    return bad();
  }
  size_t pos = 19;
  int64_t frac_ms = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t scale = 100;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac_ms += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad();
  }
  int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return bad();
    }
    offset_min = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  int64_t days = DaysFromCivil(Y, static_cast<unsigned>(M), static_cast<unsigned>(D));
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - offset_min * 60;
  return Time{secs * 1000 + frac_ms};
}

std::string FormatRfc3339(Time t) {
  int64_t ms = t.unix_ms;
  // Floor division without negating or multiplying back: INT64_MIN must not overflow.
  int64_t secs = FloorDiv(ms, 1000);
  int64_t rem_ms = ms % 1000;
  if (rem_ms < 0) rem_ms += 1000;
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  char buf[48];
  if (rem_ms != 0) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60),
                  static_cast<long long>(rem_ms));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60));
  }
  return buf;
}

Result<Duration> ParseDuration(std::string_view s) {
  auto bad = [&]() {
    return Status::Invalid("invalid duration \"" + std::string(s.substr(0, 64)) +
                           "\": want a number with a unit such as 300ms, 10s, 5m or 1h30m");
  };
  if (s.empty()) return bad();
  size_t pos = 0;
  int64_t total = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    pos = 1;
  }
  if (s.substr(pos) == "0") return Duration{0};
  if (pos == s.size()) return bad();  // a sign alone is not a duration
  constexpr double kMaxMs = 100.0 * 365 * 86'400'000;
  while (pos < s.size()) {
    size_t start = pos;
    double value = 0;
    int64_t ipart = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (ipart > 1'000'000'000'000LL) return bad();
      ipart = ipart * 10 + (s[pos] - '0');
      ++pos;
    }
    value = static_cast<double>(ipart);
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      double scale = 0.1;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        value += (s[pos] - '0') * scale;
        scale /= 10;
        ++pos;
      }
    }
    if (pos == start) return bad();
    size_t ustart = pos;
    while (pos < s.size() && !(s[pos] >= '0' && s[pos] <= '9') && s[pos] != '.') ++pos;
    std::string_view unit = s.substr(ustart, pos - ustart);
    double mult;
    if (unit == "ms") mult = 1;
    else if (unit == "s") mult = 1000;
    else if (unit == "m") mult = 60'000;
    else if (unit == "h") mult = 3'600'000;
    else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") mult = 0.001;
    else if (unit == "ns") mult = 0.000001;
    else return bad();
    // Check in floating point before converting: casting an out-of-range
    // double to int64_t is undefined behaviour.
    double part = value * mult;
    if (!(part <= kMaxMs)) return bad();
    total += static_cast<int64_t>(part);
    if (total > static_cast<int64_t>(kMaxMs)) return bad();
  }
  return Duration{neg ? -total : total};
}

std::string FormatAge(Duration d) {
  int64_t s = d.ms / 1000;
  if (s < 0) s = 0;
  if (s < 120) return std::to_string(s) + "s";
  if (s < 3600 * 3) return std::to_string(s / 60) + "m";
  if (s < 86400 * 2) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

Time RealClock::Now() const {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return Time{std::chrono::duration_cast<std::chrono::milliseconds>(now).count()};
}

}  // namespace kuota
