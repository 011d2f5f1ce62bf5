#include "api/quantity.h"

#include <cstdio>

namespace kuota::api {
namespace {

using i128 = __int128;

Status Bad(std::string_view text, std::string_view why) {
  std::string shown(text.substr(0, 64));
  if (text.size() > 64) shown += "...";
  return Status::Invalid("invalid quantity \"" + shown + "\": " + std::string(why));
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view s) {
  if (s.empty()) return Bad(s, "empty");
  if (s.size() > 128) return Bad(s, "too long");
  size_t pos = 0;
  bool negative = false;
  if (s[pos] == '+' || s[pos] == '-') {
    negative = s[pos] == '-';
    ++pos;
  }
  // Mantissa: digits, optional '.', digits. Keep at most 30 significant digits.
  i128 mantissa = 0;
  int exp10 = 0;  // value = mantissa * 10^exp10
  int digits = 0;
  bool seen_digit = false;
  bool seen_dot = false;
  bool dropped_nonzero = false;  // a non-zero digit beyond the 30 kept ones
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      if (digits < 30) {
        mantissa = mantissa * 10 + (c - '0');
        if (mantissa != 0) ++digits;
        if (seen_dot) --exp10;
      } else {
        if (c != '0') dropped_nonzero = true;
        if (!seen_dot) ++exp10;  // drop an insignificant integer digit, keep the magnitude
      }
    } else if (c == '.' && !seen_dot) {
      seen_dot = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return Bad(s, "want a number such as 1, 0.5, 500m, 2Gi or 1e3");
  std::string_view suffix = s.substr(pos);
  int binary_shift = 0;
  if (suffix.empty()) {
  } else if (suffix == "m") {
    exp10 -= 3;
  } else if (suffix == "k") {
    exp10 += 3;
  } else if (suffix == "M") {
    exp10 += 6;
  } else if (suffix == "G") {
    exp10 += 9;
  } else if (suffix == "T") {
    exp10 += 12;
  } else if (suffix == "P") {
    exp10 += 15;
  } else if (suffix == "E") {
    exp10 += 18;
  } else if (suffix == "n") {
    exp10 -= 9;
  } else if (suffix == "u") {
    exp10 -= 6;
  } else if (suffix == "Ki") {
    binary_shift = 10;
  } else if (suffix == "Mi") {
    binary_shift = 20;
  } else if (suffix == "Gi") {
    binary_shift = 30;
  } else if (suffix == "Ti") {
    binary_shift = 40;
  } else if (suffix == "Pi") {
    binary_shift = 50;
  } else if (suffix == "Ei") {
    binary_shift = 60;
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view e = suffix.substr(1);
    bool eneg = false;
    size_t i = 0;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      eneg = e[0] == '-';
      i = 1;
    }
    if (i >= e.size()) return Bad(s, "exponent has no digits");
    int ev = 0;
    for (; i < e.size(); ++i) {
      if (e[i] < '0' || e[i] > '9') return Bad(s, "unknown suffix \"" + std::string(suffix) + "\"");
      ev = ev * 10 + (e[i] - '0');
      if (ev > 1000) return Bad(s, "exponent too large");
    }
    exp10 += eneg ? -ev : ev;
  } else {
    return Bad(s, "unknown suffix \"" + std::string(suffix) +
                      "\" (want m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent)");
  }
  // Scale to milli-units; past kMaxMilli the value saturates.
  exp10 += 3;
  const i128 limit = static_cast<i128>(kMaxMilli);
  i128 v = mantissa;
  bool over = false;
  if (v != 0) {
    for (int i = 0; i < binary_shift && !over; ++i) {
      v *= 2;
      over = v > limit * 1000000000000LL;
    }
    if (exp10 > 0) {
      for (int i = 0; i < exp10 && !over; ++i) {
        v *= 10;
        over = v > limit;
      }
    } else if (!over) {
      // Dropped digits make the true value a little larger than v * 10^exp10.
      bool remainder = dropped_nonzero;
      for (int i = 0; i < -exp10 && v != 0; ++i) {
        if (v % 10 != 0) remainder = true;
        v /= 10;
      }
      if (-exp10 > 40) v = 0, remainder = true;
      if (remainder) v += 1;  // round up, as Kubernetes does
    }
    over = over || v > limit;
  }
  if (over) return Quantity::FromMilli(negative ? -kSaturated : kSaturated);
  int64_t m = static_cast<int64_t>(v);
  return Quantity::FromMilli(negative ? -m : m);
}

int64_t Quantity::units_ceil() const {
  if (milli_ >= 0) return milli_ / 1000 + (milli_ % 1000 != 0 ? 1 : 0);
  return milli_ / 1000;
}

std::string Quantity::ToString(bool binary) const {
  if (milli_ == INT64_MAX) return "Inf";
  if (milli_ % 1000 != 0) return std::to_string(milli_) + "m";
  int64_t units = milli_ / 1000;
  if (binary && units != 0) {
    static const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    int idx = -1;
    int64_t u = units;
    while (idx < 5 && u % 1024 == 0) {
      u /= 1024;
      ++idx;
    }
    if (idx >= 0) return std::to_string(u) + kSuffix[idx];
  }
  return std::to_string(units);
}

bool IsBinaryResource(std::string_view r) {
  return r == "memory" || r == "ephemeral-storage" || r == "storage" ||
         r.substr(0, 8) == "hugepage";
}

}  // namespace kuota::api
