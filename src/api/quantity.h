// Quantity: a Kubernetes resource quantity ("500m", "10Gi", "1.5", "2e3") held
// as an exact integer count of milli-units. Arithmetic saturates instead of
// overflowing. Plain value type; thread-compatible.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kuota::api {

class Quantity {
 public:
  // Largest magnitude a parsed quantity holds exactly: INT64_MAX - 1
  // milli-units (about 9.2e15 whole units, or 8 PiB of memory). Kubernetes
  // accepts larger quantities; Parse saturates them to +-INT64_MAX ("Inf"),
  // which quota math treats as unlimited and request sums as overflowed.
  static constexpr int64_t kMaxMilli = INT64_MAX - 1;
  static constexpr int64_t kSaturated = INT64_MAX;

  constexpr Quantity() = default;
  static constexpr Quantity FromMilli(int64_t m) { return Quantity(m); }
  static constexpr Quantity FromUnits(int64_t u) { return Quantity(Mul(u, 1000)); }

  // Parses the Kubernetes quantity grammar. Sub-milli precision is rounded up,
  // as Kubernetes does when it reads a quantity in milli-units; magnitudes over
  // kMaxMilli saturate to +-kSaturated. Refuses malformed text only.
  static Result<Quantity> Parse(std::string_view text);

  constexpr int64_t milli() const { return milli_; }
  // Whole units, rounded up (Kubernetes' Value()).
  int64_t units_ceil() const;
  bool is_zero() const { return milli_ == 0; }
  // True for a value that saturated (parsed past kMaxMilli, or summed there).
  bool saturated() const { return milli_ == kSaturated || milli_ <= -kSaturated; }

  // Canonical text: "500m", "2", "10Gi" (binary suffixes when `binary` and the
  // value is a whole multiple of 1024), "1500m".
  std::string ToString(bool binary = false) const;

  friend constexpr Quantity operator+(Quantity a, Quantity b) {
    return Quantity(Add(a.milli_, b.milli_));
  }
  friend constexpr Quantity operator-(Quantity a, Quantity b) {
    return Quantity(Sub(a.milli_, b.milli_));
  }
  Quantity& operator+=(Quantity o) {
    milli_ = Add(milli_, o.milli_);
    return *this;
  }
  Quantity& operator-=(Quantity o) {
    milli_ = Sub(milli_, o.milli_);
    return *this;
  }
  // Multiplies by a pod count, saturating.
  friend constexpr Quantity operator*(Quantity a, int64_t n) { return Quantity(Mul(a.milli_, n)); }
  auto operator<=>(const Quantity&) const = default;

  static constexpr int64_t Add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return a > 0 ? INT64_MAX : INT64_MIN;
    return r;
  }
  // a - b, saturating. Not Add(a, -b): negating INT64_MIN overflows.
  static constexpr int64_t Sub(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
  }
  static constexpr int64_t Mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? INT64_MIN : INT64_MAX;
    return r;
  }

 private:
  explicit constexpr Quantity(int64_t m) : milli_(m) {}
  int64_t milli_ = 0;
};

// True for resources whose amounts read best in binary units (memory, storage).
bool IsBinaryResource(std::string_view resource_name);

}  // namespace kuota::api
