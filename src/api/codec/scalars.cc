#include "api/codec/scalars.h"

namespace kuota::codec {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<bool> ParseYamlBool(std::string_view s) {
  for (std::string_view t :
       {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}) {
    if (s == t) return true;
  }
  for (std::string_view f :
       {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}) {
    if (s == f) return false;
  }
  return std::nullopt;
}

bool IsYamlBool(std::string_view s) { return ParseYamlBool(s).has_value(); }

bool LooksLikeNumber(std::string_view s) {
  if (s == ".inf" || s == "-.inf" || s == "+.inf" || s == ".Inf" || s == ".INF" || s == ".nan" ||
      s == ".NaN" || s == ".NAN") {
    return true;
  }
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

IntParse ParseDecimalInt(std::string_view s, int64_t& out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return IntParse::kNotInteger;
  if (s[i] == '0' && i + 1 < s.size()) return IntParse::kNotInteger;  // 010, 0x10
  // Accumulate as a negative number so INT64_MIN is representable.
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return IntParse::kNotInteger;
    int digit = s[i] - '0';
    if (v < (INT64_MIN + digit) / 10) {
      // Keep scanning so "12x" with many digits is still "not an integer".
      for (++i; i < s.size(); ++i) {
        if (!IsDigit(s[i])) return IntParse::kNotInteger;
      }
      return IntParse::kOutOfRange;
    }
    v = v * 10 - digit;
  }
  if (!negative) {
    if (v == INT64_MIN) return IntParse::kOutOfRange;
    v = -v;
  }
  out = v;
  return IntParse::kOk;
}

}  // namespace kuota::codec
