// FieldErrors: a list of validation failures, each naming a field path and the
// offending value in the words Kubernetes uses (field.ErrorList):
// `spec.x: Invalid value: "v": detail`, `Required value`, `Duplicate value`,
// `Unsupported value`, `Too many`. Plain value type; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kuota::validation {

// Quotes a value as Go's %q would, truncated to a readable length, so hostile
// values (huge, binary, multi-line) cannot flood an error message.
std::string QuoteValue(std::string_view value);

// Field paths as Kubernetes prints them: Child("spec", "cohort") is
// "spec.cohort", Index("spec.podSets", 0) is "spec.podSets[0]" and
// Key("resources.requests", "cpu") is "resources.requests[cpu]". A name or
// key longer than any valid one (320 bytes) is shortened with "...".
std::string Child(std::string_view path, std::string_view name);
std::string Index(std::string_view path, size_t i);
std::string Key(std::string_view path, std::string_view key);

class FieldErrors {
 public:
  // `path: Invalid value: "value": detail` (value quoted).
  void Invalid(std::string_view path, std::string_view value, std::string_view detail);
  // `path: Invalid value: 5: detail` (numbers are not quoted).
  void InvalidNumber(std::string_view path, int64_t value, std::string_view detail);
  // `path: Invalid value: {...}: detail` for a structured value, shown as
  // given (e.g. its compact JSON, where Kubernetes prints Go's %#v), cut to a
  // readable length.
  void InvalidObject(std::string_view path, std::string_view shown, std::string_view detail);
  // `path: Required value` or `path: Required value: detail`.
  void Required(std::string_view path, std::string_view detail = {});
  // `path: Duplicate value: "value"`, then `: detail` when given.
  void Duplicate(std::string_view path, std::string_view value, std::string_view detail = {});
  // `path: Unsupported value: "value": supported values: "a", "b"`.
  void NotSupported(std::string_view path, std::string_view value,
                    std::initializer_list<std::string_view> supported);
  // The same with a list known only at run time; with none, just
  // `path: Unsupported value: "value"` (as field.NotSupported prints it).
  void NotSupported(std::string_view path, std::string_view value,
                    const std::vector<std::string>& supported);
  // `path: Not found: "value"`.
  void NotFound(std::string_view path, std::string_view value);
  // `path: Forbidden: detail`.
  void Forbidden(std::string_view path, std::string_view detail);
  // `path: Too many: 17: must have at most 16 <what>`.
  void TooMany(std::string_view path, size_t actual, size_t max, std::string_view what = "items");
  // A list of `n` items that needs at least one and at most `max`: Required
  // when empty, TooMany past `max`.
  void CheckCount(std::string_view path, size_t n, size_t max);
  // `path: Too long: may not be more than 262144 bytes` (apimachinery's
  // field.TooLong since Kubernetes 1.33).
  void TooLong(std::string_view path, size_t max);

  // When false, object names and name references are not checked against
  // DNS-1123 (what-if state files may use any names).
  bool check_names = true;

  bool empty() const { return errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }

  // OK when empty; otherwise one Invalid status with every error joined by "; ".
  Status ToStatus() const;

 private:
  // `path: type`, then `: value` and `: detail` when given.
  void Add(std::string_view path, std::string_view type, std::string_view value,
           std::string_view detail);

  std::vector<std::string> errors_;
};

}  // namespace kuota::validation
