// Result<T>: a value or the Status saying why there is none.
// C++20 has no std::expected; this is the small one Kuota uses across module
// boundaries. Plain value type; thread-compatible like T.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "base/status.h"

namespace kuota {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result built from an OK status has no value");
    if (status_.ok()) status_ = Status::Internal("Result built from OK status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace kuota

#define KUOTA_CONCAT_INNER(a, b) a##b
#define KUOTA_CONCAT(a, b) KUOTA_CONCAT_INNER(a, b)
#define KUOTA_ASSIGN_OR_RETURN(lhs, expr) \
  KUOTA_ASSIGN_OR_RETURN_IMPL(KUOTA_CONCAT(_res_, __LINE__), lhs, expr)
#define KUOTA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
